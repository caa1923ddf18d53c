/// A CLDR plural category: which form of a word goes with a number in a language.
package enum PluralCategory: String, Sendable, CaseIterable, Comparable {
    case zero, one, two, few, many, other

    /// CLDR's order: zero, one, two, few, many, other.
    package static func < (lhs: PluralCategory, rhs: PluralCategory) -> Bool {
        allCases.firstIndex(of: lhs) ?? 0 < allCases.firstIndex(of: rhs) ?? 0
    }
}

/// CLDR's cardinal plural rules for whole numbers, for the languages of the study tool's
/// catalog and the others CLDR puts in the same rule groups (Unicode CLDR,
/// `common/supplemental/plurals.xml`).
///
/// Whole numbers only: for them the operands `n` and `i` are the number and `v` (visible
/// fraction digits) is 0, so `en`'s `i = 1 and v = 0` is `n = 1`. The categories used only by
/// decimals (Russian `other`) are still listed in ``categories(for:)``: a catalog that Xcode
/// edits has them, and Foundation falls back to `other`.
package enum PluralRules {
    /// A group of languages that share their rules.
    private enum Group {
        /// one: `i = 1 and v = 0` (1); other.
        case oneOther
        /// one: `n = 0..1` (0, 1); other.
        case zeroOrOneOther
        /// one: `v = 0 and i % 10 = 1 and i % 100 != 11`; few: `v = 0 and i % 10 = 2..4 and
        /// i % 100 != 12..14`; many: `v = 0 and i % 10 = 0 or i % 10 = 5..9 or i % 100 = 11..14`;
        /// other: decimals.
        case eastSlavic
        /// other only.
        case otherOnly
    }

    /// The groups of CLDR's plurals.xml these rules cover, by base language subtag.
    private static let groups: [String: Group] = {
        var groups: [String: Group] = [:]
        for language in "ast de en et fi fy gl ia io ji lij nl sc scn sv sw ur yi".split(separator: " ") {
            groups[String(language)] = .oneOther
        }
        for language in "ak bho guw ln mg nso pa ti wa".split(separator: " ") { groups[String(language)] = .zeroOrOneOther }
        for language in ["ru", "uk"] { groups[language] = .eastSlavic }
        let otherOnly = "bm bo dz hnj id ig ii in ja jbo jv jw kde kea km ko lkt lo ms my nqo osa root sah ses sg su th to tpi vi wo yo yue zh"
        for language in otherOnly.split(separator: " ") { groups[String(language)] = .otherOnly }
        return groups
    }()

    /// `language`'s group, from its base subtag (`zh-Hans` → `zh`, `pa_IN` → `pa`).
    private static func group(_ language: String) -> Group? {
        let base = language.split(whereSeparator: { $0 == "-" || $0 == "_" }).first.map { $0.lowercased() } ?? ""
        return groups[base]
    }

    /// Whether these rules know `language`.
    package static func knows(_ language: String) -> Bool { group(language) != nil }

    /// The category of the whole number `number` in `language` (its absolute value counts);
    /// `other` for a language these rules do not know.
    package static func category(of number: Int, language: String) -> PluralCategory {
        let n = number.magnitude
        switch group(language) {
        case .oneOther: return n == 1 ? .one : .other
        case .zeroOrOneOther: return n <= 1 ? .one : .other
        case .eastSlavic:
            let mod10 = n % 10
            let mod100 = n % 100
            if mod10 == 1 && mod100 != 11 { return .one }
            if (2...4).contains(mod10) && !(12...14).contains(mod100) { return .few }
            return .many
        case .otherOnly, nil: return .other
        }
    }

    /// The categories a text that varies with a number must have in `language`, in CLDR's
    /// order; `nil` for a language these rules do not know.
    package static func categories(for language: String) -> [PluralCategory]? {
        switch group(language) {
        case .oneOther, .zeroOrOneOther: [.one, .other]
        case .eastSlavic: [.one, .few, .many, .other]
        case .otherOnly: [.other]
        case nil: nil
        }
    }
}
