import AssetPack
import Foundation
import TestSupport
import Testing

@testable import StudyContent

@Suite("Build-time validation: every rule, its exact error")
struct ValidationTests {
    static func question(
        _ id: String, prompt: String = "Why?", choices: [(String, Bool)] = [("yes", true), ("no", false)],
        picture: String? = nil
    ) -> String {
        let list = choices.map { #"{"text": "\#($0.0)", "correct": \#($0.1)}"# }.joined(separator: ", ")
        let pictureField = picture.map { #", "picture": "\#($0)""# } ?? ""
        return #"{"id": "\#(id)", "prompt": "\#(prompt)", "choices": [\#(list)], "explanation": "Because."\#(pictureField)}"#
    }

    static func bank(_ questions: [String], categoryPicture: String? = nil) -> [String: String] {
        let pictureField = categoryPicture.map { #""picture": "\#($0)", "# } ?? ""
        return [
            "Banks/b/bank.json": #"{"id": "b", "title": "B", "language": "en", "categories": ["c"]}"#,
            "Banks/b/c.json":
                #"{"id": "c", "title": "C", \#(pictureField)"lessons": [{"id": "c-1", "title": "L", "intro": "I", "questions": [\#(questions.joined(separator: ", "))]}]}"#,
        ]
    }

    func problems(_ files: [String: String], base: [String: String]? = nil) throws -> [ContentError] {
        let scratch = try Scratch()
        let pack = try Pack(path: scratch.pack("content", files: files))
        let basePack = try base.map { try Pack(path: scratch.pack("base", files: $0)) }
        return ContentValidator(content: pack, pictures: basePack).validate()
    }

    @Test("a valid bank and deck pass")
    func valid() throws {
        var files = Self.bank([Self.question("q1"), Self.question("q2", picture: "Images/p.png")])
        files["Images/p@2x.png"] = "png"
        files["Images/p.png"] = "png"
        files["Decks/d.json"] = #"{"id": "d", "title": "D", "cards": [{"id": "1", "front": "a", "back": "b"}]}"#
        #expect(try problems(files).isEmpty)
    }

    @Test(
        "bank rules",
        arguments: [
            ([question("q1"), question("q1")], ContentError(.duplicateID, file: "Banks/b/c.json", line: 1, item: "q1")),
            ([question("c")], ContentError(.duplicateID, file: "Banks/b/c.json", line: 1, item: "c")),
            (
                [question("q1", choices: [("a", true), ("b", true)])],
                ContentError(.correctAnswers, file: "Banks/b/c.json", line: 1, item: "q1", "2 are marked correct")
            ),
            (
                [question("q1", choices: [("a", false), ("b", false), ("c", false)])],
                ContentError(.correctAnswers, file: "Banks/b/c.json", line: 1, item: "q1", "0 are marked correct")
            ),
            (
                [question("q1", choices: [("a", true)])],
                ContentError(.choiceCount, file: "Banks/b/c.json", line: 1, item: "q1", "it has 1")
            ),
            (
                [question("q1", choices: [("a", true)] + (1...6).map { ("x\($0)", false) })],
                ContentError(.choiceCount, file: "Banks/b/c.json", line: 1, item: "q1", "it has 7")
            ),
            ([question("q1", prompt: "  ")], ContentError(.emptyText, file: "Banks/b/c.json", line: 1, item: "q1", "prompt")),
            (
                [question("q1", choices: [("a", true), (" ", false)])],
                ContentError(.emptyText, file: "Banks/b/c.json", line: 1, item: "q1", "a choice")
            ),
            (
                [question("q1", picture: "Images/nope.png")],
                ContentError(.missingPicture, file: "Banks/b/c.json", line: 1, item: "q1", "Images/nope.png")
            ),
        ] as [([String], ContentError)])
    func bankRule(questions: [String], expected: ContentError) throws {
        #expect(try problems(Self.bank(questions)) == [expected])
    }

    @Test("a category picture must exist; a base pack may supply it")
    func categoryPicture() throws {
        let files = Self.bank([Self.question("q1")], categoryPicture: "Images/c.png")
        #expect(try problems(files) == [ContentError(.missingPicture, file: "Banks/b/c.json", line: 1, item: "c", "Images/c.png")])
        #expect(try problems(files, base: ["Images/c.png": "png"]).isEmpty)
    }

    @Test("a category file the bank lists must exist; malformed JSON says where")
    func structure() throws {
        var files = Self.bank([Self.question("q1")])
        files["Banks/b/c.json"] = nil
        #expect(try problems(files) == [ContentError(.notFound, file: "Banks/b/c.json")])
        files["Banks/b/c.json"] = #"{"id": "c", "title": "C", "lessons": [{"id": "l"}]}"#
        #expect(
            try problems(files) == [
                ContentError(.malformed, file: "Banks/b/c.json", line: 1, "missing \"title\" at .lessons[0]")
            ])
    }

    @Test("deck rules", arguments: [
        (#"[{"id": "1", "front": "a", "back": "b"}, {"id": "1", "front": "c", "back": "d"}]"#, ContentError(.duplicateID, file: "Decks/d.json", line: 1, item: "1")),
        (#"[{"id": "1", "front": "", "back": "b"}]"#, ContentError(.emptyText, file: "Decks/d.json", line: 1, item: "1", "front")),
        (#"[{"id": "1", "front": "a", "back": " "}]"#, ContentError(.emptyText, file: "Decks/d.json", line: 1, item: "1", "back")),
        (#"[{"id": "1", "front": "a", "back": "b", "picture": "Images/x.png"}]"#, ContentError(.missingPicture, file: "Decks/d.json", line: 1, item: "1", "Images/x.png")),
    ])
    func deckRule(cards: String, expected: ContentError) throws {
        #expect(try problems(["Decks/d.json": #"{"id": "d", "title": "D", "cards": \#(cards)}"#]) == [expected])
    }

    @Test("TSV and CSV decks are checked the same way")
    func tableDecks() throws {
        let tsv = "id\tfront\tback\tmeanings\n1\t猫\tcat\tcat; kitty\n1\t犬\tdog\tdog\n"
        #expect(try problems(["Decks/t.tsv": tsv]) == [ContentError(.duplicateID, file: "Decks/t.tsv", line: 3, item: "1")])
        let csv = "id,front,back\n1,a,\n"
        #expect(try problems(["Decks/c.csv": csv]) == [ContentError(.emptyText, file: "Decks/c.csv", line: 2, item: "1", "back")])
        #expect(try problems(["Decks/x.tsv": "front\tback\na\tb\n"]) == [ContentError(.malformed, file: "Decks/x.tsv", line: 1, "no \"id\" column")])
        let deck = try Deck.decode(Array(tsv.utf8), path: "Decks/t.tsv")
        #expect(deck.cards[0].meanings == ["cat", "kitty"])
    }

    @Test("a translation must hold the same question ids as the reference")
    func translations() throws {
        let scratch = try Scratch()
        let reference = try Pack(path: scratch.pack("en", files: Self.bank([Self.question("q1"), Self.question("q2")])))
        let translation = try Pack(path: scratch.pack("ru", files: Self.bank([Self.question("q1"), Self.question("q3")])))
        #expect(
            ContentValidator(content: translation).compareTranslations(with: reference) == [
                ContentError(.missingTranslation, file: "Banks/b/c.json", item: "q2"),
                ContentError(.extraTranslation, file: "Banks/b/c.json", item: "q3"),
            ])
    }
}
