import AssetLibrary
import AssetPack
import Foundation
import TestSupport
import Testing

@testable import StudyContent

/// The BC driving bank of Packs/: the quality bar its authors work to (BankStatistics, as
/// `packtool show … --stats` prints it), and translations that keep every question and answer.
@Suite("The BC driving bank in Packs/: the quality bar, in every language")
struct DrivingBankTests {
    /// The bank's 18 categories, in the order a learner meets them: the licence, the car and the
    /// driver before the trip, the rules of the road, then See-Think-Do, sharing the road, winter
    /// and emergencies (the order of ICBC's Learn to Drive Smart).
    static let categories = [
        "licence-insurance", "vehicle-controls", "before-you-drive", "safety-inside", "fit-to-drive",
        "road-signs", "traffic-lights", "road-markings", "intersections", "right-of-way", "lane-use", "reserved-lanes",
        "passing-merging", "parking", "see-think-do", "sharing-the-road", "winter-driving", "emergencies",
    ]

    /// The packs of the bank, built from Packs/ as packtool builds them.
    struct Packs {
        let scratch: Scratch
        let base: Pack
        let english: Pack

        init() throws {
            scratch = try Scratch()
            base = try Pack(path: scratch.packReal("driving-base"))
            english = try Pack(path: scratch.packReal("driving-en"))
        }

        func bank(_ pack: Pack) throws -> QuestionBank { try QuestionBank.load(id: "driving-rules", from: pack) }
    }

    @Test("English: 662 questions in 18 categories, lessons of 5–8 that teach first, 4 choices, sourced, no giveaways")
    func english() throws {
        let packs = try Packs()
        let bank = try packs.bank(packs.english)
        let store = AssetStore()
        try store.mount(packs.base, priority: .base)
        try store.mount(packs.english, priority: .locale)
        let figures = BankStatistics(bank, pictures: store.currentView)

        #expect(bank.language == "en")
        #expect(bank.requiresSources)
        #expect(figures.questions == 662)
        #expect(bank.categories.map(\.id) == Self.categories)
        for lesson in bank.categories.flatMap(\.lessons) {
            #expect((5...8).contains(lesson.questions.count), "\(lesson.id): \(lesson.questions.count) questions")
            #expect(lesson.intro.split(separator: " ").count >= 60, "\(lesson.id): its intro is too short to teach")
        }
        #expect(figures.choiceCounts == [4: 662])
        for position in 0..<4 {
            #expect((0.20...0.30).contains(figures.shareCorrect(at: position)), "correct at position \(position + 1): \(figures.shareCorrect(at: position))")
        }
        // Inside every category of 20 or more questions too: each position 15-35%.
        for category in figures.categories where category.questions >= 20 {
            for position in 0..<4 {
                #expect((0.15...0.35).contains(category.shareCorrect(at: position)), "\(category.id): correct at \(position + 1) in \(category.shareCorrect(at: position))")
            }
        }
        #expect(figures.shareCorrectIsLongest <= 0.35)
        // The cues `packtool show --stats` reports: few yes/no questions, few keys that alone start differently.
        #expect(figures.yesNoQuestions.count <= 15, "\(figures.yesNoQuestions)")
        #expect(Double(figures.oddOpenerQuestions.count) / Double(figures.questions) <= 0.10, "\(figures.oddOpenerQuestions.count)")
        #expect(figures.withoutSource.isEmpty)
        #expect(figures.missingPictures.isEmpty)
        #expect(ContentValidator(content: store.currentView).validate().isEmpty)

        // Sign, signal, marking and dashboard questions show their own pictures, drawn at every
        // scale into the base pack that all languages share.
        let own = figures.pictures.filter { !$0.hasPrefix("Images/categories/") }
        #expect(own.count >= 209)
        // ICBC's test asks from diagrams: at least 80 questions show a scenario of their own.
        #expect(own.filter { $0.hasPrefix("Images/scenarios/") }.count >= 80)
        // And nothing is drawn for nothing: every picture in the base pack is one the bank shows.
        let drawn = Set(packs.base.entries.map { VariantName(path: $0.path).basePath }.filter { $0.hasPrefix("Images/") })
        #expect(drawn.subtracting(figures.pictures).sorted() == [])
        for picture in figures.pictures {
            for scale in 1...3 {
                let image = store.image(named: picture, scale: scale)
                #expect(image?.scale == scale && image?.pack.metadata?.name == "driving-base", "\(picture) @\(scale)x")
            }
        }
    }

    @Test("English: Canadian words throughout, as the pack's glossary sets them")
    func canadianEnglish() throws {
        let packs = try Packs()
        let bank = try packs.bank(packs.english)
        // The glossary's third column: words the bank must never use (tyre, kerb, give way, ...).
        let glossary = try String(contentsOfFile: repositoryRoot + "/Packs/driving-en/GLOSSARY.md", encoding: .utf8)
        let rows = glossary.split(separator: "\n").filter { $0.hasPrefix("|") && !$0.contains("---") }.dropFirst()
        let never = rows.flatMap { row in
            row.split(separator: "|", omittingEmptySubsequences: false).dropFirst(3).first?
                .split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty } ?? []
        }
        #expect(never.count >= 30, "\(never.count) words to avoid")
        #expect(never.contains("tyre") && never.contains("give way"))

        var texts: [(String, String)] = []
        for category in bank.categories {
            texts.append((category.id, category.title))
            for lesson in category.lessons {
                texts += [(lesson.id, lesson.title), (lesson.id, lesson.intro)]
                for question in lesson.questions {
                    texts += [(question.id, question.prompt), (question.id, question.explanation)]
                    texts += question.choices.map { (question.id, $0.text) }
                }
            }
        }
        for word in never {
            let pattern = "(?<![\\w-])" + NSRegularExpression.escapedPattern(for: word) + "(?![\\w-])"
            let found = texts.filter { $0.1.range(of: pattern, options: [.regularExpression, .caseInsensitive]) != nil }
            #expect(found.isEmpty, "\"\(word)\" in \(found.map(\.0))")
        }
    }

    @Test("English: no cue-guessing: few yes/no questions, absolutes as likely in keys as in distractors, no filler that is never right")
    func noCueGuessing() throws {
        let packs = try Packs()
        let bank = try packs.bank(packs.english)
        func matches(_ text: String, _ pattern: String) -> Bool {
            text.range(of: pattern, options: [.regularExpression, .caseInsensitive]) != nil
        }

        // A yes/no question answers "May you ...?" with "Yes, ..." or "No; ..." ("No one", "No stopping"
        // open ordinary answers). At most 15 remain, and each offers two of each kind that differ in
        // their reason, so the key is never the one option that starts differently.
        func yesOrNo(_ text: String) -> String? {
            guard let range = text.range(of: "^(Yes|No)([,;:.]|$)", options: .regularExpression) else { return nil }
            return text[range].hasPrefix("Yes") ? "Yes" : "No"
        }
        let yesNo = bank.questions.filter { $0.choices.contains { yesOrNo($0.text) != nil } }
        #expect(yesNo.count <= 15, "\(yesNo.count) yes/no questions: \(yesNo.map(\.id))")
        for question in yesNo {
            let openings = question.choices.map { yesOrNo($0.text) }
            let yes = openings.filter { $0 == "Yes" }.count
            let no = openings.filter { $0 == "No" }.count
            #expect(yes == 2 && no == 2, "\(question.id): \(openings)")
        }
        // Nor is the key's own opening a cue: "No" was the answer in 43 of 55, and is now in about half.
        let keyedNo = yesNo.filter { question in question.choices.contains { $0.correct && yesOrNo($0.text) == "No" } }.count
        #expect(yesNo.isEmpty || (0.3...0.7).contains(Double(keyedNo) / Double(yesNo.count)), "No is the key in \(keyedNo) of \(yesNo.count)")

        // Absolutes (always, never, only, unless) must not mark a distractor, nor the key. One choice
        // in four is correct, so an honest bank has about 25% of its absolute-worded choices correct;
        // below 15% they point away from the key (the bank had 10.6%), above 40% they point to it.
        let choices = bank.questions.flatMap(\.choices)
        let absolute = choices.filter { matches($0.text, "\\b(always|never|only|unless)\\b") }
        let share = Double(absolute.filter(\.correct).count) / Double(absolute.count)
        #expect((0.15...0.40).contains(share), "\(absolute.filter(\.correct).count) of \(absolute.count) absolute-worded choices are correct")

        // A phrase offered often is sometimes the answer, or learners learn to strike it unread.
        for phrase in ["sound your horn", "hazard lights"] {
            let offered = choices.filter { matches($0.text, phrase) }
            if offered.count > 5 {
                let correct = offered.filter(\.correct).count
                #expect(correct >= 1, "\"\(phrase)\" is offered \(offered.count) times and never correct")
            }
        }
    }

    @Test(
        "a test-wise learner who learns which words go with right and wrong choices gets at most 38% of the other half right, in every language; no word in 10+ choices sits on one side only",
        arguments: ["en", "ru", "zh-Hans", "pa"])
    func testWiseLearner(locale: String) throws {
        let packs = try Packs()
        let pack = locale == "en" ? packs.english : try Pack(path: packs.scratch.packReal("driving-" + locale))
        let learner = TestWiseLearner(try packs.bank(pack))
        #expect(learner.score <= 0.38, "\(locale): the test-wise learner gets \(learner.score) right")
        #expect(learner.oneSidedWords.isEmpty, "\(locale): \(learner.oneSidedWords.map { "\($0.word) \($0.correct)/\($0.choices)" })")
    }

    @Test(
        "each translation holds every question with the English answer key and pictures, in its own script, with its glossary",
        arguments: [("ru", "\u{0400}"..."\u{04FF}"), ("zh-Hans", "\u{4E00}"..."\u{9FFF}"), ("pa", "\u{0A00}"..."\u{0A7F}")] as [(String, ClosedRange<Unicode.Scalar>)])
    func translation(locale: String, script: ClosedRange<Unicode.Scalar>) throws {
        let packs = try Packs()
        let pack = try Pack(path: packs.scratch.packReal("driving-" + locale))
        let bank = try packs.bank(pack)
        let english = try packs.bank(packs.english)
        #expect(bank.language == locale)
        #expect(pack.metadata?.locale == locale)
        #expect(bank.categories.map(\.id) == Self.categories)
        #expect(ContentValidator.compareTranslation(bank, reference: english).isEmpty)
        #expect(ContentValidator(content: pack, pictures: packs.base).validate().isEmpty)
        #expect(bank.categories.flatMap(\.lessons).map(\.id) == english.categories.flatMap(\.lessons).map(\.id))
        // A source names an English document (a manual's chapter, a section of an Act): it is cited
        // as it is, the same in every language.
        let sources = Dictionary(uniqueKeysWithValues: english.questions.map { ($0.id, $0.source) })
        for question in bank.questions {
            #expect(question.source == sources[question.id], "\(question.id)")
        }

        // A translation must not give the answer away either: a correct choice written out more
        // fully than the others is as much a giveaway in Punjabi as in English.
        let statistics = BankStatistics(bank)
        let longest = statistics.shareCorrectIsLongest
        #expect(statistics.yesNoQuestions.count <= 15, "\(locale): \(statistics.yesNoQuestions)")
        #expect(Double(statistics.oddOpenerQuestions.count) / Double(statistics.questions) <= 0.10, "\(locale): \(statistics.oddOpenerQuestions.count)")
        #expect(longest <= 0.35, "the correct choice is the longest in \(longest) of the questions")

        // Every text is written in the language's script (an English leftover is not).
        func written(_ text: String) -> Bool { text.unicodeScalars.contains { script.contains($0) } }
        for category in bank.categories {
            #expect(written(category.title), "\(category.id)")
            for lesson in category.lessons {
                #expect(written(lesson.title) && written(lesson.intro), "\(lesson.id)")
                for question in lesson.questions {
                    #expect(written(question.prompt) && written(question.explanation), "\(question.id)")
                    #expect(question.choices.allSatisfy { written($0.text) }, "\(question.id)")
                }
            }
        }

        // The glossary of the language's driving terms travels with its content.
        let glossary = try String(contentsOfFile: repositoryRoot + "/Packs/driving-\(locale)/GLOSSARY.md", encoding: .utf8)
        let rows = glossary.split(separator: "\n").filter { $0.hasPrefix("|") && !$0.contains("---") }
        #expect(rows.count >= 60, "\(rows.count) glossary rows")
    }

    @Test("the README's content table states each language's figures as packtool show --stats computes them", arguments: ["en", "ru", "zh-Hans", "pa"])
    func readmeFigures(locale: String) throws {
        let packs = try Packs()
        let pack = locale == "en" ? packs.english : try Pack(path: packs.scratch.packReal("driving-" + locale))
        let statistics = BankStatistics(try packs.bank(pack))
        let readme = try String(contentsOfFile: repositoryRoot + "/README.md", encoding: .utf8)
        let row = try #require(readme.split(separator: "\n").first { $0.hasPrefix("| `driving-\(locale)` (\(locale)) |") }, "no README row for \(locale)")
        func percent(_ share: Double) -> Int { Int((share * 100).rounded()) }
        let positions = (0..<4).map { String(percent(statistics.shareCorrect(at: $0))) }.joined(separator: "/")
        let stated =
            "\(statistics.questions) questions · positions \(positions)% · longest \(percent(statistics.shareCorrectIsLongest))% · "
            + "\(statistics.yesNoQuestions.count) yes/no · \(statistics.oddOpenerQuestions.count) odd openers · "
            + "test-wise \(percent(statistics.testWise.score))%"
        #expect(row.contains(stated), "the README's \(locale) row should say: \(stated)")
    }
}
