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
