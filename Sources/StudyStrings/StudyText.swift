import AssetLibrary
import AssetPack
import Foundation

/// The study tool's words in the learner's language: its String Catalog, and the catalog
/// languages a lookup tries, most specific first.
///
/// The language is chosen as the bank's is (`--locale`, through ``LocaleFallback``, with the
/// catalog's source language last): `ru-RU` → `ru` → `en`, `zh-CN` → `zh-Hans` → `en`,
/// `pa-IN` → `pa` → `en`, `fr` → `en`. A key missing in a language is looked up in the next.
package struct StudyText: Sendable {
    /// The catalog.
    package let catalog: StringCatalog
    /// The catalog languages a lookup tries, most specific first; the source language last.
    package let languages: [String]

    /// The text of `catalog` for a learner whose locale is `locale` (BCP 47; `nil` or a tag that
    /// does not parse: the source language).
    package init(catalog: StringCatalog, locale: String?) {
        self.catalog = catalog
        self.languages = Self.languages(for: locale, in: catalog)
    }

    /// The study tool's own catalog (`Localizable.xcstrings`, a resource of this module) for
    /// `locale`.
    ///
    /// - Throws: ``StringCatalogError`` when the catalog is missing or not a String Catalog.
    package static func bundled(locale: String?) throws(StringCatalogError) -> StudyText {
        StudyText(catalog: try bundledCatalog(), locale: locale)
    }

    /// The study tool's own catalog, decoded.
    ///
    /// - Throws: ``StringCatalogError`` when the catalog is missing or not a String Catalog.
    package static func bundledCatalog() throws(StringCatalogError) -> StringCatalog {
        guard let url = Bundle.module.url(forResource: "Localizable", withExtension: "xcstrings") else {
            throw StringCatalogError(.unreadable, file: Bundle.module.bundlePath + "/Localizable.xcstrings", "not in the tool's resources")
        }
        return try StringCatalog(contentsOf: url)
    }

    /// The language the learner reads: the first of ``languages``.
    package var language: String { languages[0] }

    /// The text of `key` with `arguments` in its specifiers, in the first of ``languages`` that
    /// has it; the key itself when none has it (as Foundation does).
    package func callAsFunction(_ key: String, _ arguments: any CatalogArgumentConvertible...) -> String {
        string(key, arguments.map(\.catalogArgument))
    }

    /// The text of `key` with `arguments`, in the first of ``languages`` that has it; the key
    /// itself when none has it.
    package func string(_ key: String, _ arguments: [CatalogArgument]) -> String {
        guard let entry = catalog.strings[key] else { return key }
        for language in languages {
            guard let localization = entry.localizations[language] else { continue }
            if let text = Self.render(localization, language: language, arguments: arguments) { return text }
        }
        return key
    }

    /// `localization` with `arguments`: the plural variation of its first whole-number argument
    /// (or its one text), its substitutions expanded, its specifiers filled; `nil` when it has
    /// no text.
    package static func render(_ localization: StringCatalog.Localization, language: String, arguments: [CatalogArgument]) -> String? {
        let number = arguments.lazy.compactMap { if case .integer(let n) = $0 { n } else { nil } }.first ?? 0
        guard let template = text(of: localization, category: PluralRules.category(of: number, language: language)) else { return nil }
        return CatalogFormat.format(expand(template, localization.substitutions ?? [:], language: language) { argument in
            guard arguments.indices.contains(argument - 1), case .integer(let n) = arguments[argument - 1] else { return nil }
            return PluralRules.category(of: n, language: language)
        }, arguments)
    }

    /// Every text `localization` can show, one per plural category and per combination of its
    /// substitutions' categories, with the substitutions expanded (for checking a catalog; a
    /// substitution is chosen by its `argNum`).
    package static func variants(of localization: StringCatalog.Localization, language: String) -> [String] {
        let categories = PluralRules.categories(for: language) ?? [.other]
        var templates: [String] = []
        if let plural = localization.variations?.plural {
            templates = categories.compactMap { plural[$0.rawValue]?.stringUnit?.value }
        } else if let value = localization.stringUnit?.value {
            templates = [value]
        }
        let substitutions = localization.substitutions ?? [:]
        var combinations: [[Int: PluralCategory]] = [[:]]
        for argument in Set(substitutions.values.compactMap(\.argNum)).sorted() {
            combinations = combinations.flatMap { combination in
                categories.map { category in combination.merging([argument: category]) { $1 } }
            }
        }
        return templates.flatMap { template in
            combinations.map { combination in expand(template, substitutions, language: language) { combination[$0] } }
        }
    }

    /// The text of `localization` for `category`: its plural variation (or `other`), or its one
    /// text.
    private static func text(of localization: StringCatalog.Localization, category: PluralCategory) -> String? {
        if let plural = localization.variations?.plural {
            return (plural[category.rawValue] ?? plural[PluralCategory.other.rawValue])?.stringUnit?.value
        }
        return localization.stringUnit?.value
    }

    /// `template` with each `%#@name@` replaced by its substitution's variation for the category
    /// `category(argument)` gives (`other` when it gives none), `%arg` in it becoming the
    /// positional specifier of the substitution's argument. Every other specifier is made
    /// positional, so that the argument each takes does not move.
    private static func expand(
        _ template: String, _ substitutions: [String: StringCatalog.Substitution], language: String,
        category: (Int) -> PluralCategory?
    ) -> String {
        var out = ""
        var next = 1
        for token in CatalogFormat.tokens(template) {
            switch token {
            case .literal(let text): out += text
            case .percent: out += "%%"
            case .argument(let position, _, let conversion):
                out += "%\(position ?? next)$" + conversion
                if position == nil { next += 1 }
            case .substitution(let position, let name):
                let argument = substitutions[name]?.argNum ?? position ?? next
                if position == nil { next += 1 }
                guard let substitution = substitutions[name], let plural = substitution.variations.plural,
                    let chosen = (plural[(category(argument) ?? .other).rawValue] ?? plural[PluralCategory.other.rawValue])?.stringUnit?.value
                else {
                    out += "%" + (position.map { "\($0)$" } ?? "") + "#@" + name + "@"
                    continue
                }
                out += chosen.replacingOccurrences(of: "%arg", with: "%\(argument)$" + substitution.formatSpecifier)
            }
        }
        return out
    }

    /// The catalog languages for `locale`: its fallback chain (the one the packs' store uses),
    /// keeping the languages the catalog has, then the source language.
    private static func languages(for locale: String?, in catalog: StringCatalog) -> [String] {
        let source = (try? LocaleTag(catalog.sourceLanguage)) ?? LocaleTag(language: "en")
        let requested = locale.flatMap { try? LocaleTag($0) } ?? source
        let available = catalog.languages.compactMap { name in (try? LocaleTag(name)).map { (name: name, tag: $0) } }
        var languages: [String] = []
        for tag in LocaleFallback.chain(for: requested, development: source, available: available.map(\.tag)) {
            for language in available where language.tag.sameLocale(as: tag) && !languages.contains(language.name) {
                languages.append(language.name)
            }
        }
        if !languages.contains(catalog.sourceLanguage) { languages.append(catalog.sourceLanguage) }
        return languages
    }
}
