import ArgumentParser
import AssetLibrary
import AssetPack
import StudyContent

extension Idiom: ExpressibleByArgument {}

/// The packs and locale options `resolve` and `show` share: a store made inspectable.
struct StoreOptions: ParsableArguments {
    @Option(
        name: .customLong("locale"),
        help: "The locale to look up with (BCP 47; default: the development locale).",
        transform: { text throws in try parsedTag(text, option: "--locale") })
    var locale: LocaleTag?

    @Option(
        help: "The development locale, the last fallback before base packs.",
        transform: { text throws in try parsedTag(text, option: "--development-locale") })
    var developmentLocale = LocaleTag(language: "en")

    @Option(name: .customLong("patch"), help: "A patch pack, over every other pack (repeatable).")
    var patches: [String] = []

    @Option(help: "The screen scale for pictures: 1, 2 or 3.")
    var scale: Int = 2

    @Option(help: "The device family for pictures: \(Idiom.allCases.map(\.rawValue).joined(separator: " or ")).")
    var idiom: Idiom = .phone

    func validate() throws {
        guard (1...3).contains(scale) else { throw ValidationError("--scale is 1, 2 or 3, not \(scale)") }
    }

    /// A store of `packs`: each at the priority its index implies (locale packs over base packs),
    /// `--patch` packs over all. A pack given twice is an error naming it.
    func makeStore(packs: [String]) throws -> AssetStore {
        let store = AssetStore(developmentLocale: developmentLocale)
        var seen: [FileIdentity: String] = [:]
        for (path, priority) in packs.map({ ($0, MountPriority?.none) }) + patches.map({ ($0, MountPriority.patch) }) {
            let pack = try store.mount(path: path, priority: priority)
            if let first = seen.updateValue(path, forKey: pack.fileIdentity) {
                throw PackError(.invalidArgument, "the same pack is also given as \(first)", at: .file(path))
            }
        }
        if let locale { try store.setLocale(locale.description) }
        return store
    }
}

/// Parses a locale option; a malformed tag is a usage error saying why.
private func parsedTag(_ text: String, option: String) throws -> LocaleTag {
    do {
        return try LocaleTag.parse(text)
    } catch {
        throw ValidationError(error.reason)
    }
}

func describe(_ pack: Pack, priority: MountPriority) -> String {
    let kind = priority >= .patch ? "patch pack" : pack.metadata?.locale.map { "locale \($0)" } ?? "base pack"
    return "\(pack.path) (\(pack.metadata?.name ?? "zip"), \(kind), priority \(priority.rawValue))"
}

func chainLine(_ store: AssetStore) -> String {
    "locale chain:    " + store.localeChain.map(\.description).joined(separator: " → ") + " → base packs"
}

extension PackTool {
    struct Resolve: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show which pack and entry answer a lookup, at what scale.",
            discussion: """
                Mounts the packs as a store (base packs, locale packs over them, --patch packs over \
                all), sets --locale and looks PATH up. For a picture it picks the variant for \
                --scale and --idiom (@3x~ipad, @3x, the nearest larger scale, then smaller ones).
                With --json, one object: {"chain": [tags], "path", "answer" (the entry chosen), \
                "pack", "packName", "priority", "scale", "idiom" (or null), "size"}.
                """)

        @Argument(help: "The packs, then the path to look up (e.g. Images/duck.png).")
        var arguments: [String] = []

        @OptionGroup var store: StoreOptions

        @Flag(help: "Print one JSON object (the fields are in the discussion above).")
        var json = false

        func validate() throws {
            guard arguments.count >= 2 else { throw ValidationError("give at least one pack, then a path") }
        }

        func run() throws {
            try reportingErrors {
                let path = arguments[arguments.count - 1]
                let assets = try store.makeStore(packs: Array(arguments.dropLast()))
                guard let image = assets.image(named: path, scale: store.scale, idiom: store.idiom) else {
                    throw StoreError(.notFound, "no pack in the chain has it or a variant of it", at: .item(path))
                }
                if json {
                    try Output.json(
                        .object([
                            ("chain", .array(assets.localeChain.map { .string($0.description) })), ("path", .string(path)),
                            ("answer", .string(image.path)), ("pack", .string(image.pack.path)),
                            ("packName", .optional(image.pack.metadata?.name)), ("priority", .number(image.hit.priority.rawValue)),
                            ("scale", .number(image.scale)), ("idiom", .optional(image.idiom?.rawValue)),
                            ("size", .unsigned(image.hit.entry.size)),
                        ]))
                    return
                }
                try Output.line(chainLine(assets))
                try Output.line("answer:          \(image.path)")
                try Output.line("from:            \(describe(image.pack, priority: image.hit.priority))")
                try Output.line("scale:           \(image.scale)" + (image.idiom.map { ", idiom \($0.rawValue)" } ?? ""))
                try Output.line("size:            \(image.hit.entry.size) bytes")
            }
        }
    }

    struct Show: ParsableCommand {
        /// What `show` decodes.
        enum Kind: String, ExpressibleByArgument, CaseIterable {
            case deck
            case bank
        }

        static let configuration = CommandConfiguration(
            abstract: "Summarize a deck or a question bank, decoded from the packs through the locale chain.",
            discussion: """
                KIND is deck or bank. With --item, shows that card or question in full, with the \
                picture variant chosen for --scale and --idiom. With --then-locale, swaps the \
                store's locale and shows it again. With --stats (banks): questions per category \
                and lesson, choices per question, where the correct choice sits and how often it \
                is the longest (and, per category of 20 or more, where it sits), the test-wise \
                learner's score and the words that sit on one side only, questions without a \
                source, pictures used and missing.
                With --json, one object per locale shown: {"chain", "kind", "id", "title", \
                "language", "from" (the pack that answered), "categories": [{"id", "title", \
                "lessons", "questions"}] or "cards", "item" (the card or question shown), and with \
                --stats "stats": {"questions", "choiceCounts" (choices → questions), \
                "correctPositions" (the correct choice's number, from 1 as printed → questions), \
                "correctIsLongest", "testWise": {"score", "oneSidedWords"}, "withoutSource", "pictures", \
                "missingPictures", "categories"}}.
                """)

        @Argument(help: "The packs, then KIND (deck or bank), then the deck's or bank's id.")
        var arguments: [String] = []

        @OptionGroup var store: StoreOptions

        @Option(help: "A card or question id to show in full.")
        var item: String?

        @Option(
            help: "After showing, switch the store to this locale and show again.",
            transform: { text throws in try parsedTag(text, option: "--then-locale") })
        var thenLocale: LocaleTag?

        @Flag(help: "Also show the bank's figures (banks only).")
        var stats = false

        @Flag(help: "Print JSON objects (the fields are in the discussion above).")
        var json = false

        /// KIND, the argument before the id.
        var kind: Kind { Kind(rawValue: arguments[arguments.count - 2]) ?? .bank }

        func validate() throws {
            guard arguments.count >= 3 else { throw ValidationError("give the packs, then deck or bank, then an id") }
            let kind = arguments[arguments.count - 2]
            guard Kind(rawValue: kind) != nil else { throw ValidationError("KIND is deck or bank, not \(kind)") }
            if stats, self.kind == .deck { throw ValidationError("--stats is for banks") }
        }

        func run() throws {
            try reportingErrors {
                let assets = try store.makeStore(packs: Array(arguments.dropLast(2)))
                let id = arguments[arguments.count - 1]
                try show(id: id, in: assets)
                if let thenLocale {
                    try assets.setLocale(thenLocale.description)
                    if !json {
                        try Output.line("")
                        try Output.line("== swapped the locale to \(thenLocale)")
                    }
                    try show(id: id, in: assets)
                }
            }
        }

        func show(id: String, in assets: AssetStore) throws {
            let view = assets.currentView  // one snapshot for the whole deck or bank
            var lines = [chainLine(assets)]
            var object: [(String, JSON)] = [
                ("chain", .array(view.chain.map { .string($0.description) })), ("kind", .string(kind.rawValue)),
                ("id", .string(id)),
            ]
            func picture(_ path: String?) -> JSON {
                guard let path else { return .null }
                guard let image = view.image(named: path, scale: store.scale, idiom: store.idiom) else {
                    lines.append("picture:         \(path) (missing)")
                    return .object([("path", .string(path)), ("missing", .bool(true))])
                }
                lines.append(
                    "picture:         \(image.path) (scale \(image.scale)\(image.idiom.map { ", \($0.rawValue)" } ?? ""), "
                        + "from \(image.pack.path))")
                return .object([
                    ("path", .string(path)), ("answer", .string(image.path)), ("scale", .number(image.scale)),
                    ("pack", .string(image.pack.path)),
                ])
            }
            switch kind {
            case .bank:
                let bank = try QuestionBank.load(id: id, from: view)
                let answeredBy = view.lookup(QuestionBank.indexPath(of: id)).map { $0.pack.path } ?? "?"
                lines.append("bank:            \(bank.id) \"\(bank.title)\" (\(bank.language ?? "no language")), from \(answeredBy)")
                let lessons = bank.categories.reduce(0) { $0 + $1.lessons.count }
                lines.append("contents:        \(bank.categories.count) categories, \(lessons) lessons, \(bank.questions.count) questions")
                for category in bank.categories {
                    lines.append(
                        "  " + category.id.padding(20) + " " + plural(category.questions.count, "question", "questions")
                            + "  " + category.title)
                }
                object += [
                    ("title", .string(bank.title)), ("language", .optional(bank.language)), ("from", .string(answeredBy)),
                    ("categories", .array(bank.categories.map { category in
                        .object([
                            ("id", .string(category.id)), ("title", .string(category.title)),
                            ("lessons", .number(category.lessons.count)), ("questions", .number(category.questions.count)),
                        ])
                    })),
                ]
                if stats {
                    let figures = BankStatistics(bank, pictures: view)
                    lines += statisticsLines(figures)
                    object.append(("stats", statisticsJSON(figures)))
                }
                let shown = item.map { bank.question(id: $0) }
                    ?? bank.categories.first.flatMap { category in category.questions.first.map { (category, $0) } }
                if let item, shown == nil { throw StoreError(.notFound, "no such question in the bank", at: .item(item)) }
                if let (category, question) = shown {
                    lines.append("question:        \(question.id) (\(category.title))")
                    lines.append("  " + question.prompt)
                    for (index, choice) in question.choices.enumerated() {
                        lines.append("  \(choice.correct ? "[x]" : "[ ]") \(index + 1). \(choice.text)")
                    }
                    lines.append("  " + question.explanation)
                    if let source = question.source { lines.append("  source: " + source) }
                    let shownPicture = picture(question.picture ?? category.picture)
                    object.append(
                        ("item", .object([
                            ("id", .string(question.id)), ("category", .string(category.id)), ("prompt", .string(question.prompt)),
                            ("choices", .array(question.choices.map { .object([("text", .string($0.text)), ("correct", .bool($0.correct))]) })),
                            ("explanation", .string(question.explanation)), ("source", .optional(question.source)),
                            ("picture", shownPicture),
                        ])))
                }
            case .deck:
                let deck = try Deck.load(id: id, from: view)
                lines.append("deck:            \(deck.id) \"\(deck.title)\", \(plural(deck.cards.count, "card", "cards"))")
                object += [("title", .string(deck.title)), ("language", .optional(deck.language)), ("cards", .number(deck.cards.count))]
                let card = item.map { wanted in deck.cards.first { $0.id == wanted } } ?? deck.cards.first
                if let item, card == nil { throw StoreError(.notFound, "no such card in the deck", at: .item(item)) }
                if let card {
                    lines.append("card:            \(card.id)")
                    lines.append("  front:          \(card.front)")
                    lines.append("  back:           \(card.back)")
                    let fields: [(String, String, String?)] = [
                        ("kanji", "kanji", card.kanji), ("kana", "kana", card.kana), ("romaji", "romaji", card.romaji),
                        ("meanings", "meanings", card.meanings.isEmpty ? nil : card.meanings.joined(separator: "; ")),
                        ("part of speech", "partOfSpeech", card.partOfSpeech), ("mnemonic", "mnemonic", card.mnemonic),
                        ("notes", "notes", card.notes),
                    ]
                    for (label, _, value) in fields {
                        if let value { lines.append("  " + (label + ":").padding(16) + value) }
                    }
                    let shownPicture = picture(card.picture)
                    object.append(
                        ("item", .object(
                            [("id", .string(card.id)), ("front", .string(card.front)), ("back", .string(card.back))]
                                + fields.map { ($0.1, .optional($0.2)) } + [("picture", shownPicture)])))
                }
            }
            if json {
                try Output.json(.object(object))
            } else {
                for line in lines { try Output.line(line) }
            }
        }

        func statisticsLines(_ figures: BankStatistics) -> [String] {
            func percent(_ share: Double) -> String { String(Int((share * 100).rounded())) + "%" }
            var lines = ["statistics:"]
            for category in figures.categories {
                lines.append(
                    "  " + category.id.padding(20) + " " + plural(category.lessons.count, "lesson", "lessons") + ": "
                        + category.lessons.map { String($0.questions) }.joined(separator: ", "))
            }
            lines.append(
                "  choices:           "
                    + figures.choiceCounts.keys.sorted().map { "\(figures.choiceCounts[$0] ?? 0) with \($0)" }.joined(separator: ", "))
            lines.append(
                "  correct position:  "
                    + figures.correctPositions.keys.sorted().map { "\($0 + 1): \(percent(figures.shareCorrect(at: $0)))" }
                    .joined(separator: ", "))
            for category in figures.categories where category.questions >= 20 {
                let shares = (0..<4).map { percent(category.shareCorrect(at: $0)) }.joined(separator: "/")
                lines.append("    " + category.id.padding(18) + " correct at 1/2/3/4: " + shares)
            }
            lines.append("  correct longest:   \(figures.correctIsLongest) (\(percent(figures.shareCorrectIsLongest)))")
            lines.append(
                "  yes/no questions:  \(figures.yesNoQuestions.count)"
                    + (figures.yesNoQuestions.isEmpty ? "" : " (" + figures.yesNoQuestions.prefix(10).joined(separator: ", ") + ")"))
            lines.append(
                "  odd opener:        \(figures.oddOpenerQuestions.count) (the correct choice alone starts differently)")
            let giveaways = figures.giveawayWords()
            lines.append(
                "  giveaway words:    \(giveaways.count) of \(figures.recurringWords.count) words in \(BankStatistics.recurringWordThreshold)+ choices"
                    + (giveaways.isEmpty ? "" : ", correct in: "
                        + giveaways.prefix(12).map { "\($0.word) \($0.correct)/\($0.choices)" }.joined(separator: ", ")))
            let oneSided = figures.testWise.oneSidedWords
            lines.append(
                "  test-wise learner: \(percent(figures.testWise.score)) right (word log-odds learnt on half the questions, scored on the other; chance 25%)")
            lines.append(
                "  one-sided words:   \(oneSided.count) in \(TestWiseLearner.oneSidedThreshold)+ choices, always or never correct"
                    + (oneSided.isEmpty ? "" : ": " + oneSided.prefix(12).map { "\($0.word) \($0.correct)/\($0.choices)" }.joined(separator: ", ")))
            lines.append(
                "  without source:    \(figures.withoutSource.count)"
                    + (figures.withoutSource.isEmpty ? "" : " (" + figures.withoutSource.prefix(10).joined(separator: ", ") + ")"))
            lines.append("  pictures:          \(figures.pictures.count) used, \(figures.missingPictures.count) missing")
            for missing in figures.missingPictures { lines.append("    missing: " + missing) }
            return lines
        }

        func statisticsJSON(_ figures: BankStatistics) -> JSON {
            func counts(_ table: [Int: Int], from first: Int = 0) -> JSON {
                .object(table.keys.sorted().map { (String($0 + first), .number(table[$0] ?? 0)) })
            }
            return .object([
                ("questions", .number(figures.questions)), ("choiceCounts", counts(figures.choiceCounts)),
                ("correctPositions", counts(figures.correctPositions, from: 1)), ("correctIsLongest", .number(figures.correctIsLongest)),
                ("yesNoQuestions", .array(figures.yesNoQuestions.map(JSON.string))),
                ("oddOpenerQuestions", .array(figures.oddOpenerQuestions.map(JSON.string))),
                ("recurringWords", .array(figures.recurringWords.map { word in
                    .object([("word", .string(word.word)), ("choices", .number(word.choices)), ("correct", .number(word.correct))])
                })),
                ("testWise", .object([
                    ("score", .double(figures.testWise.score)),
                    ("oneSidedWords", .array(figures.testWise.oneSidedWords.map { word in
                        .object([("word", .string(word.word)), ("choices", .number(word.choices)), ("correct", .number(word.correct))])
                    })),
                ])),
                ("withoutSource", .array(figures.withoutSource.map(JSON.string))),
                ("pictures", .array(figures.pictures.map(JSON.string))),
                ("missingPictures", .array(figures.missingPictures.map(JSON.string))),
                ("categories", .array(figures.categories.map { category in
                    .object([
                        ("id", .string(category.id)), ("questions", .number(category.questions)),
                        ("lessons", .array(category.lessons.map { .object([("id", .string($0.id)), ("questions", .number($0.questions))]) })),
                    ])
                })),
            ])
        }
    }
}
