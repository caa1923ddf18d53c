/// What the builder computes over an entry's bytes as it writes them: the CRC-32 every zip
/// carries and, for format 2, the SHA-256 the index lists.
struct EntryChecksums {
    var crc32: UInt32
    var sha256: EntryHash?

    init(crc32: UInt32, sha256: EntryHash?) {
        self.crc32 = crc32
        self.sha256 = sha256
    }

    /// The checksums of `bytes`; the SHA-256 only when `hashing`.
    init(_ bytes: UnsafeRawBufferPointer, hashing: Bool) {
        crc32 = CRC32.checksum(bytes)
        sha256 = hashing ? EntryHash.of(bytes) : nil
    }
}
