/// Computes a pack's `digest`: the SHA-256 of its manifest, a text that names the pack and lists
/// every content entry in entry (path-byte) order.
///
/// Format 2 (what the builder writes): five header lines, then one line per entry exactly as
/// `sha256sum` prints it, so the digest covers every content byte:
///
///     pack/2
///     name=<name>
///     locale=<locale, or nothing>
///     version=<content version, or nothing>
///     alignment=<alignment>
///     <sha256 of the entry, 64 lowercase hex digits><two spaces><path>
///     …
///
/// Format 1 (still read and verified): the first three header lines with `pack/1`, the version
/// and alignment lines, then per entry its path, a NUL, its size (8 bytes) and CRC-32 (4 bytes),
/// little-endian. It covers sizes and CRCs, not the bytes themselves.
struct ManifestDigest {
    private var hasher = EntryHash.Hasher()
    let format: Int

    init(format: Int, name: String, locale: String?, contentVersion: String?, alignment: Int) {
        self.format = format
        hasher.update(Array("pack/\(format)\nname=\(name)\nlocale=\(locale ?? "")\n".utf8))
        hasher.update(Array("version=\(contentVersion ?? "")\nalignment=\(alignment)\n".utf8))
    }

    /// Adds one entry; `sha256` is required in format 2 and ignored in format 1.
    mutating func add<C: Collection<UInt8>>(path: C, size: UInt64, crc32: UInt32, sha256: EntryHash?) {
        if format >= 2 {
            sha256?.withHexDigits { hasher.update($0) }
            var separator = (UInt8(ascii: " "), UInt8(ascii: " "))
            withUnsafeBytes(of: &separator) { hasher.update($0) }
            hasher.update(path)
            var newline = UInt8(ascii: "\n")
            withUnsafeBytes(of: &newline) { hasher.update($0) }
            return
        }
        hasher.update(path)
        // The NUL after the path, then the size and CRC-32, little-endian.
        var tail = (UInt8(0), size.littleEndian, crc32.littleEndian)
        withUnsafeBytes(of: &tail.0) { hasher.update($0) }
        withUnsafeBytes(of: &tail.1) { hasher.update($0) }
        withUnsafeBytes(of: &tail.2) { hasher.update($0) }
    }

    mutating func finish() -> String { "sha256:" + hasher.finish().hex }
}
