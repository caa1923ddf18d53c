import Dispatch

/// What ``Pack/verify()`` checked.
public struct VerificationReport: Sendable, Equatable {
    /// The number of entries checked (the index included).
    public var entryCount: Int
    /// The bytes whose CRC-32 was checked (after inflating, for deflated entries).
    public var checkedBytes: UInt64
    /// The entries whose SHA-256 was checked against the index (format 2; 0 for format 1).
    public var hashedEntries: Int = 0
}

extension Pack {
    /// The strict, complete check of the whole pack.
    ///
    /// Walks the central directory and every local header and checks that they agree with each
    /// other and with the index; checks the CRC-32 of every entry and, in format 2, its SHA-256
    /// (so bytes changed to keep their CRC are still found); that no two entries' bytes
    /// overlap; that names are safe and unique, also on case-insensitive file systems. For packs
    /// with an index, also: every entry stored, UTF-8 flagged and aligned, the index last, its
    /// metadata and digest matching the entries.
    ///
    /// - Returns: what was checked.
    /// - Throws: the first problem found, as a ``PackError`` naming the entry and offset.
    @discardableResult
    public func verify() throws(PackError) -> VerificationReport {
        do {
            return try verifyAll(checkingData: true)
        } catch {
            throw error.at(path: path)
        }
    }

    /// ``verify()`` of the records only: the central directory, every local header, offsets,
    /// overlaps, the index and the digest, but not the entries' bytes nor the names' safety and
    /// collisions. The builder uses it on the pack it has just written: it checked the names
    /// before writing and checksummed the bytes as it wrote them.
    func verifyStructure() throws(PackError) {
        do {
            try verifyAll(checkingData: false)
        } catch {
            throw error.at(path: path)
        }
    }

    @discardableResult
    /// - Parameter checkingData: also the bytes' CRC-32s and the names (`false` for the builder).
    private func verifyAll(checkingData: Bool) throws(PackError) -> VerificationReport {
        let records = try CentralDirectory.read(source: source, end: endRecord)
        guard records.count == table.count else {
            throw PackError(
                .indexMismatch, "the central directory has \(records.count) entries, the index \(table.count)")
        }
        var spans: [(start: UInt64, end: UInt64, entry: Int)] = []
        spans.reserveCapacity(records.count)
        var collisionKeys: [String: Int] = [:]
        var checkedBytes: UInt64 = 0
        var digest = metadata.map {
            ManifestDigest(
                format: $0.formatVersion, name: $0.name, locale: $0.locale, contentVersion: $0.contentVersion,
                alignment: $0.alignment)
        }
        var hashedEntries = 0
        // Format 2: every listed SHA-256, from one read of the index.
        let listed = try listedHashes()
        // The entries' bytes are checked after the records, on every core (see ``checkData``).
        var dataChecks: [DataCheck] = []
        for (number, central) in records.enumerated() {
            let name = CentralDirectory.utf8Name(central)
            func problem(_ code: PackError.Code, _ detail: String, offset: UInt64? = nil) -> PackError {
                PackError(code, detail, entry: String(decoding: name, as: UTF8.self), offset: offset ?? central.recordOffset)
            }
            let row = table.row(number)
            var listedHash: EntryHash?
            // Central directory against the table (the index, for our packs).
            guard table.pathBytes(number).elementsEqual(name) else {
                throw problem(.indexMismatch, "entry \(number) is \"\(table.path(number))\" in the index")
            }
            guard central.crc32 == row.crc32, central.size == row.size,
                central.compressedSize == table.compressedSize(number)
            else { throw problem(.indexMismatch, "CRC or size differs from the index") }
            if central.flags & ZipConstants.flagEncrypted != 0 { throw problem(.encrypted, "") }
            // Local header against the central directory.
            let local = try LocalHeader.parse(
                in: source, headerOffset: central.localHeaderOffset, limit: endRecord.directoryOffset)
            guard local.name == central.name else {
                throw problem(.headerMismatch, "local header names \"\(String(decoding: local.name, as: UTF8.self))\"",
                    offset: central.localHeaderOffset)
            }
            if let mismatch = local.disagreement(
                withName: name[...], method: central.method, flags: central.flags, crc32: central.crc32,
                size: central.size, compressedSize: central.compressedSize)
            {
                throw problem(.headerMismatch, mismatch, offset: central.localHeaderOffset)
            }
            if row.dataOffset != .max, row.dataOffset != local.dataOffset {
                throw problem(
                    .indexMismatch, "data starts at \(local.dataOffset), the index says \(row.dataOffset)",
                    offset: central.localHeaderOffset)
            }
            guard local.dataOffset <= endRecord.directoryOffset,
                central.compressedSize <= endRecord.directoryOffset - local.dataOffset
            else { throw problem(.entryOutOfBounds, "data runs past the central directory", offset: local.dataOffset) }
            spans.append((central.localHeaderOffset, local.dataOffset + central.compressedSize, number))
            // Names.
            if checkingData {
                if let unsafe = PackPath.problem(with: name, allowDirectory: metadata == nil) {
                    throw problem(.unsafeName, unsafe)
                }
                let key = PackPath.collisionKey(String(decoding: name, as: UTF8.self))
                if let other = collisionKeys.updateValue(number, forKey: key) {
                    throw problem(.nameCollision, "collides with \"\(table.path(other))\"")
                }
            }
            // Our packs: the format contract.
            if let metadata {
                guard central.method == ZipConstants.methodStored, local.flags == central.flags,
                    central.flags & ZipConstants.flagUTF8 != 0, central.flags & ZipConstants.flagDataDescriptor == 0
                else { throw problem(.indexMismatch, "not stored with the UTF-8 flag and no data descriptor") }
                guard local.dataOffset % UInt64(metadata.alignment) == 0 else {
                    throw problem(
                        .misaligned, "data at \(local.dataOffset) is not a multiple of \(metadata.alignment)",
                        offset: local.dataOffset)
                }
                if number < records.count - 1 {
                    listedHash = listed.flatMap { number < $0.count ? $0[number] : nil }
                    if metadata.formatVersion >= 2, listedHash == nil {
                        throw problem(.badIndex, "the index lists no SHA-256 for it")
                    }
                    digest?.add(path: name, size: central.size, crc32: central.crc32, sha256: listedHash)
                } else if !name.elementsEqual(PackPath.indexPath.utf8) {
                    throw problem(.badIndex, "the last entry is not \(PackPath.indexPath)")
                }
            }
            // The bytes: checked below, once every record has been.
            guard checkingData else { continue }
            dataChecks.append(
                DataCheck(
                    number: number, name: name, crc32: central.crc32, sha256: listedHash, dataOffset: local.dataOffset,
                    size: central.compressedSize, stored: central.method == ZipConstants.methodStored && central.size == central.compressedSize))
            if listedHash != nil { hashedEntries += 1 }
        }
        checkedBytes = try checkData(dataChecks)
        // A file whose name is also a folder's (`a` and `a/b`) cannot be extracted.
        var checkedFolders = Set<String>()
        for number in 0..<table.count where checkingData {
            var folder = Substring(table.path(number))
            if folder.hasSuffix("/") { folder = folder.dropLast() }
            while let slash = folder.lastIndex(of: "/") {
                folder = folder[..<slash]
                let key = PackPath.collisionKey(String(folder))
                guard checkedFolders.insert(key).inserted else { break }
                if let file = collisionKeys[key] {
                    throw PackError(
                        .nameCollision, "is a file and also the folder of \"\(table.path(number))\"",
                        entry: table.path(file))
                }
            }
        }
        spans.sort { $0.start < $1.start }
        for (previous, next) in zip(spans, spans.dropFirst()) where next.start < previous.end {
            throw PackError(
                .overlappingEntries, "overlaps \"\(table.path(previous.entry))\"", entry: table.path(next.entry),
                offset: next.start)
        }
        if let metadata, var digest {
            let computed = digest.finish()
            guard computed == metadata.digest else {
                throw PackError(
                    .indexMismatch, "digest is \(computed), the index says \(metadata.digest)",
                    entry: PackPath.indexPath)
            }
        }
        return VerificationReport(entryCount: records.count, checkedBytes: checkedBytes, hashedEntries: hashedEntries)
    }
}

/// One entry's bytes to check: its CRC-32 and, in format 2, its SHA-256.
private struct DataCheck: Sendable {
    let number: Int
    let name: [UInt8]
    let crc32: UInt32
    let sha256: EntryHash?
    let dataOffset: UInt64
    /// The bytes stored.
    let size: UInt64
    /// Stored as is (its bytes can be read straight from the file).
    let stored: Bool
}

/// Per entry, the failure found (or nil) and the bytes checked: memory each worker writes only
/// at its own entries' indices, read after all workers are done.
private final class DataCheckResults: @unchecked Sendable {
    let failures: UnsafeMutableBufferPointer<PackError?>
    let bytes: UnsafeMutableBufferPointer<UInt64>

    init(count: Int) {
        failures = .allocate(capacity: count)
        failures.initialize(repeating: nil)
        bytes = .allocate(capacity: count)
        bytes.initialize(repeating: 0)
    }

    deinit {
        failures.deinitialize()
        failures.deallocate()
        bytes.deallocate()
    }
}

extension Pack {
    /// Checks every entry's bytes against its CRC-32 and listed SHA-256, the entries shared out
    /// over the machine's cores in contiguous runs; reports the first failing entry in entry
    /// order, as a sequential check would. Returns the bytes checked.
    /// The most bytes ``checkData(_:)`` reads at a time.
    static let verifyBlock: UInt64 = 8 << 20

    /// Every entry's listed SHA-256, from one read of a format-2 index; `nil` for format 1 and
    /// other zips.
    func listedHashes() throws(PackError) -> [EntryHash]? {
        guard let metadata, metadata.formatVersion >= 2, let index = try indexData() else { return nil }
        let count = table.hashedCount
        return try index.withUnsafeBytes { (raw) throws(PackError) -> [EntryHash] in
            var hashes: [EntryHash] = []
            hashes.reserveCapacity(count)
            for number in 0..<count {
                let position = Int(table.hashPositions[number])
                guard position + 64 <= raw.count, let hash = EntryHash(hexDigits: UnsafeRawBufferPointer(rebasing: raw[position..<position + 64]))
                else { throw PackError(.badIndex, "the SHA-256 listed for entry \(number) is not hex", entry: PackPath.indexPath) }
                hashes.append(hash)
            }
            return hashes
        }
    }

    private func checkData(_ checks: [DataCheck]) throws(PackError) -> UInt64 {
        guard !checks.isEmpty else { return 0 }
        let results = DataCheckResults(count: checks.count)
        let lanes = min(Platform.processorCount, max(1, checks.count / 64), 8)
        let run = (checks.count + lanes - 1) / lanes
        DispatchQueue.concurrentPerform(iterations: lanes) { lane in
            let start = lane * run
            let end = min(start + run, checks.count)
            guard start < end else { return }
            // Stored entries lie one after another: read up to 8 MiB of them at a time (one read
            // each, not one per entry), then check each entry's bytes in place.
            var block: (start: UInt64, bytes: PackData)?
            for index in start..<end {
                let check = checks[index]
                do throws(PackError) {
                    let bytes: PackData
                    if check.stored, check.size <= Self.verifyBlock {
                        if block.map({ check.dataOffset < $0.start || check.dataOffset + check.size > $0.start + UInt64($0.bytes.count) }) ?? true {
                            var blockEnd = check.dataOffset + check.size
                            var next = index + 1
                            while next < end, checks[next].stored, checks[next].dataOffset >= blockEnd,
                                checks[next].dataOffset + checks[next].size - check.dataOffset <= Self.verifyBlock
                            {
                                blockEnd = checks[next].dataOffset + checks[next].size
                                next += 1
                            }
                            block = (check.dataOffset, try source.bytes(at: check.dataOffset, count: Int(blockEnd - check.dataOffset)))
                        }
                        guard let block else { continue }
                        let from = Int(check.dataOffset - block.start)
                        bytes = block.bytes[block.bytes.startIndex + from..<block.bytes.startIndex + from + Int(check.size)]
                    } else {
                        bytes = try data(entryNumber: check.number)
                    }
                    let crc = bytes.withUnsafeBytes { CRC32.checksum($0) }
                    guard crc == check.crc32 else {
                        throw PackError(
                            .crcMismatch, "data has CRC \(hex32(crc)), the headers say \(hex32(check.crc32))",
                            entry: String(decoding: check.name, as: UTF8.self), offset: check.dataOffset)
                    }
                    if let listed = check.sha256 {
                        let actual = bytes.withUnsafeBytes { EntryHash.of($0) }
                        guard actual == listed else {
                            throw PackError(
                                .sha256Mismatch, "data has SHA-256 \(actual.hex), the index says \(listed.hex)",
                                entry: String(decoding: check.name, as: UTF8.self), offset: check.dataOffset)
                        }
                    }
                    results.bytes[index] = UInt64(bytes.count)
                } catch {
                    results.failures[index] = error
                    // Later entries of this run cannot be the first failure.
                    return
                }
            }
        }
        if let first = results.failures.first(where: { $0 != nil }), let failure = first { throw failure }
        return results.bytes.reduce(0, +)
    }

    /// The JSON index a pack of this zip's files would carry (for zips without one): files in
    /// path order with their real entry numbers and data offsets; folder entries left out.
    public func synthesizedIndex() throws(PackError) -> [UInt8] {
        if let index = try indexData() { return Array(index) }
        let name = PackMetadata.defaultName(forFile: path)
        var digest = ManifestDigest(format: 1, name: name, locale: nil, contentVersion: nil, alignment: 1)
        var entries: [ZipEntryLocation] = []
        for position in 0..<table.count {
            let number = table.sorted(position)
            let row = table.row(number)
            guard table.pathBytes(number).last != UInt8(ascii: "/") else { continue }
            let offset = try dataOffset(entryNumber: number)
            digest.add(path: table.pathBytes(number), size: row.size, crc32: row.crc32, sha256: nil)
            entries.append(
                ZipEntryLocation(
                    number: number, path: Array(table.pathBytes(number)), headerOffset: table.localHeaderOffset(number),
                    dataOffset: offset, size: row.size, crc32: row.crc32))
        }
        let metadata = PackMetadata(
            formatVersion: 1, name: name, alignment: 1, entryCount: entries.count, digest: digest.finish())
        return IndexWriter.json(metadata: metadata, entries: entries)
    }
}
