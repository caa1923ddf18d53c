import ArgumentParser
import AssetLibrary
import AssetPack
import StudyContent

/// The packs and locale options `resolve` and `show` share: a store made inspectable.
struct StoreOptions: ParsableArguments {
    @Option(name: .customLong("locale"), help: "The locale to look up with (BCP 47).")
    var locale: String

    @Option(help: "The development locale, the last fallback before base packs.")
    var developmentLocale: String = "en"

    @Option(name: .customLong("patch"), help: "A patch pack, over every other pack (repeatable).")
    var patches: [String] = []

    @Option(help: "The screen scale for pictures (1, 2, 3).")
    var scale: Int = 2

    @Option(help: "The device family for pictures: phone or pad.")
    var idiom: String = "phone"

    /// A store with base packs at priority 0, locale packs at 100 and patch packs at 200.
    func makeStore(packs: [String]) throws -> AssetStore {
        let store = try AssetStore(developmentLocale: developmentLocale)
        for path in packs {
            let pack = try store.mount(path: path, priority: 0)
            if pack.metadata?.locale != nil {
                store.unmount(pack)
                try store.mount(pack, priority: AssetStore.localePriority)
            }
        }
        for path in patches { try store.mount(path: path, priority: AssetStore.patchPriority) }
        try store.setLocale(locale)
        return store
    }

    func parsedIdiom() throws -> Idiom {
        guard let value = Idiom(rawValue: idiom == "phone" ? "iphone" : idiom == "pad" ? "ipad" : idiom) else {
            throw ValidationError("--idiom is phone or pad")
        }
        return value
    }
}

func describe(_ pack: Pack, priority: Int) -> String {
    let kind = priority >= AssetStore.patchPriority ? "patch pack" : pack.metadata?.locale.map { "locale \($0)" } ?? "base pack"
    return "\(pack.path) (\(pack.metadata?.name ?? "zip"), \(kind), priority \(priority))"
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
                """)

        @Argument(help: "The packs, then the path to look up (e.g. Images/duck.png).")
        var arguments: [String] = []

        @OptionGroup var store: StoreOptions

        func run() throws {
            guard arguments.count >= 2 else { throw ValidationError("give at least one pack and a path") }
            try reportingErrors {
                let path = arguments.last!
                let assets = try store.makeStore(packs: Array(arguments.dropLast()))
                try Output.line(chainLine(assets))
                if let image = assets.image(named: path, scale: store.scale, idiom: try store.parsedIdiom()) {
                    try Output.line("answer:          \(image.path)")
                    try Output.line("from:            \(describe(image.pack, priority: image.hit.priority))")
                    try Output.line("scale:           \(image.scale)" + (image.idiom.map { ", idiom \($0.rawValue)" } ?? ""))
                    try Output.line("size:            \(image.hit.entry.size) bytes")
                } else {
                    throw StoreError(.notFound, "no pack in the chain has it or a variant of it", subject: path)
                }
            }
        }
    }

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Summarize a deck or a question bank, decoded from the packs through the locale chain.",
            discussion: """
                KIND is deck or bank. With --item, shows that card or question in full, with the \
                picture variant chosen for --scale and --idiom. With --then-locale, swaps the \
                store's locale and shows it again.
                """)

        @Argument(help: "The packs, then KIND (deck or bank), then the deck's or bank's id.")
        var arguments: [String] = []

        @OptionGroup var store: StoreOptions

        @Option(help: "A card or question id to show in full.")
        var item: String?

        @Option(help: "After showing, switch the store to this locale and show again.")
        var thenLocale: String?

        func run() throws {
            guard arguments.count >= 3 else { throw ValidationError("give the packs, then deck or bank, then an id") }
            let kind = arguments[arguments.count - 2]
            guard kind == "deck" || kind == "bank" else { throw ValidationError("KIND is deck or bank, not \(kind)") }
            try reportingErrors {
                let assets = try store.makeStore(packs: Array(arguments.dropLast(2)))
                try show(kind: kind, id: arguments.last!, in: assets)
                if let thenLocale {
                    try assets.setLocale(thenLocale)
                    try Output.line("")
                    try Output.line("== swapped the locale to \(thenLocale)")
                    try show(kind: kind, id: arguments.last!, in: assets)
                }
            }
        }

        func show(kind: String, id: String, in assets: AssetStore) throws {
            let view = assets.currentView  // one snapshot for the whole deck or bank
            try Output.line(chainLine(assets))
            let idiom = try store.parsedIdiom()
            func picture(_ path: String?) throws {
                guard let path else { return }
                if let image = view.image(named: path, scale: store.scale, idiom: idiom) {
                    try Output.line(
                        "picture:         \(image.path) (scale \(image.scale)\(image.idiom.map { ", \($0.rawValue)" } ?? ""), "
                            + "from \(image.pack.path))")
                } else {
                    try Output.line("picture:         \(path) (missing)")
                }
            }
            if kind == "bank" {
                let bank = try QuestionBank.load(id: id, from: view)
                let answeredBy = view.lookup(QuestionBank.indexPath(of: id)).map { $0.pack.path } ?? "?"
                try Output.line("bank:            \(bank.id) \"\(bank.title)\" (\(bank.language ?? "no language")), from \(answeredBy)")
                let lessons = bank.categories.reduce(0) { $0 + $1.lessons.count }
                try Output.line("contents:        \(bank.categories.count) categories, \(lessons) lessons, \(bank.questions.count) questions")
                for category in bank.categories {
                    try Output.line(
                        "  " + category.id.padding(20) + " " + plural(category.questions.count, "question", "questions")
                            + "  " + category.title)
                }
                guard let (category, question) = item.map({ bank.question(id: $0) }) ?? bank.categories.first.flatMap({ c in c.questions.first.map { (c, $0) } })
                else {
                    if let item { throw StoreError(.notFound, "no such question in the bank", subject: item) }
                    return
                }
                try Output.line("question:        \(question.id) (\(category.title))")
                try Output.line("  " + question.prompt)
                for (index, choice) in question.choices.enumerated() {
                    try Output.line("  \(choice.correct ? "[x]" : "[ ]") \(index + 1). \(choice.text)")
                }
                try Output.line("  " + question.explanation)
                try picture(question.picture ?? category.picture)
            } else {
                let deck = try Deck.load(id: id, from: view)
                try Output.line("deck:            \(deck.id) \"\(deck.title)\", \(plural(deck.cards.count, "card", "cards"))")
                guard let card = item.map({ wanted in deck.cards.first { $0.id == wanted } }) ?? deck.cards.first else {
                    if let item { throw StoreError(.notFound, "no such card in the deck", subject: item) }
                    return
                }
                try Output.line("card:            \(card.id)")
                try Output.line("  front:          \(card.front)")
                try Output.line("  back:           \(card.back)")
                for (label, value) in [
                    ("kanji", card.kanji), ("kana", card.kana), ("romaji", card.romaji),
                    ("meanings", card.meanings.isEmpty ? nil : card.meanings.joined(separator: "; ")),
                    ("part of speech", card.partOfSpeech), ("mnemonic", card.mnemonic), ("notes", card.notes),
                ] {
                    if let value { try Output.line("  " + (label + ":").padding(16) + value) }
                }
                try picture(card.picture)
            }
        }
    }
}
