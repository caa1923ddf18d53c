import AssetPack
import Foundation
import TestSupport
import Testing

@testable import StudyContent

/// The figures a reviewer keeps a bank honest with: where the key sits, and the cues a
/// test-wise learner guesses from.
@Suite("Bank statistics: the cues a guesser uses")
struct BankStatisticsTests {
    /// A bank of the given questions (each `[choice text: correct]`, in order), in `language`.
    static func bank(_ questions: [[(String, Bool)]], language: String = "en") throws -> QuestionBank {
        let scratch = try Scratch()
        let items = questions.enumerated().map { index, choices in
            let list = choices.map { #"{"text": "\#($0.0)", "correct": \#($0.1)}"# }.joined(separator: ", ")
            return #"{"id": "q\#(index + 1)", "prompt": "Q\#(index + 1)?", "explanation": "E.", "choices": [\#(list)]}"#
        }
        let path = try scratch.pack("b", files: [
            "Banks/b/bank.json": #"{"id": "b", "title": "B", "language": "\#(language)", "categories": ["c"]}"#,
            "Banks/b/c.json": #"{"id": "c", "title": "C", "lessons": [{"id": "l", "title": "L", "intro": "I.", "questions": [\#(items.joined(separator: ", "))]}]}"#,
        ])
        return try QuestionBank.load(id: "b", from: try Pack(path: path))
    }

    @Test("yes/no questions and a correct choice that alone starts differently are counted")
    func openers() throws {
        let bank = try Self.bank([
            [("Yes, if the road is clear", false), ("No, never on a highway", true), ("Yes, at any time", false)],
            [("Stop, then go when safe", true), ("Slow down and go", false), ("Slow down, sound the horn", false), ("Slow to 30 km/h", false)],
            [("Stop and wait", false), ("Stop, then turn", true), ("Yield to the left", false)],
            [("No closer than 5 m", false), ("No closer than 15 m", true), ("No closer than 6 m", false)],
        ])
        let figures = BankStatistics(bank)
        #expect(figures.yesNoQuestions == ["q1"])
        #expect(figures.oddOpenerQuestions == ["q1", "q2"])
        let russian = try Self.bank([[("Да, всегда", false), ("Нет, только после остановки", true)]], language: "ru")
        #expect(BankStatistics(russian).yesNoQuestions == ["q1"])
        let chinese = try Self.bank([[("可以，只要没有来车", false), ("不可以，必须先停车", true)], [("可以在这里停车", true), ("不能", false)]], language: "zh-Hans")
        #expect(BankStatistics(chinese).yesNoQuestions == ["q1"])
    }

    @Test("a word that recurs in choices has its correct share; the giveaways are the far ones")
    func words() throws {
        var questions: [[(String, Bool)]] = []
        for n in 0..<12 {
            // "horn" is offered 12 times and never right; "signal" is right in 8 of 12, "go" in 4.
            questions.append([("Signal and wait \(n)", n % 3 != 0), ("Sound your horn", false), ("Go ahead", n % 3 == 0), ("Brake hard", false)])
        }
        let figures = BankStatistics(try Self.bank(questions))
        let horn = try #require(figures.recurringWords.first { $0.word == "horn" })
        #expect(horn.choices == 12 && horn.correct == 0)
        let signal = try #require(figures.recurringWords.first { $0.word == "signal" })
        #expect(signal.choices == 12 && signal.correct == 8)
        #expect(figures.recurringWords.allSatisfy { $0.choices >= BankStatistics.recurringWordThreshold })
        let giveaways = Set(figures.giveawayWords().map(\.word))
        #expect(giveaways.contains("horn") && giveaways.contains("signal"))
        #expect(!giveaways.contains("go"))
        #expect(BankStatistics.words("Don't stop: 30 km/h") == ["don", "t", "stop", "30", "km", "h"])
    }
}

/// The test-wise learner on banks made to give themselves away, or not.
@Suite("The test-wise learner: word log-odds learnt on half a bank, scored on the other")
struct TestWiseLearnerTests {
    /// A bank of `count` questions whose keys carry `keyWord` and whose distractors carry
    /// `distractorWord` (a bank that gives itself away when they differ).
    static func bank(count: Int, keyWord: String, distractorWord: String) throws -> QuestionBank {
        try BankStatisticsTests.bank((0..<count).map { number in
            (0..<4).map { index in
                let correct = index == number % 4
                return ("\(correct ? keyWord : distractorWord) item\(number)", correct)
            }
        })
    }

    @Test("a bank whose keys carry a word of their own is passed by the words alone; one that gives nothing away sits at chance")
    func scores() throws {
        let giveaway = TestWiseLearner(try Self.bank(count: 40, keyWord: "safely", distractorWord: "quickly"))
        #expect(giveaway.score == 1)
        #expect(Set(giveaway.oneSidedWords.map(\.word)) == ["safely", "quickly"])
        let fair = TestWiseLearner(try Self.bank(count: 40, keyWord: "same", distractorWord: "same"))
        #expect(fair.score == 0.25, "\(fair.score)")
        #expect(fair.oneSidedWords.isEmpty)
    }

    @Test("words: runs of letters, digits and marks, lowercased; a Han run gives its characters and their pairs")
    func tokens() {
        #expect(TestWiseLearner.tokens("Stop, then GO at 50 km/h") == ["stop", "then", "go", "at", "50", "km", "h"])
        #expect(TestWiseLearner.tokens("立即停车") == ["立", "即", "停", "车", "立即", "即停", "停车"])
        #expect(TestWiseLearner.tokens("A车") == ["a", "车"])
        #expect(TestWiseLearner.tokens("ਸਿਰਫ਼ ਹਮੇਸ਼ਾ").count == 2)
    }
}
