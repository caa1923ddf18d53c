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
/// that are scale or device variants of it, the plain file included. Bases without variants are
/// not stored; a lookup finds such a file by its own path.
public struct VariantIndex: Sendable {
    struct Variant: Hashable, Sendable {
        var scale: Int
        var idiom: Idiom?
        var entryNumber: Int

        /// A bit per (scale, idiom), so variants already taken from a higher pack are skipped
        /// without hashing.
        var key: UInt32 { 1 << UInt32(scale * 3 + (idiom == nil ? 0 : idiom == .phone ? 1 : 2)) }
    }

    /// A base path with a precomputed FNV-1a hash: the dictionary hashes 8 bytes instead of the
    /// whole path, and equality compares the hash before the bytes.
    struct Key: Hashable, Sendable {
        let hash: UInt64
        let path: String

        init(_ path: String) {
            var path = path
            var hash: UInt64 = 0xcbf2_9ce4_8422_2325
            path.withUTF8 { for byte in $0 { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3 } }
            self.hash = hash
            self.path = path
        }

        func hash(into hasher: inout Hasher) { hasher.combine(hash) }
        static func == (a: Key, b: Key) -> Bool { a.hash == b.hash && a.path == b.path }
    }

    let groups: [Key: [Variant]]

    public init(pack: Pack) {
        var groups: [Key: [Variant]] = [:]
        for number in 0..<pack.count {
            let path = pack.entry(at: number).path
            // Cheap pre-check: only names with '@' or '~' can be variants.
            guard path.utf8.contains(where: { $0 == UInt8(ascii: "@") || $0 == UInt8(ascii: "~") }) else { continue }
            let name = VariantName(path: path)
            guard name.basePath != path else { continue }
            groups[Key(name.basePath), default: []].append(Variant(scale: name.scale, idiom: name.idiom, entryNumber: number))
        }
        for (base, _) in groups {
            if let plain = pack.entryNumber(of: base.path) {
                groups[base]?.append(Variant(scale: 1, idiom: nil, entryNumber: plain))
            }
        }
        self.groups = groups
    }

    /// The number of base names that have variants.
    public var groupCount: Int { groups.count }

    /// How well a variant fits a request; smaller is better. The order (DESIGN.md): exact scale
    /// with the idiom, exact scale, the nearest larger scale, then smaller ones; scale wins over
    /// idiom. Variants for another device are never chosen.
    static func rank(_ variant: Variant, scale: Int, idiom: Idiom) -> (Int, Int, Int)? {
        if let own = variant.idiom, own != idiom { return nil }
        let side = variant.scale == scale ? 0 : variant.scale > scale ? 1 : 2
        return (side, abs(variant.scale - scale), variant.idiom == idiom ? 0 : 1)
    }
}
