extension Pack {
    /// Opens the file at `path` once, hashes every byte through that descriptor, hands the
    /// SHA-256 and size to `check`, and only if `check` accepts them reads the file as a pack
    /// (with `pread`, through the same descriptor): for files that are not trusted until their
    /// hash is checked (a download, a repository's pack), so no unauthenticated byte is parsed
    /// and the file cannot be swapped between the hash and the parse.
    package static func openHashed(
        path: String, check: (EntryHash, UInt64) throws(PackError) -> Void
    ) throws(PackError) -> Pack {
        let (source, identity) = try ByteSource.open(path: path, backend: .read)
        let (hash, size) = try hashAll(source, path: path)
        try check(hash, size)
        return try Pack(source: source, identity: identity, path: path)
    }

    /// The SHA-256 and size of the whole file at `path`, read in 1 MiB pieces.
    package static func fileSHA256(path: String) throws(PackError) -> (hash: EntryHash, size: UInt64) {
        let (source, _) = try ByteSource.open(path: path, backend: .read)
        return try hashAll(source, path: path)
    }

    private static func hashAll(_ source: ByteSource, path: String) throws(PackError) -> (EntryHash, UInt64) {
        var hasher = EntryHash.Hasher()
        let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 64)
        defer { scratch.deallocate() }
        var offset: UInt64 = 0
        do throws(PackError) {
            while offset < source.size {
                let count = Int(min(UInt64(scratch.count), source.size - offset))
                hasher.update(try source.bytes(at: offset, count: count, scratch: scratch))
                offset += UInt64(count)
            }
        } catch {
            throw error.at(file: path)
        }
        return (hasher.finish(), source.size)
    }
}
