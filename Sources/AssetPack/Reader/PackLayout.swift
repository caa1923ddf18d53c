/// A pack known from its last bytes alone: the index, the central directory and the end records.
///
/// A delivery client fetches those first, then rebuilds the file byte for byte: each entry's
/// local header is made again from the central directory (the builder's layout is
/// deterministic), its data copied from a local pack that holds the same SHA-256 or fetched. The
/// whole file's SHA-256, from the signed catalog, says whether the result is the published pack.
package struct PackLayout: Sendable {
    /// One entry: where its header and data are, its checksums, and its local header as the
    /// builder writes it (`nil` when the header cannot be made again and must be fetched).
    package struct Entry: Sendable {
        package var path: String
        package var headerOffset: UInt64
        package var dataOffset: UInt64
        package var size: UInt64
        package var crc32: UInt32
        package var sha256: EntryHash?
        package var header: [UInt8]?

        /// The bytes of the header and the data.
        package var span: Range<UInt64> { headerOffset..<dataOffset + size }
    }

    package let fileSize: UInt64
    package let metadata: PackMetadata
    /// Content entries in entry order, then the index entry last.
    package let entries: [Entry]
    /// Where the bytes handed to ``parse(tail:from:fileSize:name:)`` began.
    package let tailOffset: UInt64

    /// The most bytes read from a file's end to find its end records (the longest comment, the
    /// end record and a Zip64 locator and record).
    package static let endSearch: UInt64 = 65_535 + 22 + 20 + 56
    /// What a client reads first: a pack's end record, its short comment and a Zip64 locator fit
    /// many times over; only another zip's long comment needs ``endSearch``.
    package static let endGuess: UInt64 = 4_096

    /// Where the index's data starts, from the file's last bytes (`end`, at least ``endSearch``
    /// of them or the whole file): the tail to fetch before ``parse(tail:from:fileSize:name:)``.
    package static func tailStart(end: [UInt8], fileSize: UInt64, name: String) throws(PackError) -> UInt64 {
        let start = fileSize - UInt64(end.count)
        let source = try Self.source(end, start: start, fileSize: fileSize)
        do throws(PackError) {
            let record = try EndRecord.locate(in: source)
            guard let location = IndexLocation(comment: record.comment), location.offset != .max else {
                throw PackError(.badIndex, "the end record does not point to a pack index: not a pack", offset: record.offset)
            }
            return min(location.offset, record.directoryOffset)
        } catch {
            throw error.at(path: name)
        }
    }

    /// The layout, from `tail`: the file's bytes from `tailOffset` to its end.
    package static func parse(tail: [UInt8], from tailOffset: UInt64, fileSize: UInt64, name: String) throws(PackError) -> PackLayout {
        do throws(PackError) {
            let source = try Self.source(tail, start: tailOffset, fileSize: fileSize)
            let (end, metadata, table) = try Pack.open(source)
            guard let metadata else { throw PackError(.badIndex, "the file has no pack index") }
            let records = try CentralDirectory.read(source: source, end: end)
            guard records.count == table.count else {
                throw PackError(.indexMismatch, "the central directory has \(records.count) entries, the index \(table.count)")
            }
            var entries: [Entry] = []
            entries.reserveCapacity(records.count)
            for (number, record) in records.enumerated() {
                let row = table.row(number)
                guard table.pathBytes(number).elementsEqual(record.name), row.crc32 == record.crc32, row.size == record.size else {
                    throw PackError(.indexMismatch, "entry \(number) differs between the index and the central directory")
                }
                let dataOffset = row.dataOffset
                let writer = ZipWriter(alignment: metadata.alignment, timestamp: DOSTimestamp(time: record.dosTime, date: record.dosDate))
                let header = writer.localHeader(name: record.name, size: record.size, crc32: record.crc32, at: record.localHeaderOffset)
                let fits = record.localHeaderOffset + UInt64(header.count) == dataOffset
                entries.append(
                    Entry(
                        path: String(decoding: record.name, as: UTF8.self), headerOffset: record.localHeaderOffset, dataOffset: dataOffset,
                        size: record.size, crc32: record.crc32,
                        sha256: number < records.count - 1 ? try Self.hash(table, number, source) : nil, header: fits ? header : nil))
            }
            return PackLayout(fileSize: fileSize, metadata: metadata, entries: entries, tailOffset: tailOffset)
        } catch {
            throw error.at(path: name)
        }
    }

    private static func hash(_ table: EntryTable, _ number: Int, _ source: ByteSource) throws(PackError) -> EntryHash? {
        guard number < table.hashedCount else { return nil }
        let at = table.row(table.count - 1).dataOffset + UInt64(table.hashPositions[number])
        let digits = try source.bytes(at: at, count: 64)
        return digits.withUnsafeBytes { EntryHash(hexDigits: $0) }
    }

    private static func source(_ bytes: [UInt8], start: UInt64, fileSize: UInt64) throws(PackError) -> ByteSource {
        guard UInt64(bytes.count) <= fileSize, start == fileSize - UInt64(bytes.count) else {
            throw PackError(.invalidArgument, "\(bytes.count) bytes at \(start) are not the end of a \(fileSize)-byte file")
        }
        let storage = try ByteStorage.heap(capacity: bytes.count) { buffer in
            buffer.copyBytes(from: bytes)
            return bytes.count
        }
        return .tail(storage, start: start, size: fileSize)
    }
}
