import Dispatch

// The per-entry half of verify: each entry's local header against its central record and the
// index, its bytes against the CRC-32 and the listed SHA-256, the entries shared out over the
// cores in contiguous runs read a block at a time.

/// One entry to check against its local header and, when verifying, its bytes.
struct EntryCheck: Sendable {
    let number: Int
    /// The name as UTF-8.
    let name: [UInt8]
    let central: ZipCentralRecord
    /// Where the index says the bytes start (`.max` for zips without one).
    let listedDataOffset: UInt64
    /// The SHA-256 to check the bytes against (format 2, when verifying).
    let sha256: EntryHash?
    /// The builder's writer, to hold the local header to its bytes (format 2, when verifying).
    let canonicalWriter: ZipWriter?

    /// Stored as is (its bytes can be read straight from the file).
    var stored: Bool { central.method == ZipConstants.methodStored && central.size == central.compressedSize }

    /// From the local header to the end of the bytes, by the index, if both lie in `0..<limit`
    /// and take at most `most` bytes: the part of the file a block read covers.
    func region(below limit: UInt64, most: UInt64) -> Range<UInt64>? {
        let start = central.localHeaderOffset
        // Offsets come from the file: compared without sums that could overflow.
        guard stored, listedDataOffset != .max, listedDataOffset >= start,
            listedDataOffset - start >= UInt64(ZipConstants.localHeaderSize), listedDataOffset <= limit, central.compressedSize <= limit - listedDataOffset,
            listedDataOffset + central.compressedSize - start <= most
        else { return nil }
        return start..<listedDataOffset + central.compressedSize
    }
}

/// Per entry, the failure found (or nil), where its bytes start and the bytes checked: memory
/// each worker writes only at its own entries' indices, read after all workers are done.
final class EntryCheckResults: @unchecked Sendable {
    let failures: UnsafeMutableBufferPointer<PackError?>
    let dataOffsets: UnsafeMutableBufferPointer<UInt64>
    let bytes: UnsafeMutableBufferPointer<UInt64>
    /// Whether the entry's local header is not the builder's (format 2).
    let nonCanonical: UnsafeMutableBufferPointer<Bool>

    init(count: Int) {
        failures = .allocate(capacity: count)
        failures.initialize(repeating: nil)
        nonCanonical = .allocate(capacity: count)
        nonCanonical.initialize(repeating: false)
        dataOffsets = .allocate(capacity: count)
        dataOffsets.initialize(repeating: 0)
        bytes = .allocate(capacity: count)
        bytes.initialize(repeating: 0)
    }

    deinit {
        failures.deinitialize()
        failures.deallocate()
        nonCanonical.deallocate()
        dataOffsets.deallocate()
        bytes.deallocate()
    }
}

extension Pack {
    /// The most bytes ``checkEntries(_:checkingData:entry:alongside:)`` reads at a time: small
    /// enough that the bytes are still in the cache when they are checksummed.
    static let verifyBlock: UInt64 = 256 << 10

    /// Every entry's listed SHA-256, from one read of a format-2 index; `nil` for format 1 and
    /// other zips.
    func listedHashes() throws(PackError) -> [EntryHash]? {
        guard let metadata, metadata.formatVersion >= 2, let index = try indexData() else { return nil }
        return try Self.listedHashes(table, index: index)
    }

    /// The SHA-256s `table` lists (format 2), read from `index`, the index's bytes.
    static func listedHashes(_ table: EntryTable, index: PackData) throws(PackError) -> [EntryHash] {
        let count = table.hashedCount
        return try index.withUnsafeBytes { (raw) throws(PackError) -> [EntryHash] in
            var hashes: [EntryHash] = []
            hashes.reserveCapacity(count)
            for number in 0..<count {
                let position = Int(table.hashPositions[number])
                guard position >= 0, position <= raw.count - 64,
                    let hash = EntryHash(hexDigits: UnsafeRawBufferPointer(rebasing: raw[position..<position + 64]))
                else { throw PackError(.badIndex, "the SHA-256 listed for entry \(number) is not hex", at: .pack(entry: PackPath.indexPath)) }
                hashes.append(hash)
            }
            return hashes
        }
    }

    /// Checks every entry's local header against its central record and the index and, when
    /// `checkingData`, its bytes against the CRC-32 and listed SHA-256, while one worker runs
    /// `alongside`. The entries are shared out over the machine's cores in contiguous runs;
    /// stored entries lie one after another, so a run reads up to 256 KiB of headers and bytes at
    /// a time (one read, not two per entry, and still in the cache when they are checked).
    /// - Returns: where each entry's bytes start, by its local header; the bytes checked; the
    ///   first failing entry's error, in entry order, as a sequential check would find it.
    func checkEntries(
        _ count: Int, checkingData: Bool, entry: @Sendable (Int) -> EntryCheck, alongside: @Sendable () -> Void
    ) -> (dataOffsets: [UInt64], checkedBytes: UInt64, failure: PackError?, firstNonCanonicalHeader: Int?) {
        let results = EntryCheckResults(count: count)
        let runs = min(max(1, count / 64), 8 * Platform.processorCount)
        let run = (count + runs - 1) / max(1, runs)
        let limit = endRecord.directoryOffset
        // Reading a block only pays when the bytes are checked too, or cost nothing to look at.
        let blockMost: UInt64
        switch source {
        case .file: blockMost = checkingData ? Self.verifyBlock : 0
        case .mapped, .tail: blockMost = Self.verifyBlock
        }
        // Iteration 0 runs `alongside`; each other one, a run of entries.
        DispatchQueue.concurrentPerform(iterations: 1 + (count == 0 ? 0 : runs)) { iteration in
            guard iteration > 0 else { return alongside() }
            let start = (iteration - 1) * run
            let end = min(start + run, count)
            guard start < end else { return }
            let scratch: UnsafeMutableRawBufferPointer
            if case .file = source, blockMost > 0 {
                scratch = .allocate(byteCount: Int(blockMost), alignment: 64)
            } else {
                scratch = UnsafeMutableRawBufferPointer(start: nil, count: 0)
            }
            defer { scratch.deallocate() }
            var block: (start: UInt64, bytes: UnsafeRawBufferPointer)?
            var next = entry(start)
            for index in start..<end {
                let check = next
                if index + 1 < end { next = entry(index + 1) }
                do throws(PackError) {
                    var view: UnsafeRawBufferPointer?
                    if let region = check.region(below: limit, most: blockMost) {
                        if block.map({ region.lowerBound < $0.start || region.upperBound > $0.start + UInt64($0.bytes.count) }) ?? true {
                            // As many of the next entries as fit, one read.
                            var blockEnd = region.upperBound
                            var ahead = index + 1
                            while ahead < end, let more = entry(ahead).region(below: limit, most: blockMost),
                                more.lowerBound >= blockEnd, more.upperBound - region.lowerBound <= blockMost
                            {
                                blockEnd = more.upperBound
                                ahead += 1
                            }
                            block = (region.lowerBound, try source.bytes(at: region.lowerBound, count: Int(blockEnd - region.lowerBound), scratch: scratch))
                        }
                        if let block {
                            let from = Int(region.lowerBound - block.start)
                            view = UnsafeRawBufferPointer(rebasing: block.bytes[from..<from + Int(region.upperBound - region.lowerBound)])
                        }
                    }
                    let (dataOffset, checked) = try checkEntry(check, view: view, limit: limit, checkingData: checkingData)
                    results.dataOffsets[index] = dataOffset
                    results.bytes[index] = checked
                    if let writer = check.canonicalWriter {
                        let expected = Self.canonicalLocalHeader(check.central, writer: writer)
                        let headerOffset = check.central.localHeaderOffset
                        let header: PackData? = view == nil ? try source.bytes(at: headerOffset, count: Int(dataOffset - headerOffset)) : nil
                        let same = if let view { UnsafeRawBufferPointer(rebasing: view[0..<Int(dataOffset - headerOffset)]).elementsEqual(expected) }
                            else { header?.withUnsafeBytes { $0.elementsEqual(expected) } ?? false }
                        results.nonCanonical[index] = !same
                    }
                } catch {
                    results.failures[index] = error
                    // Later entries of this run cannot be the first failure.
                    return
                }
            }
        }
        let failure = results.failures.first(where: { $0 != nil }) ?? nil
        return (Array(results.dataOffsets), results.bytes.reduce(0, +), failure, results.nonCanonical.firstIndex(of: true))
    }

    /// One entry: its local header against its central record and the index, then (when
    /// `checkingData`) its bytes. `view` is the file from the local header to the end of the
    /// bytes by the index, when a block read has it. Returns where the bytes start and how many
    /// were checked.
    private func checkEntry(
        _ check: EntryCheck, view: UnsafeRawBufferPointer?, limit: UInt64, checkingData: Bool
    ) throws(PackError) -> (UInt64, UInt64) {
        let central = check.central
        func problem(_ code: PackError.Code, _ detail: String, offset: UInt64) -> PackError {
            PackError(code, detail, at: .pack(entry: String(decoding: check.name, as: UTF8.self), offset: offset))
        }
        let headerOffset = central.localHeaderOffset
        let local: LocalHeader
        do throws(PackError) {
            var parsed: LocalHeader?
            if let view { parsed = try LocalHeader.parse(view, at: headerOffset, limit: limit) }
            if let parsed { local = parsed } else { local = try LocalHeader.parse(in: source, headerOffset: headerOffset, limit: limit) }
        } catch {
            // Which entry's header could not be read.
            var named = error
            if named.location.entry == nil { named.location.entry = String(decoding: check.name, as: UTF8.self) }
            throw named
        }
        guard local.name == central.name else {
            throw problem(
                .headerMismatch, "local header names \"\(String(decoding: local.name, as: UTF8.self))\"", offset: headerOffset)
        }
        if let mismatch = local.disagreement(
            withName: check.name[...], method: central.method, flags: central.flags, crc32: central.crc32,
            size: central.size, compressedSize: central.compressedSize)
        {
            throw problem(.headerMismatch, mismatch, offset: headerOffset)
        }
        if check.listedDataOffset != .max, check.listedDataOffset != local.dataOffset {
            throw problem(
                .indexMismatch, "data starts at \(local.dataOffset), the index says \(check.listedDataOffset)",
                offset: headerOffset)
        }
        guard local.dataOffset <= limit, central.compressedSize <= limit - local.dataOffset else {
            throw problem(.entryOutOfBounds, "data runs past the central directory", offset: local.dataOffset)
        }
        if metadata != nil, local.flags != central.flags {
            throw problem(.indexMismatch, "the local header's flags differ from the directory's", offset: headerOffset)
        }
        guard checkingData else { return (local.dataOffset, 0) }
        func checkBytes(_ bytes: UnsafeRawBufferPointer) throws(PackError) -> UInt64 {
            let crc = CRC32.checksum(bytes)
            guard crc == central.crc32 else {
                throw problem(
                    .crcMismatch, "data has CRC \(hex32(crc)), the headers say \(hex32(central.crc32))",
                    offset: local.dataOffset)
            }
            if let listed = check.sha256 {
                let actual = EntryHash.of(bytes)
                guard actual == listed else {
                    throw problem(
                        .sha256Mismatch, "data has SHA-256 \(actual.hex), the index says \(listed.hex)",
                        offset: local.dataOffset)
                }
            }
            return UInt64(bytes.count)
        }
        if let view, check.stored {
            let from = Int(local.dataOffset - headerOffset)
            return (local.dataOffset, try checkBytes(UnsafeRawBufferPointer(rebasing: view[from...])))
        }
        let bytes = try data(entryNumber: check.number)
        return (local.dataOffset, try bytes.withUnsafeBytes { (raw) throws(PackError) -> UInt64 in try checkBytes(raw) })
    }
}
