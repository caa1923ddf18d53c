import AssetPack
import PackTrust

/// What a download takes from the device and what it asks the origin for, from a pack's
/// layout: entries whose SHA-256 an installed pack lists are copied from there (and hashed as
/// they are copied; bytes that differ are fetched instead), local headers are made again from
/// the central directory, and the rest becomes coalesced ranges to fetch.
///
/// Making the plan writes the copies and headers into the partial file: they cost no request.
struct DownloadPlan {
    /// The byte ranges to fetch, coalesced (journaled parts are left out later).
    private(set) var ranges: [Range<UInt64>] = []
    /// The entries whose bytes come from the origin.
    private(set) var fetched: [ZipEntryLocation] = []
    private(set) var bytesReused: UInt64 = 0
    private(set) var entriesReused = 0

    /// Plans the download of `layout` into `file`, whose `done` ranges (journaled) are there.
    init(layout: PackLayout, local: [EntryHash: LocalEntry], done: [Range<UInt64>], file: WritableFile, label: String) throws {
        let have = layout.tailOffset
        var fetch: [Range<UInt64>] = []
        var headersToMake: [PackLayout.Entry] = []
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
            if let hash = location.sha256, let source = local[hash], try Self.copy(source, to: file, at: span.lowerBound, expecting: hash, label: label) {
                bytesReused += location.size
                entriesReused += 1
            } else {
                fetch.append(span)
                fetched.append(location)
            }
        }
        ranges = ByteRanges.coalesced(fetch)
        for item in headersToMake {
            guard let header = item.header else { continue }
            let span = item.location.headerOffset..<item.location.dataOffset
            // A fetched range that covers the header brings it anyway.
            if let covering = ByteRanges.covering(ranges, span.lowerBound), covering.upperBound >= span.upperBound { continue }
            do {
                try file.write(header, at: span.lowerBound)
            } catch {
                throw DeliveryError.fileSystem(error, item: label)
            }
        }
    }

    /// Copies an installed entry's bytes into the partial file at `offset` if their SHA-256 is
    /// `expected`; `false` (nothing written) when they differ: the installed pack is damaged.
    private static func copy(_ source: LocalEntry, to file: WritableFile, at offset: UInt64, expecting expected: EntryHash, label: String) throws -> Bool {
        let bytes: PackData
        do {
            bytes = try source.pack.data(for: source.entry)
        } catch {
            return false
        }
        let matches = bytes.withUnsafeBytes { EntryHash.of($0) == expected }
        guard matches else { return false }
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
            guard got > 0 else { throw PackError(.io, "the file ended at \(offset), before \(range.upperBound)", path: file.path, offset: offset) }
            hasher.update(UnsafeRawBufferPointer(rebasing: buffer[0..<got]))
            offset += UInt64(got)
        }
        return hasher.finish()
    }
}
