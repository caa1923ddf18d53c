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
            ([question("q1"), question("q1")], ContentError(.duplicateID, at: .file("Banks/b/c.json", line: 1, item: "q1"))),
            ([question("c")], ContentError(.duplicateID, at: .file("Banks/b/c.json", line: 1, item: "c"))),
            (
                [question("q1", choices: [("a", true), ("b", true)])],
                ContentError(.correctAnswers, "2 are marked correct", at: .file("Banks/b/c.json", line: 1, item: "q1"))
            ),
            (
                [question("q1", choices: [("a", false), ("b", false), ("c", false)])],
                ContentError(.correctAnswers, "0 are marked correct", at: .file("Banks/b/c.json", line: 1, item: "q1"))
            ),
            (
                [question("q1", choices: [("a", true)])],
                ContentError(.choiceCount, "it has 1", at: .file("Banks/b/c.json", line: 1, item: "q1"))
            ),
            (
                [question("q1", choices: [("a", true)] + (1...6).map { ("x\($0)", false) })],
                ContentError(.choiceCount, "it has 7", at: .file("Banks/b/c.json", line: 1, item: "q1"))
            ),
            ([question("q1", prompt: "  ")], ContentError(.emptyText, "prompt", at: .file("Banks/b/c.json", line: 1, item: "q1"))),
            (
                [question("q1", choices: [("a", true), (" ", false)])],
                ContentError(.emptyText, "a choice", at: .file("Banks/b/c.json", line: 1, item: "q1"))
            ),
            (
                [question("q1", picture: "Images/nope.png")],
                ContentError(.missingPicture, "Images/nope.png", at: .file("Banks/b/c.json", line: 1, item: "q1"))
            ),
        ] as [([String], ContentError)])
    func bankRule(questions: [String], expected: ContentError) throws {
        #expect(try problems(Self.bank(questions)) == [expected])
    }

    @Test("a category picture must exist; a base pack may supply it")
    func categoryPicture() throws {
        let files = Self.bank([Self.question("q1")], categoryPicture: "Images/c.png")
        #expect(try problems(files) == [ContentError(.missingPicture, "Images/c.png", at: .file("Banks/b/c.json", line: 1, item: "c"))])
        #expect(try problems(files, base: ["Images/c.png": "png"]).isEmpty)
    }

    @Test("a category file the bank lists must exist; malformed JSON says where")
    func structure() throws {
        var files = Self.bank([Self.question("q1")])
        files["Banks/b/c.json"] = nil
        #expect(try problems(files) == [ContentError(.notFound, at: .file("Banks/b/c.json"))])
        files["Banks/b/c.json"] = #"{"id": "c", "title": "C", "lessons": [{"id": "l"}]}"#
        #expect(
            try problems(files) == [
                ContentError(.malformed, "missing \"title\" at .lessons[0]", at: .file("Banks/b/c.json", line: 1))
            ])
    }

    @Test("deck rules", arguments: [
        (#"[{"id": "1", "front": "a", "back": "b"}, {"id": "1", "front": "c", "back": "d"}]"#, ContentError(.duplicateID, at: .file("Decks/d.json", line: 1, item: "1"))),
        (#"[{"id": "1", "front": "", "back": "b"}]"#, ContentError(.emptyText, "front", at: .file("Decks/d.json", line: 1, item: "1"))),
        (#"[{"id": "1", "front": "a", "back": " "}]"#, ContentError(.emptyText, "back", at: .file("Decks/d.json", line: 1, item: "1"))),
        (#"[{"id": "1", "front": "a", "back": "b", "picture": "Images/x.png"}]"#, ContentError(.missingPicture, "Images/x.png", at: .file("Decks/d.json", line: 1, item: "1"))),
    ])
    func deckRule(cards: String, expected: ContentError) throws {
        #expect(try problems(["Decks/d.json": #"{"id": "d", "title": "D", "cards": \#(cards)}"#]) == [expected])
    }

    @Test("TSV and CSV decks are checked the same way")
    func tableDecks() throws {
        let tsv = "id\tfront\tback\tmeanings\n1\t猫\tcat\tcat; kitty\n1\t犬\tdog\tdog\n"
        #expect(try problems(["Decks/t.tsv": tsv]) == [ContentError(.duplicateID, at: .file("Decks/t.tsv", line: 3, item: "1"))])
        let csv = "id,front,back\n1,a,\n"
        #expect(try problems(["Decks/c.csv": csv]) == [ContentError(.emptyText, "back", at: .file("Decks/c.csv", line: 2, item: "1"))])
        #expect(try problems(["Decks/x.tsv": "front\tback\na\tb\n"]) == [ContentError(.malformed, "no \"id\" column", at: .file("Decks/x.tsv", line: 1))])
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
                ContentError(.missingTranslation, at: .file("Banks/b/c.json", item: "q2")),
                ContentError(.extraTranslation, at: .file("Banks/b/c.json", line: 1, item: "q3")),
            ])
    }

    @Test("a translation keeps the reference's answer key and pictures; a difference names the line")
    func translatedKeys() throws {
        let scratch = try Scratch()
        let three = [("a", false), ("b", true), ("c", false)]
        let reference = try Pack(path: scratch.pack("en", files: Self.bank([
            Self.question("q1", choices: three), Self.question("q2", choices: three),
            Self.question("q3", choices: three, picture: "Images/stop.png"), Self.question("q4"),
        ], categoryPicture: "Images/c.png")))
        // One question per line, as translators write them.
        var files = Self.bank([
            Self.question("q1", choices: [("а", false), ("б", true), ("в", false)]),
            Self.question("q2", choices: [("а", true), ("б", false), ("в", false)]),
            Self.question("q3", choices: three, picture: "Images/yield.png"),
            Self.question("q4", choices: [("да", true), ("нет", false), ("может быть", false)]),
        ])
        files["Banks/b/c.json"] = files["Banks/b/c.json"]?.replacingOccurrences(of: "}, {\"id\"", with: "},\n{\"id\"")
        let translation = try Pack(path: scratch.pack("ru", files: files))
        #expect(
            ContentValidator(content: translation).compareTranslations(with: reference) == [
                ContentError(.pictureMismatch, "none here, Images/c.png in the reference", at: .file("Banks/b/c.json", line: 1, item: "c")),
                ContentError(.answerKeyMismatch, "correct: choice 1 here, choice 2 in the reference", at: .file("Banks/b/c.json", line: 2, item: "q2")),
                ContentError(.pictureMismatch, "Images/yield.png here, Images/stop.png in the reference", at: .file("Banks/b/c.json", line: 3, item: "q3")),
                ContentError(.answerKeyMismatch, "3 choices, the reference has 2", at: .file("Banks/b/c.json", line: 4, item: "q4")),
            ])
    }
}

@Suite("Hostile content: references that leave the pack, broken tables, unreadable files")
struct HostileContentTests {
    @Test(
        "a reference that leaves the pack is an error naming the file, line and item, and is never opened",
        arguments: ["../outside/secret.png", "/etc/hostname", ".hidden/p.png", "Images/.p.png", "Images/../../outside/secret.png"])
    func unsafeReferences(picture: String) throws {
        let scratch = try Scratch()
        try scratch.write("outside/secret.png", "secret")
        try scratch.write("source/Images/p.png", "png")
        for (name, text) in ValidationTests.bank([ValidationTests.question("q1", picture: picture)]) {
            try scratch.write("source/" + name, text)
        }
        let problems = ContentValidator(content: FolderSource(root: scratch.url("source"))).validate()
        #expect(problems.count == 1)
        #expect(problems.first?.code == .unsafeReference)
        #expect(problems.first?.location.file == "Banks/b/c.json")
        #expect(problems.first?.location.line == 1)
        #expect(problems.first?.location.item == "q1")
        // A source folder never reads through such a path, even asked directly.
        #expect(throws: ContentError.self) { try FolderSource(root: scratch.url("source")).data(atPath: picture) }
        #expect(!FolderSource(root: scratch.url("source")).contains(picture))
    }

    @Test("a category id that leaves the bank's folder is an error, never a file read outside")
    func unsafeCategory() throws {
        let scratch = try Scratch()
        try scratch.write("outside.json", #"{"id": "x", "title": "X", "lessons": []}"#)
        try scratch.write("source/Banks/b/bank.json", #"{"id": "b", "title": "B", "categories": ["../../../outside"]}"#)
        let problems = ContentValidator(content: FolderSource(root: scratch.url("source"))).validate()
        #expect(problems.map(\.code) == [.unsafeReference])
        #expect(problems.first?.location.file == "Banks/b/bank.json")
    }

    @Test("table decks: a row of the wrong width or an unterminated quote names its line")
    func brokenTables() throws {
        let wide = "id\tfront\tback\n1\ta\tb\n2\ta\tb\textra\n"
        #expect(throws: ContentError(.malformed, "the row has 4 fields, the header 3", at: .file("Decks/w.tsv", line: 3))) {
            try Deck.decode(Array(wide.utf8), path: "Decks/w.tsv")
        }
        let narrow = "id,front,back\n1,a,b\n\n2,a\n"
        #expect(throws: ContentError(.malformed, "the row has 2 fields, the header 3", at: .file("Decks/n.csv", line: 4))) {
            try Deck.decode(Array(narrow.utf8), path: "Decks/n.csv")
        }
        let open = "id,front,back\n1,\"a, b\",c\n2,\"never closed,c\n3,x,y\n"
        #expect(throws: ContentError(.malformed, "a quoted field opened on this line is never closed", at: .file("Decks/q.csv", line: 3))) {
            try Deck.decode(Array(open.utf8), path: "Decks/q.csv")
        }
        // Quoted fields may hold the delimiter, doubled quotes and line breaks.
        let quoted = "id,front,back\n1,\"a, \"\"b\"\"\",\"two\nlines\"\n2,x,y\n"
        let deck = try Deck.decode(Array(quoted.utf8), path: "Decks/ok.csv")
        #expect(deck.cards.map(\.front) == ["a, \"b\"", "x"])
        #expect(deck.cards.first?.back == "two\nlines")
    }

    @Test("a deck that cannot be read is 'cannot be read' with the pack's error, not 'not found'")
    func unreadableDeck() throws {
        let scratch = try Scratch()
        let cards = (1...40).map { #"{"id": "\#($0)", "front": "a", "back": "b"}"# }.joined(separator: ", ")
        try scratch.write("src/Decks/d.json", #"{"id": "d", "title": "D", "cards": [\#(cards)]}"#)
        #expect(try run("zip", ["-9", "-q", scratch.url("d.zip"), "Decks/d.json"], in: scratch.url("src")).status == 0)
        // The deflated deck's CRC-32, wrong in both headers alike.
        var zip = try scratch.bytes("d.zip")
        let central = try #require(zip.indices.dropLast(4).first { Array(zip[$0..<$0 + 4]) == [0x50, 0x4B, 1, 2] })
        for offset in [14, central + 16] { zip[offset] ^= 0xFF }
        try Data(zip).write(to: URL(fileURLWithPath: scratch.url("d.zip")))
        let pack = try Pack(path: scratch.url("d.zip"))
        let error = #expect(throws: ContentError.self) { try Deck.load(id: "d", from: pack) }
        #expect(error?.code == .unreadable)
        guard case .pack(let cause)? = error?.underlying else {
            Issue.record("no pack error underneath: \(String(describing: error))")
            return
        }
        #expect(cause.code == .crcMismatch)
        #expect(error?.description.hasPrefix("Decks/d.json: cannot be read: ") == true)
    }

    @Test("a reference bank that cannot be loaded is reported by the translation check, never skipped")
    func brokenReference() throws {
        let scratch = try Scratch()
        let translation = try Pack(path: scratch.pack("ru", files: ValidationTests.bank([ValidationTests.question("q1")])))
        var broken = ValidationTests.bank([ValidationTests.question("q1")])
        broken["Banks/b/c.json"] = "{not json"
        let reference = try Pack(path: scratch.pack("en", files: broken))
        let problems = ContentValidator(content: translation).compareTranslations(with: reference)
        #expect(problems.map(\.code) == [.malformed])
        #expect(problems.first?.detail.hasPrefix("the reference bank cannot be loaded: not valid JSON") == true)
    }

    @Test("a bank that requires sources names every question without one")
    func requiredSources() throws {
        var files = ValidationTests.bank([ValidationTests.question("q1"), ValidationTests.question("q2")])
        files["Banks/b/bank.json"] = #"{"id": "b", "title": "B", "requireSources": true, "categories": ["c"]}"#
        files["Banks/b/c.json"] = files["Banks/b/c.json"]?.replacingOccurrences(
            of: #""id": "q1", "#, with: #""id": "q1", "source": "Motor Vehicle Act, s. 129", "#)
        let problems = try ValidationTests().problems(files)
        #expect(problems == [ContentError(.missingSource, "the bank requires a source on every question", at: .file("Banks/b/c.json", line: 1, item: "q2"))])
    }
}
