import Foundation
import StudyEngine
import Testing
import TestSupport

@testable import StudyProgress

@Suite("study session shows a question's choices shuffled per learner and item, and grades the choice, not the number")
struct ChoiceShuffleTests {
    static let english = ["a", "b", "c", "d"]
    static let russian = ["а-ru", "б-ru", "в-ru", "г-ru"]

    /// The choices of each question a session printed, in the order shown (its `  N. text` lines).
    static func shownChoices(_ output: String) -> [[String]] {
        var questions: [[String]] = []
        for line in output.split(separator: "\n") {
            let characters = Array(line)
            guard characters.count > 5, characters[0] == " ", characters[1] == " ", let number = characters[2].wholeNumberValue,
                characters[3] == ".", characters[4] == " "
            else { continue }
            if number == 1 { questions.append([]) }
            questions[questions.count - 1].append(String(characters[5...]))
        }
        return questions
    }

    /// The original indices of `shown`, the texts of `choices` in the order shown.
    static func originalIndices(_ shown: [String], in choices: [String]) -> [Int?] {
        shown.map { choices.firstIndex(of: $0) }
    }

    /// The order the library gives the learner of `db` for question `id` of bank `b`.
    static func libraryOrder(db: String, _ id: String) throws -> [Int] {
        ChoiceOrder(count: 4, learnerSeed: try ProgressStore(path: db).learnerSeed, bank: "b", question: id).originalIndices
    }

    // MARK: - Stable per learner and item

    @Test("a learner sees a question's choices in the same order in every session and in every language, the order the library gives")
    func sameOrderAcrossSessionsAndLocales() throws {
        let scratch = try Scratch()
        try scratch.pack("en", locale: "en", files: bankFiles(count: 6, language: "en", choices: Self.english))
        try scratch.pack("ru", locale: "ru", files: bankFiles(count: 6, language: "ru", word: "Вопрос", choices: Self.russian))
        let db = scratch.url("p.sqlite")
        let common = ["session", "--packs", scratch.url("en.pack"), scratch.url("ru.pack"), "--db", db, "--now", "2026-11-22"]
        var shuffled = 0
        for id in (1...6).map({ "q\($0)" }) {
            // Each run is a new process opening the database again; q stops after the choices.
            var orders: [[Int?]] = []
            for (locale, choices) in [("en", Self.english), ("ru", Self.russian), ("en", Self.english)] {
                let result = try study(common + ["--locale", locale, "--item", id, "bank", "b"], input: "q\n")
                #expect(result.status == 0, "\(result.stderr)")
                let shown = try #require(Self.shownChoices(result.output).first, "\(result.output)")
                orders.append(Self.originalIndices(shown, in: choices))
            }
            let library = try Self.libraryOrder(db: db, id)
            #expect(orders.allSatisfy { $0 == library }, "\(id): \(orders) vs \(library)")
            if library != [0, 1, 2, 3] { shuffled += 1 }
        }
        // 1 order in 24 is the bank's own; six of them in a row would mean no shuffle at all.
        #expect(shuffled > 0)
    }

    @Test("two learners see most questions in different orders; --no-shuffle shows every learner the bank's order")
    func learnersDifferAndAuthorsSeeTheBanksOrder() throws {
        let scratch = try Scratch()
        try scratch.pack("en", locale: "en", files: bankFiles(count: 40))
        var orders: [[[String]]] = []
        for learner in ["one", "two"] {
            let db = scratch.url("\(learner).sqlite")
            let arguments = ["session", "--packs", scratch.url("en.pack"), "--db", db, "--now", "2026-11-22", "--scheduler", "leitner", "--new", "40"]
            // Leitner shows each new question once; every answer is choice 1 as shown, then 2.
            let result = try study(arguments + ["bank", "b"], input: String(repeating: "1\n2\n", count: 40))
            #expect(result.status == 0, "\(result.stderr)")
            let shown = Self.shownChoices(result.output)
            #expect(shown.count == 40)
            orders.append(shown)
            let authors = try study(arguments + ["--no-shuffle", "--item", "q7", "bank", "b"], input: "q\n")
            #expect(Self.shownChoices(authors.output) == [["a", "b", "c", "d"]], "\(authors.output)")
        }
        let differing = zip(orders[0], orders[1]).filter { $0 != $1 }.count
        // Chance alone makes two orders of 4 equal 1 time in 24: about 38 of 40 differ.
        #expect(differing >= 30, "\(differing) of 40 differ")
    }

    // MARK: - Answered by the number shown, graded by the choice

    @Test("the number shown for the key is graded right when the key was shuffled away from its place; the log holds the result")
    func keyAnsweredWhereShown() throws {
        let scratch = try Scratch()
        try scratch.pack("en", locale: "en", files: bankFiles(count: 40))
        let db = scratch.url("p.sqlite")
        // The learner's seed is drawn when the database is made; the library says where each key is.
        let ids = (1...40).map { "q\($0)" }
        let keyShownAt = try ids.map { try #require(try Self.libraryOrder(db: db, $0).firstIndex(of: 1)) + 1 }
        let moved = keyShownAt.filter { $0 != 2 }.count
        #expect(moved > 20, "the key moved in only \(moved) of 40 questions")
        let result = try study(
            ["session", "--packs", scratch.url("en.pack"), "--db", db, "--now", "2026-11-22", "--scheduler", "leitner", "--new", "40", "bank", "b"],
            input: keyShownAt.map { "\($0)\n" }.joined())
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.output.contains("Done: 40 answered (0 reviews, 40 new), 40 right first time;"), "\(result.output)")
        #expect(!result.output.contains("Not quite"))
        let log = try ProgressStore(path: db).reviews(source: "bank/b")
        #expect(log.map(\.key.item) == ids)
        #expect(log.allSatisfy { $0.answer == .multipleChoice(.rightFirstTry) })
    }

    @Test("a wrong choice shows the question's own explanation, and the key with the number it is shown with and its own text")
    func wrongChoiceExplainedByTheOriginal() throws {
        let scratch = try Scratch()
        try scratch.pack("en", locale: "en", files: bankFiles(count: 40))
        let db = scratch.url("p.sqlite")
        // A question whose key was moved off place 2: answering 2 there picks a wrong choice.
        var found: (id: String, order: [Int])?
        for id in (1...40).map({ "q\($0)" }) where found == nil {
            let order = try Self.libraryOrder(db: db, id)
            if order[1] != 1 { found = (id, order) }
        }
        let (id, order) = try #require(found)
        let keyShownAt = try #require(order.firstIndex(of: 1)) + 1
        let otherWrong = try #require((1...4).first { $0 != 2 && $0 != keyShownAt })
        let result = try study(
            ["session", "--packs", scratch.url("en.pack"), "--db", db, "--now", "2026-11-22", "--item", id, "bank", "b"],
            input: "2\n\(otherWrong)\n")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.output.contains("✗ Not quite. Because \(id.dropFirst())."), "\(result.output)")
        #expect(result.output.contains("✗ The answer is \(keyShownAt). b\n"), "\(result.output)")
        #expect(try ProgressStore(path: db).reviews(source: "bank/b").map(\.answer) == [.multipleChoice(.wrong)])
    }
}
