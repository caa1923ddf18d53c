/// What a pack says about itself in its index: who it is and how it was built.
public struct PackMetadata: Sendable, Equatable {
    /// The pack format version: 2 (every entry's SHA-256 listed and digested) or 1 (CRC-32s only).
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
    /// `sha256:` and the hex SHA-256 of the pack's manifest: the metadata above and every entry's
    /// path and SHA-256 (format 2; format 1: path, size and CRC-32). Identifies the pack's content.
    public var digest: String

    /// Metadata with the given values (the builder makes it; tests and tools may too).
    public init(
        formatVersion: Int = 2, name: String, locale: String? = nil, contentVersion: String? = nil,
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

    /// The name a pack gets when none is given: its file's base name without `.pack`.
    static func defaultName(forFile path: String) -> String {
        var base = path.split(separator: "/").last.map(String.init) ?? path
        if base.hasSuffix(".pack") { base.removeLast(5) }
        return base
    }
}
