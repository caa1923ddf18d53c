import Foundation

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

    /// Why `name` cannot be a pack's name, or `nil` when it can.
    ///
    /// A pack's name becomes a file name when it is installed (`NAME.pack`, `NAME.LOCALE.pack`),
    /// so it must be one safe path component: not empty, at most 200 UTF-8 bytes, in NFC, no
    /// `/`, `\`, `:`, NUL or control character, not starting with `.` (no `.`, `..` or hidden
    /// file). The builder, the publisher, the catalog and the installer all hold names to it.
    package static func nameProblem(_ name: String) -> String? {
        if name.isEmpty { return "the name is empty" }
        if name.utf8.count > 200 { return "the name is \(name.utf8.count) bytes long (at most 200)" }
        if name.hasPrefix(".") { return "the name starts with a dot" }
        if name.contains("/") || name.contains(":") { return "the name contains a / or a :" }
        if let problem = PackPath.problem(with: name.utf8) { return problem }
        if !name.utf8.allSatisfy({ $0 < 0x80 }), name.precomposedStringWithCanonicalMapping.utf8.elementsEqual(name.utf8) == false {
            return "the name is not in NFC"
        }
        return nil
    }

    /// Why `locale` cannot be a pack's locale, or `nil` when it can: a well-formed BCP 47 tag
    /// written canonically (`zh-Hans`, `pt-BR`), so that two packs' locales never differ by
    /// case alone (their file names would collide on Apple's case-insensitive file systems).
    package static func localeProblem(_ locale: String) -> String? {
        let tag: LocaleTag
        do {
            tag = try LocaleTag(locale)
        } catch {
            return error.detail
        }
        return tag.description == locale ? nil : "\"\(locale)\" is not written canonically: \(tag.description)"
    }

    /// The file an installed pack has: `NAME.pack`, or `NAME.LOCALE.pack` for a locale pack.
    /// `nil` when the name or locale is not one a pack may have.
    package static func installedFileName(name: String, locale: String?) -> String? {
        guard nameProblem(name) == nil, locale.map(localeProblem) ?? nil == nil else { return nil }
        return name + (locale.map { "." + $0 } ?? "") + ".pack"
    }

    /// The name a pack gets when none is given: its file's base name without `.pack`.
    static func defaultName(forFile path: String) -> String {
        var base = path.split(separator: "/").last.map(String.init) ?? path
        if base.hasSuffix(".pack") { base.removeLast(5) }
        return base
    }
}
