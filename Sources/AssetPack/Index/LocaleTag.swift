/// A BCP 47 language tag, parsed and canonicalized (`pt-br` and `pt_BR` become `pt-BR`).
///
/// Only what locale fallback needs is kept: language, script, region and variants; extensions
/// and private-use subtags are accepted and dropped.
public struct LocaleTag: Hashable, Sendable, CustomStringConvertible {
    /// Lower-case language subtag (`pt`), or `und` for an undetermined language.
    public let language: String
    /// Title-case script subtag (`Hant`), if the tag has one.
    public let script: String?
    /// Upper-case region subtag (`BR`, or three digits such as `419`), if the tag has one.
    public let region: String?
    /// Lower-case variant subtags.
    public let variants: [String]

    /// A tag from its parts, taken as given (already canonical: `pt`, `Hant`, `BR`).
    public init(language: String, script: String? = nil, region: String? = nil, variants: [String] = []) {
        self.language = language
        self.script = script
        self.region = region
        self.variants = variants
    }

    /// Parses `text` (`-` or `_` separated).
    ///
    /// - Throws: ``PackError/Code/malformedLocale`` with the tag and the reason.
    public init(_ text: String) throws(PackError) {
        do {
            self = try Self.parse(text)
        } catch {
            throw PackError(.malformedLocale, "\"\(text)\": \(error.reason)")
        }
    }

    /// Why a tag is not well-formed.
    package struct Malformed: Error {
        package let reason: String
    }

    /// Parses `text`; the error says why it is not a tag (for callers with errors of their own).
    package static func parse(_ text: String) throws(Malformed) -> LocaleTag {
        func malformed(_ reason: String) -> Malformed { Malformed(reason: reason) }
        let subtags = text.split(separator: "-", omittingEmptySubsequences: false).flatMap {
            $0.split(separator: "_", omittingEmptySubsequences: false)
        }.map(String.init)
        guard let first = subtags.first, !first.isEmpty else { throw malformed("empty tag") }
        guard subtags.allSatisfy({ !$0.isEmpty && $0.count <= 8 && $0.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) } })
        else { throw malformed("subtags are 1 to 8 ASCII letters or digits") }
        guard (2...3).contains(first.count), first.allSatisfy(\.isLetter) else {
            throw malformed("the language must be 2 or 3 letters")
        }
        var language = first.lowercased()
        var script: String?
        var region: String?
        var variants: [String] = []
        var index = 1
        if index < subtags.count, subtags[index].count == 4, subtags[index].allSatisfy(\.isLetter) {
            script = subtags[index].prefix(1).uppercased() + subtags[index].dropFirst().lowercased()
            index += 1
        }
        if index < subtags.count {
            let candidate = subtags[index]
            if candidate.count == 2, candidate.allSatisfy(\.isLetter) {
                region = candidate.uppercased()
                index += 1
            } else if candidate.count == 3, candidate.allSatisfy(\.isNumber) {
                region = candidate
                index += 1
            }
        }
        while index < subtags.count {
            let subtag = subtags[index]
            if subtag.count == 1 { break }  // an extension or private use: the rest is dropped
            let isVariant = subtag.count >= 5 || (subtag.count == 4 && subtag.first?.isNumber == true)
            guard isVariant else { throw malformed("unexpected subtag \"\(subtag)\"") }
            variants.append(subtag.lowercased())
            index += 1
        }
        if index < subtags.count {
            guard index + 1 < subtags.count else { throw malformed("an extension needs a value") }
        }
        if language == "iw" { language = "he" }  // deprecated codes still seen in the wild
        if language == "in" { language = "id" }
        return LocaleTag(language: language, script: script, region: region, variants: variants)
    }

    /// The canonical form: `zh-Hant-TW`.
    public var description: String {
        ([language] + [script, region].compactMap { $0 } + variants).joined(separator: "-")
    }

    /// Whether the language is undetermined (`und`).
    public var isUndetermined: Bool { language == "und" }

    /// The script the tag is written in: its own, or the language's likely script for its region.
    public var effectiveScript: String? { script ?? Self.likelyScript(language: language, region: region) }

    /// Whether the tag is written in its language's default script (or the language has one script).
    package var usesDefaultScript: Bool {
        effectiveScript == Self.likelyScript(language: language, region: nil)
    }

    /// Two tags name the same locale once likely scripts are filled in (`zh-TW` = `zh-Hant-TW`).
    public func sameLocale(as other: LocaleTag) -> Bool {
        language == other.language && effectiveScript == other.effectiveScript && region == other.region
            && variants == other.variants
    }

    /// Languages written in more than one script: the likely script by region (CLDR likely subtags).
    package static func likelyScript(language: String, region: String?) -> String? {
        switch (language, region) {
        case ("zh", "TW"), ("zh", "HK"), ("zh", "MO"): "Hant"
        case ("zh", _): "Hans"
        case ("sr", "ME"): "Latn"
        case ("sr", _): "Cyrl"
        case ("uz", "AF"): "Arab"
        case ("uz", _): "Latn"
        case ("az", "IR"): "Arab"
        case ("az", _): "Latn"
        case ("pa", "PK"): "Arab"
        case ("pa", _): "Guru"
        case ("bs", _), ("ms", _), ("ha", _): "Latn"
        case ("mn", _): "Cyrl"
        default: nil
        }
    }

    /// The region a language is most used in, preferred among sibling regions (CLDR likely subtags).
    package static func likelyRegion(language: String, script: String?) -> String? {
        switch (language, script) {
        case ("zh", "Hant"): "TW"
        case ("zh", _): "CN"
        case ("sr", "Latn"): "RS"
        default:
            [
                "en": "US", "fr": "FR", "de": "DE", "es": "ES", "pt": "BR", "it": "IT", "ru": "RU", "ja": "JP",
                "ko": "KR", "nl": "NL", "sv": "SE", "ar": "EG", "uk": "UA", "pl": "PL", "tr": "TR", "sr": "RS",
                "he": "IL", "hi": "IN", "id": "ID", "vi": "VN", "th": "TH", "el": "GR", "cs": "CZ", "da": "DK",
                "fi": "FI", "nb": "NO", "hu": "HU", "ro": "RO",
            ][language]
        }
    }
}
