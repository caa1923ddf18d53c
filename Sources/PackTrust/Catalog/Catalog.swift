import AssetPack
import Foundation

/// What a client may install: the packs of one published version, each by name and locale with
/// the SHA-256 of its whole file, its index digest and where it is, relative to the repository.
///
/// A catalog's file (`catalogs/N.json` in a repository) is written deterministically (the same
/// packs, version and expiry give the same bytes) and signed beside it (`catalogs/N.json.minisig`),
/// minisign's format, one signature per
/// signing key; each signature's trusted comment repeats the version and expiry, so they are
/// signed twice.
public struct Catalog: Sendable, Equatable {
    /// One pack of the catalog.
    public struct Entry: Sendable, Equatable {
        /// The pack's name, as its index says.
        public var name: String
        /// The pack's locale; `nil` for a base pack.
        public var locale: String?
        /// The pack's content version.
        public var contentVersion: String?
        /// The pack file's size in bytes.
        public var size: UInt64
        /// The SHA-256 of the whole pack file.
        public var sha256: EntryHash
        /// The pack's index digest (`sha256:…`), which names every entry's SHA-256.
        public var digest: String
        /// Where the pack is, relative to the repository (`packs/<sha256>.pack`).
        public var path: String
        /// Where the pack's tail (its index, central directory and end records) begins: a
        /// client fetches exactly the bytes from here to the end first, so what it reads before
        /// the file is authenticated is bounded by what the publisher signed.
        public var tailOffset: UInt64

        /// An entry with every field.
        public init(
            name: String, locale: String?, contentVersion: String?, size: UInt64, sha256: EntryHash, digest: String, path: String,
            tailOffset: UInt64
        ) {
            self.name = name
            self.locale = locale
            self.contentVersion = contentVersion
            self.size = size
            self.sha256 = sha256
            self.digest = digest
            self.path = path
            self.tailOffset = tailOffset
        }

        /// The file the pack has once installed (`NAME.pack`, `NAME.LOCALE.pack`): one safe
        /// path component, as the catalog's checks guarantee.
        public var installedFileName: String { name + (locale.map { "." + $0 } ?? "") + ".pack" }

        /// The pack, as messages name it: `name` or `name (locale)`.
        public var label: String { name + (locale.map { " (\($0))" } ?? "") }
    }

    /// The catalog format this library writes and reads (2 added each pack's tail offset).
    public static let format = 2
    /// The largest catalog a client reads.
    public static let maxFileSize = 16 << 20
    /// The most packs a catalog may list.
    public static let maxPacks = 10_000

    /// Only ever goes up: a client refuses a catalog older than one it accepted.
    public var version: Int
    /// After this moment a client refuses the catalog (an attacker cannot freeze a client on it).
    public var expires: Date
    /// In name, then locale order.
    public var packs: [Entry]

    /// A catalog of `packs` (sorted by name, then locale).
    public init(version: Int, expires: Date, packs: [Entry]) {
        self.version = version
        self.expires = expires
        self.packs = packs.sorted { ($0.name, $0.locale ?? "") < ($1.name, $1.locale ?? "") }
    }

    /// The trusted comment each signature carries.
    public var trustedComment: String { "catalog version \(version) expires \(Timestamp.format(expires))" }

    /// The file's bytes: one pack per line, keys in a fixed order.
    public var fileContents: [UInt8] {
        var text = "{\"format\":\(Self.format),\"type\":\"catalog\",\"version\":\(version),"
        text += "\"expires\":\(JSONEscape.quoted(Timestamp.format(expires))),\"packs\":["
        for (index, pack) in packs.enumerated() {
            text += index == 0 ? "\n" : ",\n"
            text += "{\"name\":\(JSONEscape.quoted(pack.name)),\"locale\":\(pack.locale.map(JSONEscape.quoted) ?? "null"),"
            text += "\"contentVersion\":\(pack.contentVersion.map(JSONEscape.quoted) ?? "null"),\"size\":\(pack.size),"
            text += "\"sha256\":\"\(pack.sha256.hex)\",\"digest\":\(JSONEscape.quoted(pack.digest)),\"path\":\(JSONEscape.quoted(pack.path)),"
            text += "\"tailOffset\":\(pack.tailOffset)}"
        }
        text += "\n]}\n"
        return Array(text.utf8)
    }

    /// Reads a catalog, refusing what a client must not act on: over 16 MiB, malformed JSON or
    /// duplicate keys, missing fields, numbers out of range, more than 10,000 packs, unsafe paths,
    /// a name or locale that is not one safe file name component (or not canonical), two packs
    /// whose installed files would collide on a case-insensitive file system, a tail outside
    /// the pack.
    public init(fileContents bytes: [UInt8]) throws(TrustError) {
        guard bytes.count <= Self.maxFileSize else {
            throw TrustError(.tooLarge, "a catalog is at most \(Self.maxFileSize) bytes, this one \(bytes.count)")
        }
        let document = try JSONText.parse(bytes, code: .malformedCatalog)
        let reader = FieldReader(code: .malformedCatalog)
        _ = try reader.object(document, "catalog")
        let format = try reader.integer(document["format"], "format", max: 1 << 16)
        guard format == Self.format else {
            throw TrustError(.malformedCatalog, "format \(format) is not \(Self.format)", at: .field("format"))
        }
        guard try reader.string(document["type"], "type") == "catalog" else {
            throw TrustError(.malformedCatalog, "type is not \"catalog\"", at: .field("type"))
        }
        version = try reader.integer(document["version"], "version", max: 1 << 53)
        expires = try reader.time(document["expires"], "expires")
        var packs: [Entry] = []
        var seen = Set<String>()
        for (index, item) in try reader.array(document["packs"], "packs", max: Self.maxPacks).enumerated() {
            let field = "packs[\(index)]"
            let object = try reader.object(item, field)
            let name = try reader.string(object["name"], field + ".name", maxBytes: 255)
            if let problem = PackMetadata.nameProblem(name) {
                throw TrustError(.unsafePath, "pack name \(JSONEscape.quoted(name)): \(problem)", at: .field(field + ".name"))
            }
            let locale = try reader.optionalString(object["locale"], field + ".locale")
            if let locale, let problem = PackMetadata.localeProblem(locale) {
                throw TrustError(.unsafePath, "locale \(JSONEscape.quoted(locale)): \(problem)", at: .field(field + ".locale"))
            }
            // The installed files of two packs must not collide, also where case and Unicode
            // normalization do not tell names apart (Apple's file systems).
            let fileName = name + (locale.map { "." + $0 } ?? "") + ".pack"
            guard seen.insert(PackPath.collisionKey(fileName)).inserted else {
                throw TrustError(.malformedCatalog, "\(name) (\(locale ?? "base")) is listed twice, or collides with another pack's file", at: .field(field))
            }
            let hexText = try reader.string(object["sha256"], field + ".sha256")
            guard let sha256 = EntryHash(hex: hexText) else {
                throw TrustError(.malformedCatalog, "not 64 lowercase hex digits", at: .field(field + ".sha256"))
            }
            let digest = try reader.string(object["digest"], field + ".digest")
            guard digest.hasPrefix("sha256:"), EntryHash(hex: digest.dropFirst(7)) != nil else {
                throw TrustError(.malformedCatalog, "not sha256: and 64 hex digits", at: .field(field + ".digest"))
            }
            let path = try reader.string(object["path"], field + ".path")
            if let problem = Self.pathProblem(path) { throw TrustError(.unsafePath, "\(problem): \(path)", at: .field(field + ".path")) }
            let size = UInt64(try reader.integer(object["size"], field + ".size", max: 1 << 53))
            let tailOffset = UInt64(try reader.integer(object["tailOffset"], field + ".tailOffset", max: 1 << 53))
            // A pack's tail holds at least its end record (22 bytes).
            guard tailOffset <= size, size - tailOffset >= 22 else {
                throw TrustError(.malformedCatalog, "tail offset \(tailOffset) does not leave an end record in a \(size)-byte pack", at: .field(field + ".tailOffset"))
            }
            packs.append(
                Entry(
                    name: name, locale: locale, contentVersion: try reader.optionalString(object["contentVersion"], field + ".contentVersion"),
                    size: size, sha256: sha256, digest: digest, path: path, tailOffset: tailOffset))
        }
        self.packs = packs
    }

    /// Why a pack path could leave the repository folder, or `nil` when it is safe: relative,
    /// no `.` or `..` component, no backslash, no control characters, no empty component.
    public static func pathProblem(_ path: String) -> String? {
        if path.isEmpty { return "the path is empty" }
        if path.hasPrefix("/") { return "the path is absolute" }
        if path.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) { return "the path contains a control character" }
        if path.contains("\\") { return "the path contains a backslash" }
        if path.contains(":") { return "the path contains a colon" }
        for component in path.split(separator: "/", omittingEmptySubsequences: false) {
            if component == ".." { return "the path climbs out with .." }
            if component.isEmpty || component == "." { return "the path has an empty or . component" }
        }
        return nil
    }
}
