import Dispatch

extension Pack {
    /// Reads the end records, then the index they point to or, for other zips, the directory.
    static func open(_ source: ByteSource) throws(PackError) -> (EndRecord, PackMetadata?, EntryTable) {
        let end = try EndRecord.locate(in: source)
        if let location = IndexLocation(comment: end.comment) {
            let (metadata, table) = try openIndex(location, source: source, end: end)
            return (end, metadata, table)
        }
        return (end, nil, try openCentralDirectory(source: source, end: end))
    }

    /// Opens through the index named by the end record's comment; never walks the directory.
    static func openIndex(
        _ location: IndexLocation, source: ByteSource, end: EndRecord
    ) throws(PackError) -> (PackMetadata, EntryTable) {
        guard location.offset != .max else {
            throw PackError(.badIndex, "malformed end record comment", at: .pack(offset: end.offset))
        }
        guard location.offset <= end.directoryOffset, location.size <= end.directoryOffset - location.offset,
            location.size <= UInt64(Int.max)
        else {
            throw PackError(
                .badIndex,
                "index (\(location.size) bytes at \(location.offset)) lies outside the entries' data, which ends at \(end.directoryOffset)",
                at: .pack(offset: end.offset))
        }
        let bytes = try source.bytes(at: location.offset, count: Int(location.size))
        // A large index is checksummed on another core while it is parsed; a CRC mismatch is
        // still the error reported, whatever the parser found.
        let (result, crc) = bytes.withUnsafeBytes { buffer in
            IndexChecksum.computing(buffer, concurrently: buffer.count >= IndexChecksum.concurrentFrom) {
                Result { () throws(IndexParser.Failure) in
                    try IndexParser.parse(buffer, pathBudget: Int(min(end.directorySize, UInt64(Int.max))))
                }
            }
        }
        guard crc == location.crc32 else {
            throw PackError(
                .crcMismatch, "index CRC is \(hex32(crc)), the end record says \(hex32(location.crc32))",
                at: .pack(entry: PackPath.indexPath, offset: location.offset))
        }
        var parsed: (PackMetadata, EntryTable)
        switch result {
        case .success(let value): parsed = value
        case .failure(let error):
            throw PackError(
                .badIndex, error.detail, at: .pack(entry: PackPath.indexPath, offset: location.offset + UInt64(error.position)))
        }
        // The index's pages are not needed after parsing: give them back.
        source.release(location.offset, Int(location.size))
        let (metadata, contentCount) = (parsed.0, parsed.1.count)
        guard end.entryCount == UInt64(contentCount) + 1 else {
            throw PackError(
                .indexMismatch,
                "the index lists \(contentCount) files but the central directory has \(end.entryCount) entries (expected \(contentCount + 1))",
                at: .pack(offset: end.offset))
        }
        guard isValidAlignment(metadata.alignment) else {
            throw PackError(
                .badIndex, "alignment \(metadata.alignment) is not a power of two from 1 to \(ZipConstants.maxAlignment)",
                at: .pack(entry: PackPath.indexPath))
        }
        // Every entry's data must lie after at least a local header and before the index.
        let minimumHeader = UInt64(ZipConstants.localHeaderSize)
        for number in 0..<contentCount {
            let row = parsed.1.row(number)
            guard row.dataOffset >= minimumHeader + UInt64(row.pathLength),
                row.dataOffset <= location.offset, row.size <= location.offset - row.dataOffset
            else {
                throw PackError(
                    .entryOutOfBounds,
                    "\(row.size) bytes at \(row.dataOffset) are not inside the entries' data (before \(location.offset))",
                    at: .pack(entry: parsed.1.path(number), offset: row.dataOffset))
            }
        }
        parsed.1.append(
            path: PackPath.indexPath.utf8, dataOffset: location.offset, size: location.size, crc32: location.crc32,
            method: ZipConstants.methodStored, flags: ZipConstants.flagUTF8)
        if let (first, second) = parsed.1.finish() {
            throw PackError(
                .duplicateName, "entries \(first) and \(second) have the same name", at: .pack(entry: parsed.1.path(first)))
        }
        return (metadata, parsed.1)
    }

    /// Opens a zip without our index by walking its central directory.
    static func openCentralDirectory(source: ByteSource, end: EndRecord) throws(PackError) -> EntryTable {
        let records = try CentralDirectory.read(source: source, end: end)
        var table = EntryTable(expectedCount: records.count, expectedPathBytes: records.count * 24)
        for record in records {
            guard record.localHeaderOffset <= end.directoryOffset,
                end.directoryOffset - record.localHeaderOffset >= UInt64(ZipConstants.localHeaderSize),
                record.compressedSize
                    <= end.directoryOffset - record.localHeaderOffset - UInt64(ZipConstants.localHeaderSize)
            else {
                throw PackError(
                    .entryOutOfBounds,
                    "local header at \(record.localHeaderOffset) with \(record.compressedSize) bytes of data runs past the central directory at \(end.directoryOffset)",
                    at: .pack(entry: CentralDirectory.displayName(record), offset: record.recordOffset))
            }
            if record.method == ZipConstants.methodStored, record.flags & ZipConstants.flagEncrypted == 0,
                record.size != record.compressedSize
            {
                throw PackError(
                    .sizeMismatch, "stored entry has size \(record.size) but \(record.compressedSize) bytes",
                    at: .pack(entry: CentralDirectory.displayName(record), offset: record.recordOffset))
            }
            table.append(
                path: CentralDirectory.utf8Name(record), dataOffset: .max, size: record.size, crc32: record.crc32,
                method: record.method, flags: record.flags, localHeaderOffset: record.localHeaderOffset,
                compressedSize: record.compressedSize)
        }
        if let (first, second) = table.finish() {
            throw PackError(
                .duplicateName, "entries \(first) and \(second) have the same name", at: .pack(entry: table.path(first), offset: records[second].recordOffset))
        }
        return table
    }
}

/// The CRC-32 of an index, computed on a worker thread for large indexes (overlapping the
/// parse) or right away for small ones.
enum IndexChecksum {
    /// From this size on, a second core pays for the thread hand-over.
    static let concurrentFrom = 256 << 10

    /// Runs `body` while the CRC-32 of `bytes` is computed, and returns both. The worker is
    /// waited for before this returns, so it never outlives the borrowed bytes.
    static func computing<Result>(
        _ bytes: UnsafeRawBufferPointer, concurrently: Bool, _ body: () -> Result
    ) -> (Result, UInt32) {
        guard concurrently else { return (body(), CRC32.checksum(bytes)) }
        let worker = Worker(bytes)
        let group = DispatchGroup()
        DispatchQueue.global(qos: .userInitiated).async(group: group) { worker.run() }
        let result = body()
        group.wait()
        return (result, worker.crc)
    }

    /// The worker's input and output. `@unchecked Sendable`: the worker writes `crc` once, and it
    /// is read only after the group has been waited for, which orders the write before the read.
    private final class Worker: @unchecked Sendable {
        let bytes: UnsafeRawBufferPointer
        var crc: UInt32 = 0

        init(_ bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

        func run() { crc = CRC32.checksum(bytes) }
    }
}
