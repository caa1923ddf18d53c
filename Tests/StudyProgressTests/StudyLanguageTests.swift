// The study tool in the learner's language: sessions and stats in Russian, Chinese and Punjabi
// with no Latin word outside what is allowed, and the errors a learner causes.
import Foundation
import StudyStrings
import Testing
import TestSupport

@Suite("study session and stats in Russian, Chinese and Punjabi: no Latin word around the content")
struct StudyLanguageTests {
    /// A bank and a deck written wholly in one language, so that any Latin letter on the screen
    /// comes from the tool, not the content.
    struct Fixture: Sendable, CustomTestStringConvertible {
        var language: String
        /// The tag the learner gives (`ru-RU`): it falls back to the catalog's language.
        var locale: String
        var title: String
        var category: String
        var lesson: String
        var intro: String
        var prompt: String
        var choices: [String]
        var explanation: String
        var deck: String
        var cards: [(String, String)]

        var testDescription: String { locale }

        /// Three questions (choice 2 right; q1 shows a picture) in one lesson, and a deck of two cards.
        var files: [String: String] {
            func quoted(_ text: String) -> String { "\"" + text + "\"" }
            let choiceList = choices.enumerated().map { #"{"text": \#(quoted($0.element)), "correct": \#($0.offset == 1)}"# }.joined(separator: ", ")
            let questions = (1...3).map { n in
                #"{"id": "q\#(n)", "prompt": \#(quoted(prompt + " \(n)?"))\#(n == 1 ? #", "picture": "Images/q1.png""# : ""), "choices": [\#(choiceList)], "explanation": \#(quoted(explanation))}"#
            }
            let cardList = cards.enumerated().map { #"{"id": "c\#($0.offset + 1)", "front": \#(quoted($0.element.0)), "back": \#(quoted($0.element.1))}"# }
            return [
                "Banks/b/bank.json": #"{"id": "b", "title": \#(quoted(title)), "language": "\#(language)", "categories": ["c"]}"#,
                "Banks/b/c.json": #"{"id": "c", "title": \#(quoted(category)), "lessons": [{"id": "l1", "title": \#(quoted(lesson)), "intro": \#(quoted(intro)), "questions": [\#(questions.joined(separator: ", "))]}]}"#,
                "Decks/d.json": #"{"id": "d", "title": \#(quoted(deck)), "cards": [\#(cardList.joined(separator: ", "))]}"#,
            ]
        }
    }

    static let fixtures = [
        Fixture(
            language: "ru", locale: "ru-RU", title: "Правила", category: "Знаки", lesson: "Урок первый", intro: "Сначала прочтите это.",
            prompt: "Что означает знак номер", choices: ["Стоп", "Уступите дорогу", "Въезд запрещён", "Главная дорога"],
            explanation: "Так сказано в правилах.", deck: "Слова", cards: [("кот", "кошка"), ("пёс", "собака")]),
        Fixture(
            language: "zh-Hans", locale: "zh-CN", title: "规则", category: "标志", lesson: "第一课", intro: "请先阅读。", prompt: "这个标志是什么意思？编号",
            choices: ["停车", "让行", "禁止驶入", "主路"], explanation: "规则就是这样写的。", deck: "词语", cards: [("猫", "小猫"), ("狗", "小狗")]),
        Fixture(
            language: "pa", locale: "pa-IN", title: "ਨਿਯਮ", category: "ਨਿਸ਼ਾਨ", lesson: "ਪਹਿਲਾ ਸਬਕ", intro: "ਪਹਿਲਾਂ ਇਹ ਪੜ੍ਹੋ।", prompt: "ਨਿਸ਼ਾਨ ਨੰਬਰ",
            choices: ["ਰੁਕੋ", "ਰਸਤਾ ਦਿਓ", "ਦਾਖ਼ਲਾ ਮਨ੍ਹਾ", "ਮੁੱਖ ਸੜਕ"], explanation: "ਨਿਯਮਾਂ ਵਿੱਚ ਇਹੀ ਲਿਖਿਆ ਹੈ।", deck: "ਸ਼ਬਦ",
            cards: [("ਬਿੱਲੀ", "ਬਿੱਲੀਆਂ"), ("ਕੁੱਤਾ", "ਕੁੱਤੇ")]),
    ]

    /// Whether `scalar` is a Latin letter (Basic Latin, Latin-1, Latin Extended-A/B, Latin
    /// Extended Additional).
    static func isLatinLetter(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x41...0x5A, 0x61...0x7A: true
        case 0xC0...0x24F, 0x1E00...0x1EFF: scalar.properties.isAlphabetic
        default: false
        }
    }

    @Test("a session (a wrong try, two wrong tries, an undo), a Leitner deck and stats print no Latin letter but the ids, the picture's path and the locale tag", arguments: fixtures)
    func noLatinAroundTheContent(fixture: Fixture) throws {
        let scratch = try Scratch()
        let pack = try scratch.pack(fixture.language, locale: fixture.language, files: fixture.files)
        let db = scratch.url("p.sqlite")
        let common = ["--packs", pack, "--db", db, "--locale", fixture.locale, "--time-zone", "America/Vancouver"]
        // q1: wrong, then right; u takes it back; q1 right; q2 wrong twice; q3 right; then the
        // input ends with the learning steps still to come ("left for later").
        let session = try study(["session"] + common + ["--now", "2026-11-22", "--new", "3", "--no-shuffle", "bank", "b"], input: "1\n2\nu\n2\n1\n3\n2\n")
        #expect(session.status == 0, "\(session.stderr)")
        let deck = try study(["session"] + common + ["--now", "2026-11-22", "--scheduler", "leitner", "deck", "d"], input: "3\n1\n")
        #expect(deck.status == 0, "\(deck.stderr)")
        let stats = try study(["stats"] + common + ["--now", "2026-11-23", "--days", "3", "bank", "b"])
        let deckStats = try study(["stats"] + common + ["--now", "2026-11-23", "--days", "3", "deck", "d"])
        #expect(stats.status == 0 && deckStats.status == 0, "\(stats.stderr) \(deckStats.stderr)")

        // What may be Latin, and why: the ids and the picture's path are the content's names
        // (they name files and rows, not words a learner reads); the locale tag is what the
        // learner typed, echoed in the header; `> u` is the learner's own answer (the undo key),
        // echoed after the prompt because the answers come from a file. Nothing else: every
        // word is the catalog's. The sync line's device id and state hash are hex digits.
        let allowed = ["bank/b", "deck/d", "Images/q1.png", "q1", "q2", "q3", "c1", "c2", fixture.locale]
        for output in [session.output, deck.output, stats.output, deckStats.output] {
            for line in output.split(separator: "\n") {
                var rest = (line.hasSuffix("> u") ? line.dropLast() : line).split(separator: " ", omittingEmptySubsequences: false)
                    .filter { !($0.count >= 12 && $0.allSatisfy(\.isHexDigit) && $0.lowercased() == $0) }.joined(separator: " ")
                for token in allowed.sorted(by: { $0.count > $1.count }) { rest = rest.replacingOccurrences(of: token, with: "") }
                #expect(!rest.unicodeScalars.contains(where: Self.isLatinLetter), "\(fixture.locale): \(line)")
            }
        }
        // And the words are this language's, from the catalog.
        let text = StudyText(catalog: try StudyText.bundledCatalog(), locale: fixture.locale)
        #expect(text.language == fixture.language)
        let out = session.output
        for expected in [
            text("feedback.notQuite", fixture.explanation), text("feedback.tryAgain"), text("feedback.rightSecondTry"), text("feedback.right"),
            text("session.undone", "q1"), text("feedback.answerIs", "2. " + fixture.choices[1]), text("session.picture", "Images/q1.png"),
            text("session.today", 0, 3),
        ] {
            #expect(out.contains(expected), "\(fixture.locale): no \"\(expected)\" in\n\(out)")
        }
        #expect(deck.output.contains(text("card.grades") + " > 3"), "\(deck.output)")
        #expect(deck.output.contains("── " + text("session.deckLesson", 1) + "\n"), "\(deck.output)")
        #expect(deckStats.output.contains(text("stats.leitner")), "\(deckStats.output)")
        #expect(stats.output.contains(text("stats.forecast", 3)), "\(stats.output)")
    }

    @Test("Russian as a learner reads it: time phrases with their plural, the summary, the level")
    func russianWords() throws {
        let fixture = Self.fixtures[0]
        let scratch = try Scratch()
        let pack = try scratch.pack("ru", locale: "ru", files: fixture.files)
        let common = ["--packs", pack, "--db", scratch.url("p.sqlite"), "--locale", "ru-RU", "--time-zone", "America/Vancouver", "--now", "2026-11-22"]
        let session = try study(["session"] + common + ["--new", "3", "--no-shuffle", "bank", "b"], input: "1\n2\n1\n3\n2\n")
        #expect(session.output.contains("   следующий раз: через 6 минут (2026-11-22 09:05)"), "\(session.output)")
        #expect(session.output.contains("   следующий раз: через 1 минуту (2026-11-22 09:01)"), "\(session.output)")
        #expect(session.output.contains("\nГотово: 3 ответа (0 повторений, 3 новых), верно с первой попытки: 1, отложено на потом: 3; на завтра: 3.\n"), "\(session.output)")
        let deck = try study(["session"] + common + ["--scheduler", "leitner", "deck", "d"], input: "3\n3\n")
        #expect(deck.output.contains("следующий раз: день занятий № 3"), "\(deck.output)")
        #expect(deck.output.hasSuffix("Готово: 2 ответа (0 повторений, 2 новых), верно с первой попытки: 2; на завтра: 0. Уровень: начинающий.\n"), "\(deck.output)")
    }

    @Test("the errors a learner causes come in the learner's language: an answer that is no choice, an undo with nothing to take back")
    func errorsInTheLearnersLanguage() throws {
        let fixture = Self.fixtures[0]
        let scratch = try Scratch()
        let pack = try scratch.pack("ru", locale: "ru", files: fixture.files)
        let db = scratch.url("p.sqlite")
        let common = ["--packs", pack, "--db", db, "--locale", "ru", "--now", "2026-11-22", "--no-shuffle", "bank", "b"]
        let invalid = try study(["session"] + common, input: "7\n")
        #expect(invalid.status == 1)
        #expect(invalid.stderr == "study: bank/b/q1: invalidAnswer: выберите от 1 до 4; u — отменить последний ответ, q — закончить; введено «7»\n")
        let undo = try study(["session"] + common, input: "u\n")
        #expect(undo.status == 1)
        #expect(undo.stderr == "study: \(db): nothingToUndo: отменять нечего: в этом занятии ещё нет ответов\n")
        // The same in English, from a base pack (which every locale sees).
        let base = try scratch.pack("base", files: fixture.files)
        let english = try study(["session", "--packs", base, "--db", db, "--now", "2026-11-22", "bank", "b"], input: "7\n")
        #expect(english.stderr == "study: bank/b/q1: invalidAnswer: choose 1 to 4, u to take back the last answer or q to stop; got '7'\n")
    }
}
