// The study tool's String Catalog: every key in every language, with the plural forms and
// placeholders each needs; CLDR's plural rules; the catalog reader and its format specifiers.
import Foundation
import StudyStrings
import Testing
import TestSupport

@Suite("The study tool's words: a String Catalog in en, ru, zh-Hans and pa")
struct StudyStringsTests {
    static let languages = ["en", "pa", "ru", "zh-Hans"]

    static func catalog() throws -> StringCatalog { try StudyText.bundledCatalog() }

    // MARK: - The catalog

    @Test("every key has translated text in every language, and no language is extra")
    func everyKeyInEveryLanguage() throws {
        let catalog = try Self.catalog()
        #expect(catalog.sourceLanguage == "en")
        #expect(catalog.languages.sorted() == Self.languages)
        #expect(catalog.strings.count >= 40, "\(catalog.strings.count) keys")
        for (key, entry) in catalog.strings.sorted(by: { $0.key < $1.key }) {
            #expect(entry.comment?.isEmpty == false, "\(key): no comment for translators")
            #expect(entry.localizations.keys.sorted() == Self.languages, "\(key)")
            for (language, localization) in entry.localizations {
                let units = [localization.stringUnit].compactMap { $0 }
                    + (localization.variations?.plural ?? [:]).values.compactMap(\.stringUnit)
                    + (localization.substitutions ?? [:]).values.flatMap { ($0.variations.plural ?? [:]).values.compactMap(\.stringUnit) }
                #expect(!units.isEmpty, "\(key)/\(language): no text")
                for unit in units {
                    #expect(unit.state == "translated", "\(key)/\(language): \(unit.state)")
                    #expect(!unit.value.trimmingCharacters(in: .whitespaces).isEmpty, "\(key)/\(language): empty text")
                }
            }
        }
    }

    @Test("a text that varies with a number has every plural form its language needs, in every language that has more than one")
    func pluralFormsPerLanguage() throws {
        let catalog = try Self.catalog()
        for (key, entry) in catalog.strings.sorted(by: { $0.key < $1.key }) {
            var varies: [String: Bool] = [:]
            for (language, localization) in entry.localizations {
                let needed = try #require(PluralRules.categories(for: language), "\(language): no CLDR rules").map(\.rawValue)
                var plurals: [(String, [String: StringCatalog.Variant])] = []
                if let plural = localization.variations?.plural { plurals.append(("", plural)) }
                for (name, substitution) in localization.substitutions ?? [:] {
                    #expect(substitution.argNum != nil, "\(key)/\(language): substitution \(name) without argNum")
                    #expect(substitution.formatSpecifier == "lld", "\(key)/\(language): substitution \(name)")
                    #expect(localization.stringUnit?.value.contains("#@\(name)@") == true, "\(key)/\(language): \(name) is not used")
                    plurals.append((name, substitution.variations.plural ?? [:]))
                }
                for (name, plural) in plurals {
                    let categories = plural.keys.compactMap(PluralCategory.init(rawValue:)).sorted().map(\.rawValue)
                    #expect(categories == needed && categories.count == plural.count, "\(key)/\(language) \(name): \(plural.keys.sorted())")
                }
                varies[language] = !plurals.isEmpty
            }
            // Where one language varies, every language with more than one form must.
            if varies.values.contains(true) {
                for language in Self.languages where (PluralRules.categories(for: language)?.count ?? 1) > 1 {
                    #expect(varies[language] == true, "\(key)/\(language) does not vary with its number")
                }
            }
        }
    }

    @Test("every form of every language takes the same arguments as English, of the same kinds; two or more are numbered")
    func placeholdersMatch() throws {
        let catalog = try Self.catalog()
        for (key, entry) in catalog.strings.sorted(by: { $0.key < $1.key }) {
            let english = try #require(entry.localizations["en"])
            let reference = CatalogFormat.references(try #require(StudyText.variants(of: english, language: "en").first))
            for (language, localization) in entry.localizations {
                let variants = StudyText.variants(of: localization, language: language)
                #expect(!variants.isEmpty, "\(key)/\(language)")
                for variant in variants {
                    #expect(CatalogFormat.references(variant) == reference, "\(key)/\(language): \"\(variant)\"")
                    #expect(!variant.contains("#@") && !variant.contains("%arg"), "\(key)/\(language): \"\(variant)\" left a substitution")
                }
                // Numbered specifiers only, so a translation can reorder them.
                if reference.count > 1 {
                    let raw = [localization.stringUnit?.value].compactMap { $0 } + (localization.variations?.plural ?? [:]).values.compactMap(\.stringUnit?.value)
                    for text in raw {
                        for token in CatalogFormat.tokens(text) {
                            switch token {
                            case .argument(let position, _, _), .substitution(let position, _):
                                #expect(position != nil, "\(key)/\(language): \"\(text)\" has an unnumbered specifier")
                            case .literal, .percent: break
                            }
                        }
                    }
                }
            }
        }
    }

    @Test("the catalog is the JSON Xcode writes: two-space indents, \" : \", keys sorted, a final newline")
    func writtenAsXcodeWritesIt() throws {
        let text = try String(contentsOfFile: Repository.path("Sources/StudyStrings/Localizable.xcstrings"), encoding: .utf8)
        let object = try JSONSerialization.jsonObject(with: Data(text.utf8))
        let rewritten = try JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
        // Foundation writes `"key" : value` with two-space indents, as Xcode does.
        #expect(String(decoding: rewritten, as: UTF8.self) + "\n" == text)
    }

    // MARK: - CLDR's plural rules

    /// CLDR's example numbers for whole numbers (`common/supplemental/plurals.xml`, the
    /// `@integer` samples), by language and category.
    static let cldrExamples: [(String, [PluralCategory: [Int]])] = [
        ("en", [.one: [1], .other: [0] + Array(2...16) + [100, 1000, 10000, 100000, 1_000_000]]),
        (
            "ru",
            [
                .one: [1, 21, 31, 41, 51, 61, 71, 81, 101, 1001],
                .few: Array(2...4) + Array(22...24) + Array(32...34) + Array(42...44) + Array(52...54) + [62, 102, 1002],
                .many: [0] + Array(5...19) + [100, 1000, 10000, 100000, 1_000_000],
            ]
        ),
        ("pa", [.one: [0, 1], .other: Array(2...17) + [100, 1000, 10000, 100000, 1_000_000]]),
        ("zh-Hans", [.other: Array(0...15) + [100, 1000, 10000, 100000, 1_000_000]]),
    ]

    @Test("the plural rules give CLDR's category for each of CLDR's example numbers", arguments: cldrExamples)
    func pluralRulesMatchCLDR(language: String, examples: [PluralCategory: [Int]]) {
        for (category, numbers) in examples {
            for number in numbers {
                #expect(PluralRules.category(of: number, language: language) == category, "\(language) \(number)")
            }
        }
    }

    @Test("Russian beyond the examples: 11–14 and 111–114 are many, 1 000 001 one, 22 few; a negative number counts as its size")
    func russianEdges() {
        let rule = { (n: Int) in PluralRules.category(of: n, language: "ru-RU") }
        #expect([11, 12, 13, 14, 111, 112, 113, 114, 211].map(rule) == Array(repeating: .many, count: 9))
        #expect(rule(1_000_001) == .one && rule(22) == .few && rule(25) == .many && rule(-21) == .one)
        #expect(PluralRules.categories(for: "ru") == [.one, .few, .many, .other])
        #expect(PluralRules.categories(for: "zh-Hans") == [.other] && PluralRules.categories(for: "pa-Guru-IN") == [.one, .other])
        #expect(PluralRules.categories(for: "xx") == nil && PluralRules.category(of: 1, language: "xx") == .other)
    }

    // MARK: - Reading and formatting

    @Test("a learner's locale falls back as the packs do: ru-RU → ru → en, zh-CN → zh-Hans, pa-IN → pa; others to en", arguments: [
        ("ru-RU", ["ru", "en"]), ("ru", ["ru", "en"]), ("zh-CN", ["zh-Hans", "en"]), ("zh", ["zh-Hans", "en"]), ("zh-Hans-SG", ["zh-Hans", "en"]),
        ("zh-TW", ["en"]), ("pa-IN", ["pa", "en"]), ("pa-Guru", ["pa", "en"]), ("pa-PK", ["en"]), ("fr-CA", ["en"]), ("en-GB", ["en"]),
        ("not a tag", ["en"]),
    ])
    func languageChain(locale: String, languages: [String]) throws {
        #expect(StudyText(catalog: try Self.catalog(), locale: locale).languages == languages)
    }

    @Test("time phrases and summaries take the plural form of their number", arguments: [
        ("ru", "time.minutes", [1], "через 1 минуту"), ("ru", "time.minutes", [6], "через 6 минут"), ("ru", "time.minutes", [22], "через 22 минуты"),
        ("ru", "time.hours", [3], "через 3 часа"), ("ru", "time.hours", [11], "через 11 часов"), ("ru", "time.days", [1], "через 1 день"),
        ("ru", "time.days", [3], "через 3 дня"), ("ru", "time.days", [21], "через 21 день"), ("ru", "time.days", [12], "через 12 дней"),
        ("ru", "done.summary", [4, 1, 3, 0], "Готово: 4 ответа (1 повторение, 3 новых), верно с первой попытки: 0"),
        ("ru", "done.summary", [21, 5, 16, 11], "Готово: 21 ответ (5 повторений, 16 новых), верно с первой попытки: 11"),
        ("ru", "stats.streak", [2], " · серия: 2 дня подряд"),
        ("en", "done.summary", [6, 3, 3, 6], "Done: 6 answered (3 reviews, 3 new), 6 right first time"),
        ("en", "done.summary", [4, 1, 3, 0], "Done: 4 answered (1 review, 3 new), 0 right first time"),
        ("en", "stats.retention", [85, 20], "retention, last 30 days: 85% of 20 reviews"), ("en", "time.minutes", [6], "in 6 min"),
        ("zh-Hans", "time.days", [2], "2 天后"), ("pa", "time.days", [1], "1 ਦਿਨ ਬਾਅਦ"), ("pa", "time.days", [0], "0 ਦਿਨ ਬਾਅਦ"),
        ("pa", "time.days", [2], "2 ਦਿਨਾਂ ਬਾਅਦ"), ("pa", "done.summary", [1, 0, 1, 1], "ਹੋ ਗਿਆ: 1 ਜਵਾਬ ਦਿੱਤਾ (0 ਦੁਹਰਾਈ, 1 ਨਵਾਂ), 1 ਪਹਿਲੀ ਕੋਸ਼ਿਸ਼ ਵਿੱਚ ਸਹੀ"),
    ])
    func pluralText(language: String, key: String, numbers: [Int], expected: String) throws {
        let text = StudyText(catalog: try Self.catalog(), locale: language)
        #expect(text.string(key, numbers.map(CatalogArgument.integer)) == expected)
    }

    @Test("specifiers: numbered ones reorder, %% is a percent sign, a missing argument stays as written, a key no language has is itself")
    func formatting() throws {
        // An unnumbered specifier takes the next argument in turn, whatever the numbered ones took.
        #expect(CatalogFormat.format("%2$@ · %1$lld%% · %@", [.integer(5), .text("b")]) == "b · 5% · 5")
        #expect(CatalogFormat.format("%lld and %3$@", [.integer(1)]) == "1 and %3$@")
        #expect(CatalogFormat.format("100% sure, %q", []) == "100% sure, %q")
        #expect(CatalogFormat.references("%1$@ %2$#@n@ %3$lld %%") == [1: .text, 3: .integer])
        let text = StudyText(catalog: try Self.catalog(), locale: "ru")
        #expect(text("no.such.key", 3) == "no.such.key")
        #expect(text("feedback.notQuite", "Потому что.") == "✗ Не совсем так. Потому что.")
    }

    @Test("a catalog that is not one, or names a plural category CLDR does not have, is refused with the key and language")
    func malformedCatalogs() {
        #expect(throws: StringCatalogError(.malformed, file: "x.xcstrings", "The given data was not valid JSON.")) {
            try StringCatalog(data: Data("not json".utf8), file: "x.xcstrings")
        }
        let several = #"{"sourceLanguage": "en", "strings": {"k": {"localizations": {"ru": {"variations": {"plural": {"several": {"stringUnit": {"state": "translated", "value": "x"}}}}}}}}}"#
        #expect(throws: StringCatalogError(.malformed, key: "k", language: "ru", "no plural category 'several'")) {
            try StringCatalog(data: Data(several.utf8))
        }
        #expect(throws: StringCatalogError(.malformed, "no 'sourceLanguage'")) { try StringCatalog(data: Data(#"{"strings": {}}"#.utf8)) }
        #expect(StringCatalogError(.malformed, file: "L.xcstrings", key: "k", language: "ru", "why").description == "L.xcstrings: k/ru: malformed: why")
    }
}
