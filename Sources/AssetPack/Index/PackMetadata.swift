/// What a pack says about itself in its index: who it is and how it was built.
public struct PackMetadata: Sendable, Equatable {
    /// The pack format version; this library reads and writes version 1.
    public var formatVersion: Int
    /// The pack's name (`--name`, by default the source folder's name).
    public var name: String
    /// The BCP 47 language tag of a locale pack; `nil` for a base pack.
    public var locale: String?
    /// The content's own version (`--content-version`), free-form.
    public var contentVersion: String?
    /// The alignment of every entry's data, in bytes.
    public var alignment: Int
    /// The number of content entries (the index itself not counted).
    public var entryCount: Int
    /// `sha256:` and the hex SHA-256 of the pack's manifest: every entry's path, size and CRC-32
    /// and the metadata above. Identifies the pack's content for caches.
    public var digest: String

    public init(
        formatVersion: Int = 1, name: String, locale: String? = nil, contentVersion: String? = nil,
        alignment: Int, entryCount: Int, digest: String
    ) {
        self.formatVersion = formatVersion
        self.name = name
        self.locale = locale
        self.contentVersion = contentVersion
        self.alignment = alignment
        self.entryCount = entryCount
        self.digest = digest
    }
}

/// One content entry as the index records it.
struct IndexedEntry {
    var number: Int
    var path: [UInt8]
    var dataOffset: UInt64
    var size: UInt64
    var crc32: UInt32
}

/// Computes the content digest: SHA-256 over the metadata and each entry's path, size and CRC.
struct ManifestDigest {
    private var hasher = SHA256()

    init(name: String, locale: String?, contentVersion: String?, alignment: Int) {
        hasher.update(Array("pack/1\nname=\(name)\nlocale=\(locale ?? "")\n".utf8))
        hasher.update(Array("version=\(contentVersion ?? "")\nalignment=\(alignment)\n".utf8))
    }

    mutating func add<C: Collection<UInt8>>(path: C, size: UInt64, crc32: UInt32) {
        hasher.update(path)
        // The NUL after the path, then the size and CRC-32, little-endian.
        var tail = (UInt8(0), size.littleEndian, crc32.littleEndian)
        withUnsafeBytes(of: &tail.0) { hasher.update($0) }
        withUnsafeBytes(of: &tail.1) { hasher.update($0) }
        withUnsafeBytes(of: &tail.2) { hasher.update($0) }
    }

    mutating func finish() -> String { "sha256:" + SHA256.hex(hasher.finalize()) }
}
