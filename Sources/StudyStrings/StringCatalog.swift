import Foundation

/// An Xcode String Catalog (`Localizable.xcstrings`): every key's text in every language, read
/// from the catalog's own JSON.
///
/// Xcode compiles a catalog into `.strings` and `.stringsdict` files that Foundation reads on
/// Apple platforms; Foundation on Linux does neither, so the study tool reads the catalog itself
/// with the same meaning: a key's `localizations` map a language to a `stringUnit` (`state`,
/// `value`), to `variations.plural` (`zero`, `one`, `two`, `few`, `many`, `other`, each with its
/// `stringUnit`), and to `substitutions` that a value names as `%#@name@` (each with `argNum`,
/// `formatSpecifier` and its own plural variations, where `%arg` is the number). Device
/// variations and other keys Xcode writes are ignored.
package struct StringCatalog: Sendable, Decodable {
    /// The language the keys were written in (`en`): the last fallback of every lookup.
    package var sourceLanguage: String
    /// The format's version (`1.0`), as Xcode writes it.
    package var version: String?
    /// The keys and their localizations.
    package var strings: [String: Entry]

    /// One key: its comment for translators and its text per language.
    package struct Entry: Sendable, Decodable, Equatable {
        /// What the text is for, for translators.
        package var comment: String?
        /// `manual` for a key added by hand (as these are), `extracted_with_value` … for Xcode's.
        package var extractionState: String?
        /// The text per language (`en`, `ru`, `zh-Hans`, `pa`).
        package var localizations: [String: Localization]

        private enum CodingKeys: String, CodingKey { case comment, extractionState, localizations }

        /// Decodes an entry; a key with no localizations yet has none.
        package init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            comment = try container.decodeIfPresent(String.self, forKey: .comment)
            extractionState = try container.decodeIfPresent(String.self, forKey: .extractionState)
            localizations = try container.decodeIfPresent([String: Localization].self, forKey: .localizations) ?? [:]
        }
    }

    /// A key's text in one language: one string, or one per plural category, and the
    /// substitutions its text names.
    package struct Localization: Sendable, Decodable, Equatable {
        /// The text, when it does not vary (or the text around the substitutions).
        package var stringUnit: StringUnit?
        /// The text per plural category, when it varies with its number.
        package var variations: Variations?
        /// The parts `%#@name@` stands for, by name.
        package var substitutions: [String: Substitution]?
    }

    /// A piece of text and its translation state.
    package struct StringUnit: Sendable, Decodable, Equatable {
        /// `translated`, `needs_review`, `new` or `stale`.
        package var state: String
        /// The text, with its format specifiers (`%lld`, `%@`, `%1$lld`).
        package var value: String
    }

    /// Variations of a text; only plural variations are read.
    package struct Variations: Sendable, Decodable, Equatable {
        /// The text per CLDR plural category name (`one`, `few`, `many`, `other`, …).
        package var plural: [String: Variant]?
    }

    /// One variation's text.
    package struct Variant: Sendable, Decodable, Equatable {
        /// The text of this variation.
        package var stringUnit: StringUnit?
    }

    /// A part of a text that varies with one number: `%#@name@` in the text.
    package struct Substitution: Sendable, Decodable, Equatable {
        /// The 1-based argument the part's number is (Xcode writes it; without it, the
        /// position of `%#@name@` among the text's specifiers).
        package var argNum: Int?
        /// How `%arg` prints the number (`lld`).
        package var formatSpecifier: String
        /// The part per plural category.
        package var variations: Variations
    }
}

extension StringCatalog {
    /// Reads and decodes the catalog at `url`.
    ///
    /// - Throws: ``StringCatalogError/Code/unreadable`` when the file cannot be read,
    ///   ``StringCatalogError/Code/malformed`` when it is not a String Catalog or names a plural
    ///   category CLDR does not have.
    package init(contentsOf url: URL) throws(StringCatalogError) {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw StringCatalogError(.unreadable, file: url.path, "\(error.localizedDescription)")
        }
        try self.init(data: data, file: url.path)
    }

    /// Decodes a catalog from its JSON; `file` names it in errors.
    ///
    /// - Throws: ``StringCatalogError/Code/malformed`` when the JSON is not a String Catalog or
    ///   names a plural category CLDR does not have.
    package init(data: Data, file: String? = nil) throws(StringCatalogError) {
        do {
            self = try JSONDecoder().decode(StringCatalog.self, from: data)
        } catch let error as DecodingError {
            throw StringCatalogError(.malformed, file: file, Self.describe(error))
        } catch {
            throw StringCatalogError(.malformed, file: file, "\(error)")
        }
        for (key, entry) in strings {
            for (language, localization) in entry.localizations {
                let plurals = [localization.variations?.plural].compactMap { $0 }
                    + (localization.substitutions ?? [:]).values.compactMap { $0.variations.plural }
                for name in plurals.flatMap(\.keys) where PluralCategory(rawValue: name) == nil {
                    throw StringCatalogError(.malformed, file: file, key: key, language: language, "no plural category '\(name)'")
                }
            }
        }
    }

    /// The languages the catalog has text in, the source language first.
    package var languages: [String] {
        let all = Set(strings.values.flatMap(\.localizations.keys)).subtracting([sourceLanguage])
        return [sourceLanguage] + all.sorted()
    }

    /// A decoding error in one line: what and where (the coding path).
    private static func describe(_ error: DecodingError) -> String {
        func path(_ context: DecodingError.Context) -> String {
            context.codingPath.map { $0.intValue.map(String.init) ?? $0.stringValue }.joined(separator: ".")
        }
        switch error {
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
            return (path(context).isEmpty ? "" : path(context) + ": ") + context.debugDescription
        case .keyNotFound(let key, let context):
            return (path(context).isEmpty ? "" : path(context) + ": ") + "no '\(key.stringValue)'"
        @unknown default:
            return "\(error)"
        }
    }
}
