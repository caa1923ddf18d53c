import AssetPack

/// The device family an image variant is for.
public enum Idiom: String, Sendable, Hashable, CaseIterable {
    /// A phone: files with Apple's `~iphone` suffix.
    case phone
    /// A tablet: files with Apple's `~ipad` suffix.
    case pad

    /// The file name suffix after `~`: `iphone` or `ipad` (case-sensitive, as on Apple platforms).
    public var suffix: String {
        switch self {
        case .phone: "iphone"
        case .pad: "ipad"
        }
    }
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
        for candidate in Idiom.allCases where stem.hasSuffix("~" + candidate.suffix) {
            idiom = candidate
            stem = stem.dropLast(candidate.suffix.count + 1)
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
/// that are scale or device variants of it, the plain file included. Bases without variants are
/// not stored; a lookup finds such a file by its own path.
struct VariantIndex: Sendable {
    struct Variant: Hashable, Sendable {
        var scale: Int
        var idiom: Idiom?
        var entryNumber: Int

        /// A bit per (scale, idiom), so variants already taken from a higher pack are skipped
        /// without hashing.
        var key: UInt32 { 1 << UInt32(scale * 3 + (idiom == nil ? 0 : idiom == .phone ? 1 : 2)) }
    }

    /// Each group's variants: the scale and device variants of one base path, and the plain
    /// file when the pack has it.
    let groups: [[Variant]]
    /// Per entry number, the group whose plain file that entry is, or -1; empty when the pack
    /// has no variants. A lookup finds the plain file through the pack's own hash table, so it
    /// costs one plain lookup more than nothing.
    private let groupOfPlain: [Int32]
    /// Groups whose plain file is not in the pack (only `@2x`/`@3x` files), by base path.
    private let orphans: [String: Int]

    init(pack: Pack) {
        var byBase: [String: [Variant]] = [:]
        for number in 0..<pack.count {
            let path = pack.makeEntry(number).path
            // Cheap pre-check: only names with '@' or '~' can be variants.
            guard path.utf8.contains(where: { $0 == UInt8(ascii: "@") || $0 == UInt8(ascii: "~") }) else { continue }
            let name = VariantName(path: path)
            guard name.basePath != path else { continue }
            byBase[name.basePath, default: []].append(Variant(scale: name.scale, idiom: name.idiom, entryNumber: number))
        }
        var groups: [[Variant]] = []
        var groupOfPlain = [Int32](repeating: -1, count: byBase.isEmpty ? 0 : pack.count)
        var orphans: [String: Int] = [:]
        for (base, variants) in byBase.sorted(by: { $0.key < $1.key }) {
            if let plain = pack.entryNumber(forPath: base) {
                groupOfPlain[plain] = Int32(groups.count)
                groups.append(variants + [Variant(scale: 1, idiom: nil, entryNumber: plain)])
            } else {
                orphans[base] = groups.count
                groups.append(variants)
            }
        }
        self.groups = groups
        self.groupOfPlain = groupOfPlain
        self.orphans = orphans
    }

    /// The group of base path `name`, given the entry number of `name` itself in this pack.
    @inline(__always)
    func group(of name: String, plainEntry: Int?) -> Int? {
        if let plainEntry {
            guard plainEntry < groupOfPlain.count else { return nil }
            let group = groupOfPlain[plainEntry]
            return group >= 0 ? Int(group) : nil
        }
        return orphans.isEmpty ? nil : orphans[name]
    }

    /// The number of base names that have variants.
    var groupCount: Int { groups.count }

    /// How well a variant fits a request; smaller is better. The order, Apple's with Android's
    /// preference for scaling down: exact scale with the idiom, exact scale, the nearest larger
    /// scale, then smaller ones; scale wins over idiom. Variants for another device are never
    /// chosen.
    static func rank(_ variant: Variant, scale: Int, idiom: Idiom) -> (Int, Int, Int)? {
        if let own = variant.idiom, own != idiom { return nil }
        let side = variant.scale == scale ? 0 : variant.scale > scale ? 1 : 2
        return (side, abs(variant.scale - scale), variant.idiom == idiom ? 0 : 1)
    }
}
