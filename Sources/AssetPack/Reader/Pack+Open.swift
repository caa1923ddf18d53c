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
            throw PackError(.badIndex, "malformed end record comment", offset: end.offset)
        }
        guard location.offset <= end.directoryOffset, location.size <= end.directoryOffset - location.offset,
            location.size <= UInt64(Int.max)
        else {
            throw PackError(
                .badIndex,
                "index (\(location.size) bytes at \(location.offset)) lies outside the entries' data, which ends at \(end.directoryOffset)",
                offset: end.offset)
        }
        let bytes = try source.bytes(at: location.offset, count: Int(location.size))
        var parsed: (PackMetadata, EntryTable)
        do {
            parsed = try bytes.withUnsafeBytes { (buffer) throws(PackError) in
                // A large index is checksummed on another core while it is parsed; a CRC
                // mismatch is still the error reported, whatever the parser found.
                let checksum = IndexChecksum(buffer, concurrently: buffer.count >= IndexChecksum.concurrentFrom)
                let result = Result { () throws(IndexParser.Failure) in
                    try IndexParser.parse(buffer, pathBudget: Int(min(end.directorySize, UInt64(Int.max))))
                }
                let crc = checksum.value()
                guard crc == location.crc32 else {
                    throw PackError(
                        .crcMismatch, "index CRC is \(hex32(crc)), the end record says \(hex32(location.crc32))",
                        entry: PackPath.indexPath, offset: location.offset)
                }
                switch result {
                case .success(let parsed): return parsed
                case .failure(let error):
                    throw PackError(
                        .badIndex, error.detail, entry: PackPath.indexPath,
                        offset: location.offset + UInt64(error.position))
                }
            }
        }
        // The index's pages are not needed after parsing: give them back.
        source.release(location.offset, Int(location.size))
        let (metadata, contentCount) = (parsed.0, parsed.1.count)
        guard end.entryCount == UInt64(contentCount) + 1 else {
            throw PackError(
                .indexMismatch,
                "the index lists \(contentCount) files but the central directory has \(end.entryCount) entries (expected \(contentCount + 1))",
                offset: end.offset)
        }
        guard metadata.alignment > 0, metadata.alignment <= 65_536, metadata.alignment & (metadata.alignment - 1) == 0
        else { throw PackError(.badIndex, "alignment \(metadata.alignment) is not a power of two", entry: PackPath.indexPath) }
        // Every entry's data must lie after at least a local header and before the index.
        let minimumHeader = UInt64(ZipConstants.localHeaderSize)
        for number in 0..<contentCount {
            let record = parsed.1.record(number)
            guard record.dataOffset >= minimumHeader + UInt64(record.pathLength),
                record.dataOffset <= location.offset, record.size <= location.offset - record.dataOffset
            else {
                throw PackError(
                    .entryOutOfBounds,
                    "\(record.size) bytes at \(record.dataOffset) are not inside the entries' data (before \(location.offset))",
                    entry: parsed.1.path(number), offset: record.dataOffset)
            }
        }
        parsed.1.append(
            path: Array(PackPath.indexPath.utf8),
            record: EntryRecord(
                pathStart: 0, pathLength: 0, dataOffset: location.offset, localHeaderOffset: .max,
                compressedSize: location.size, size: location.size, crc32: location.crc32,
                method: ZipConstants.methodStored, flags: ZipConstants.flagUTF8))
        if let (first, second) = parsed.1.finish() {
            throw PackError(
                .duplicateName, "entries \(first) and \(second) have the same name", entry: parsed.1.path(first))
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
                    entry: CentralDirectory.displayName(record), offset: record.recordOffset)
            }
            if record.method == ZipConstants.methodStored, record.flags & ZipConstants.flagEncrypted == 0,
                record.size != record.compressedSize
            {
                throw PackError(
                    .sizeMismatch, "stored entry has size \(record.size) but \(record.compressedSize) bytes",
                    entry: CentralDirectory.displayName(record), offset: record.recordOffset)
            }
            table.append(
                path: CentralDirectory.utf8Name(record),
                record: EntryRecord(
                    pathStart: 0, pathLength: 0, dataOffset: .max, localHeaderOffset: record.localHeaderOffset,
                    compressedSize: record.compressedSize, size: record.size, crc32: record.crc32,
                    method: record.method, flags: record.flags))
        }
        if let (first, second) = table.finish() {
            throw PackError(
                .duplicateName, "entries \(first) and \(second) have the same name", entry: table.path(first),
                offset: records[second].recordOffset)
        }
        return table
    }
}

/// The CRC-32 of an index, computed on a worker thread for large indexes (overlapping the
/// parse) or right away for small ones. ``value()`` must be called before the bytes go away.
final class IndexChecksum: @unchecked Sendable {
    /// From this size on, a second core pays for the thread hand-over.
    static let concurrentFrom = 256 << 10

    private let bytes: UnsafeRawBufferPointer
    private var crc: UInt32 = 0
    private let group = DispatchGroup()

    init(_ bytes: UnsafeRawBufferPointer, concurrently: Bool) {
        self.bytes = bytes
        if concurrently {
            DispatchQueue.global(qos: .userInitiated).async(group: group) { self.crc = CRC32.checksum(self.bytes) }
        } else {
            crc = CRC32.checksum(bytes)
        }
    }

    /// Waits for the checksum (the group orders the worker's write before this read).
    func value() -> UInt32 {
        group.wait()
        return crc
    }
}

/// Reading the whole central directory (foreign zips at open, every zip in `verify`).
enum CentralDirectory {
    static func read(source: ByteSource, end: EndRecord) throws(PackError) -> [CentralRecord] {
        guard end.directorySize <= UInt64(Int.max) else { throw PackError(.badCentralDirectory, "too large") }
        let bytes = try source.bytes(at: end.directoryOffset, count: Int(end.directorySize))
        return try bytes.withUnsafeBytes { (buffer) throws(PackError) -> [CentralRecord] in
            var reader = ByteReader(buffer, fileOffset: end.directoryOffset)
            // The count was checked against size/46 when the end record was read.
            var records: [CentralRecord] = []
            records.reserveCapacity(Int(end.entryCount))
            for index in 0..<Int(end.entryCount) {
                records.append(try CentralRecord.parse(&reader, index: index))
            }
            guard reader.remaining == 0 else {
                throw PackError(
                    .badCentralDirectory,
                    "\(reader.remaining) bytes after the last of \(end.entryCount) records",
                    offset: reader.currentFileOffset)
            }
            return records
        }
    }

    /// The record's name as UTF-8: as stored when flagged UTF-8 or when it is valid UTF-8 anyway,
    /// else decoded from code page 437 (the zip default).
    static func utf8Name(_ record: CentralRecord) -> [UInt8] {
        if record.flags & ZipConstants.flagUTF8 != 0 || record.name.allSatisfy({ $0 < 0x80 })
            || String(validating: record.name, as: UTF8.self) != nil
        {
            return record.name
        }
        var scalars = String.UnicodeScalarView()
        for byte in record.name {
            scalars.append(byte < 0x80 ? Unicode.Scalar(byte) : Unicode.Scalar(codePage437High[Int(byte - 0x80)])!)
        }
        return Array(String(scalars).utf8)
    }

    static func displayName(_ record: CentralRecord) -> String { String(decoding: utf8Name(record), as: UTF8.self) }

    private static let codePage437High: [UInt32] = [
        0xc7, 0xfc, 0xe9, 0xe2, 0xe4, 0xe0, 0xe5, 0xe7, 0xea, 0xeb, 0xe8, 0xef, 0xee, 0xec, 0xc4, 0xc5, 0xc9, 0xe6,
        0xc6, 0xf4, 0xf6, 0xf2, 0xfb, 0xf9, 0xff, 0xd6, 0xdc, 0xa2, 0xa3, 0xa5, 0x20a7, 0x192, 0xe1, 0xed, 0xf3,
        0xfa, 0xf1, 0xd1, 0xaa, 0xba, 0xbf, 0x2310, 0xac, 0xbd, 0xbc, 0xa1, 0xab, 0xbb, 0x2591, 0x2592, 0x2593,
        0x2502, 0x2524, 0x2561, 0x2562, 0x2556, 0x2555, 0x2563, 0x2551, 0x2557, 0x255d, 0x255c, 0x255b, 0x2510,
        0x2514, 0x2534, 0x252c, 0x251c, 0x2500, 0x253c, 0x255e, 0x255f, 0x255a, 0x2554, 0x2569, 0x2566, 0x2560,
        0x2550, 0x256c, 0x2567, 0x2568, 0x2564, 0x2565, 0x2559, 0x2558, 0x2552, 0x2553, 0x256b, 0x256a, 0x2518,
        0x250c, 0x2588, 0x2584, 0x258c, 0x2590, 0x2580, 0x3b1, 0xdf, 0x393, 0x3c0, 0x3a3, 0x3c3, 0xb5, 0x3c4, 0x3a6,
        0x398, 0x3a9, 0x3b4, 0x221e, 0x3c6, 0x3b5, 0x2229, 0x2261, 0xb1, 0x2265, 0x2264, 0x2320, 0x2321, 0xf7,
        0x2248, 0xb0, 0x2219, 0xb7, 0x221a, 0x207f, 0xb2, 0x25a0, 0xa0,
    ]
}
