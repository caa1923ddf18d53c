import AssetPack
import PackTrust

/// What a download takes from the device and what it asks the origin for, from a pack's
/// layout: entries whose SHA-256 an installed pack lists are copied from there, local headers
/// are made again from the central directory, and the rest becomes coalesced ranges to fetch.
/// Planning does no I/O: the fetches can start at once, and the copies (``copy(into:verifying:label:)``)
/// are made while the network works.
struct DownloadPlan {
    /// The byte ranges to fetch, coalesced (journaled parts are left out later).
    private(set) var ranges: [Range<UInt64>] = []
    /// The entries whose bytes come from the origin.
    private(set) var fetched: [ZipEntryLocation] = []
    /// The entries to copy from an installed pack, and from where.
    private(set) var copies: [(location: ZipEntryLocation, source: LocalEntry)] = []
    /// The local headers to write (those no fetched range brings).
    private(set) var headers: [(offset: UInt64, bytes: [UInt8])] = []

    /// What the copies did: bytes and entries reused, and the entries whose installed bytes were
    /// not the listed ones (a damaged installed pack), to fetch instead.
    struct Copied {
        var bytes: UInt64 = 0
        var entries = 0
        var trustedUnhashed = 0
        var refused: [ZipEntryLocation] = []
    }

    /// Plans the download of `layout`, whose `done` ranges (journaled) are in the partial file.
    init(layout: PackLayout, local: [EntryHash: LocalEntry], done: [Range<UInt64>]) {
        let have = layout.tailOffset
        var fetch: [Range<UInt64>] = []
        var headersToMake: [PackLayout.Entry] = []
        var candidates: [(ZipEntryLocation, LocalEntry)] = []
        for item in layout.entries {
            let location = item.location
            // What lies in the tail is there already (the index's data, the records).
            if location.headerOffset >= have { continue }
            if item.header != nil { headersToMake.append(item) } else { fetch.append(location.headerOffset..<location.dataOffset) }
            // The index's data is the tail's start; PackLayout holds every other entry before it.
            guard location.dataOffset < have else { continue }
            let span = location.dataOffset..<location.dataOffset + location.size
            if ByteRanges.subtracting(done, from: [span]).isEmpty {
                // Fetched by an earlier run; the file's hash checks it.
                fetched.append(location)
                continue
            }
            if let hash = location.sha256, let source = local[hash] {
                candidates.append((location, source))
            } else {
                fetch.append(span)
                fetched.append(location)
            }
        }
        ranges = ByteRanges.coalesced(fetch)
        // A fetched range that covers an entry or a header (coalescing joins gaps of up to
        // 64 KiB) brings it anyway.
        func covered(_ span: Range<UInt64>) -> Bool {
            guard let covering = ByteRanges.covering(ranges, span.lowerBound) else { return false }
            return covering.upperBound >= span.upperBound
        }
        for (location, source) in candidates {
            if covered(location.dataOffset..<location.dataOffset + location.size) {
                fetched.append(location)
            } else {
                copies.append((location, source))
            }
        }
        for item in headersToMake {
            guard let header = item.header, !covered(item.location.headerOffset..<item.location.dataOffset) else { continue }
            headers.append((item.location.headerOffset, header))
        }
    }

    /// Writes the local headers made again.
    func writeHeaders(into file: WritableFile, label: String) throws {
        for (offset, bytes) in headers {
            do {
                try file.write(bytes, at: offset)
            } catch {
                throw DeliveryError.fileSystem(error, item: label)
            }
        }
    }

    /// Copies the installed entries into `file`. Each one's bytes are hashed first unless its
    /// pack is trusted (its whole file verified and unchanged since) and `verifying` is off;
    /// bytes that are not the listed ones are left out and returned, to fetch.
    func copy(into file: WritableFile, verifying: Bool, label: String) throws -> Copied {
        var copied = Copied()
        for (location, source) in copies {
            guard let hash = location.sha256 else { continue }
            let check = verifying || !source.trusted
            if try Self.copy(source, to: file, at: location.dataOffset, expecting: check ? hash : nil, label: label) {
                copied.bytes += location.size
                copied.entries += 1
                if !check { copied.trustedUnhashed += 1 }
            } else {
                copied.refused.append(location)
            }
        }
        return copied
    }

    /// Copies an installed entry's bytes into the partial file at `offset` if their SHA-256 is
    /// `expected` (or, when `nil`, without hashing them); `false` (nothing written) when they
    /// differ: the installed pack is damaged.
    private static func copy(_ source: LocalEntry, to file: WritableFile, at offset: UInt64, expecting expected: EntryHash?, label: String) throws -> Bool {
        let bytes: PackData
        do {
            bytes = try source.pack.data(for: source.entry)
        } catch {
            return false
        }
        if let expected {
            let matches = bytes.withUnsafeBytes { EntryHash.of($0) == expected }
            guard matches else { return false }
        }
        let written = bytes.withUnsafeBytes { raw in Result { () throws(PackError) in try file.write(raw, at: offset) } }
        if case .failure(let error) = written { throw DeliveryError.fileSystem(error, item: label) }
        return true
    }

    /// The SHA-256 of `range` of `file`, read back in 1 MiB pieces.
    static func hash(_ file: WritableFile, _ range: Range<UInt64>) throws(PackError) -> EntryHash {
        var hasher = EntryHash.Hasher()
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 64)
        defer { buffer.deallocate() }
        var offset = range.lowerBound
        while offset < range.upperBound {
            let want = Int(min(UInt64(buffer.count), range.upperBound - offset))
            let got = try file.read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[0..<want]), at: offset)
            guard got > 0 else { throw PackError(.io, "the file ended at \(offset), before \(range.upperBound)", at: .pack(file.path, offset: offset)) }
            hasher.update(UnsafeRawBufferPointer(rebasing: buffer[0..<got]))
            offset += UInt64(got)
        }
        return hasher.finish()
    }
}
