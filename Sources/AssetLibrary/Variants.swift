import AssetPack

/// The device family an image variant is for: Apple's `~iphone` and `~ipad` suffixes.
public enum Idiom: String, Sendable, Hashable, CaseIterable {
    case phone = "iphone"
    case pad = "ipad"
}

/// What a file name says about itself: `Images/duck@2x~ipad.png` is the scale-2, pad variant of
/// `Images/duck.png`. Suffixes are case-sensitive, as on Apple platforms (`@2X` is no suffix).
public struct VariantName: Hashable, Sendable {
    /// The path without suffixes: the name an app asks for.
    public let basePath: String
    /// 1 for a file without a scale suffix.
    public let scale: Int
    /// `nil` for a file without a device suffix.
    public let idiom: Idiom?

    /// Parses a path; any extension works (`.png`, `.jpg`, `.json`, none).
    public init(path: String) {
        let slash = path.lastIndex(of: "/")
        let nameStart = slash.map { path.index(after: $0) } ?? path.startIndex
        let dot = path[nameStart...].lastIndex(of: ".")
        let stemEnd = dot ?? path.endIndex
        var stem = path[nameStart..<stemEnd]
        var idiom: Idiom?
        for candidate in Idiom.allCases where stem.hasSuffix("~" + candidate.rawValue) {
            idiom = candidate
            stem = stem.dropLast(candidate.rawValue.count + 1)
        }
        var scale = 1
        var scaleSuffix = false
        if stem.count >= 3, stem.hasSuffix("x"), let at = stem.lastIndex(of: "@"),
            let value = Int(stem[stem.index(after: at)..<stem.index(before: stem.endIndex)]),
            (1...9).contains(value), stem.distance(from: at, to: stem.endIndex) == 3
        {
            scale = value
            scaleSuffix = true
            stem = stem[..<at]
        }
        self.scale = scale
        self.idiom = idiom
        basePath =
            !scaleSuffix && idiom == nil
            ? path : String(path[..<nameStart]) + String(stem) + String(path[stemEnd...])
    }
}

/// The variant groups of one pack, built once when the pack is mounted: base path → the files
/// that are scale or device variants of it. Plain files (no suffix) are not stored; a lookup
/// finds them by their own path.
public struct VariantIndex: Sendable {
    struct Variant: Hashable, Sendable {
        var scale: Int
        var idiom: Idiom?
        var path: String
    }

    let groups: [String: [Variant]]

    public init(pack: Pack) {
        var groups: [String: [Variant]] = [:]
        for entry in pack.entries {
            // Cheap pre-check: only names with '@' or '~' can be variants.
            guard entry.path.utf8.contains(where: { $0 == UInt8(ascii: "@") || $0 == UInt8(ascii: "~") }) else {
                continue
            }
            let name = VariantName(path: entry.path)
            guard name.basePath != entry.path else { continue }
            groups[name.basePath, default: []].append(Variant(scale: name.scale, idiom: name.idiom, path: entry.path))
        }
        self.groups = groups
    }

    /// The number of base names that have variants.
    public var groupCount: Int { groups.count }

    /// The variants of `basePath` in this pack, the plain file included if the pack has it.
    func variants(of basePath: String, in pack: Pack) -> [Variant] {
        var found = groups[basePath] ?? []
        if pack.contains(basePath) { found.append(Variant(scale: 1, idiom: nil, path: basePath)) }
        return found
    }

    /// How well a variant fits a request; smaller is better. The order (DESIGN.md): exact scale
    /// with the idiom, exact scale, the nearest larger scale, then smaller ones; scale wins over
    /// idiom. Variants for another device are never chosen.
    static func rank(_ variant: Variant, scale: Int, idiom: Idiom) -> (Int, Int, Int)? {
        if let own = variant.idiom, own != idiom { return nil }
        let side = variant.scale == scale ? 0 : variant.scale > scale ? 1 : 2
        return (side, abs(variant.scale - scale), variant.idiom == idiom ? 0 : 1)
    }
}
