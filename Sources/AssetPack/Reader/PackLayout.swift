/// A pack known from its last bytes alone: the index, the central directory and the end records.
///
/// A delivery client fetches those first (from the offset its signed catalog names), then
/// rebuilds the file byte for byte: each entry's local header is made again from the central
/// directory (the builder's layout is deterministic), its data copied from a local pack that
/// holds the same SHA-256 or fetched. The whole file's SHA-256, from the signed catalog, says
/// whether the result is the published pack.
///
/// Every offset and size here comes from bytes no one has authenticated yet: the parse checks
/// them all, without a sum that could overflow, before anything is planned from them. Entries
/// lie in entry order, one after another, each header before its data, everything before the
/// tail; a layout that breaks this is refused, never trapped on.
package struct PackLayout: Sendable {
    /// One entry: where the zip puts it, and its local header as the builder writes it (`nil`
    /// when the header cannot be made again and must be fetched).
    package struct Entry: Sendable {
        package var location: ZipEntryLocation
        package var header: [UInt8]?

        /// The entry's name.
        package var path: String { String(decoding: location.path, as: UTF8.self) }
        /// The bytes of the header and the data.
        package var span: Range<UInt64> { location.headerOffset..<location.dataOffset + location.size }
    }

    package let fileSize: UInt64
    package let metadata: PackMetadata
    /// Content entries in entry order, then the index entry last.
    package let entries: [Entry]
    /// Where the tail begins: the index's data (the end of every content entry).
    package let tailOffset: UInt64

    /// Where a pack's tail begins: the data of its index, which every entry's bytes precede. A
    /// catalog names it (signed), so a client fetches exactly the tail and never more.
    package static func tailOffset(of pack: Pack) throws(PackError) -> UInt64 {
        guard pack.metadata != nil, let location = IndexLocation(comment: pack.endRecord.comment) else {
            throw PackError(.badIndex, "the file has no pack index", at: .file(pack.path))
        }
        return location.offset
    }

    /// The layout, from `tail`: the file's bytes from `tailOffset` to its end (for tests and the
    /// fuzzer; a client reads the tail from its partial file with ``parse(file:tailOffset:fileSize:name:)``).
    package static func parse(tail: [UInt8], from tailOffset: UInt64, fileSize: UInt64, name: String) throws(PackError) -> PackLayout {
        guard UInt64(tail.count) <= fileSize, tailOffset == fileSize - UInt64(tail.count) else {
            throw PackError(.invalidArgument, "\(tail.count) bytes at \(tailOffset) are not the end of a \(fileSize)-byte file", at: .file(name))
        }
        let storage = try ByteStorage.heap(capacity: tail.count) { buffer in
            buffer.copyBytes(from: tail)
            return tail.count
        }
        return try parse(.tail(storage, start: tailOffset, size: fileSize), tailOffset: tailOffset, name: name)
    }

    /// The layout, from the partial file at `path` (sized to the whole file, its tail from
    /// `tailOffset` written): read with `pread`, so memory holds the parsed records only.
    package static func parse(file path: String, tailOffset: UInt64, fileSize: UInt64, name: String) throws(PackError) -> PackLayout {
        let (source, _) = try ByteSource.open(path: path, backend: .read)
        guard source.size == fileSize else {
            throw PackError(.sizeMismatch, "the partial file has \(source.size) bytes, not \(fileSize)", at: .file(path))
        }
        return try parse(source, tailOffset: tailOffset, name: name)
    }

    private static func parse(_ source: ByteSource, tailOffset: UInt64, name: String) throws(PackError) -> PackLayout {
        do throws(PackError) {
            let end = try EndRecord.locate(in: source)
            guard let location = IndexLocation(comment: end.comment), location.offset != .max else {
                throw PackError(.badIndex, "the end record does not point to a pack index: not a pack", at: .pack(offset: end.offset))
            }
            // The tail the catalog names must be the one the file's end names: nothing before it
            // was fetched, and nothing of the file may be read from there.
            guard location.offset == tailOffset, end.directoryOffset >= tailOffset else {
                throw PackError(
                    .badIndex, "the end record puts the index at \(location.offset) and the directory at \(end.directoryOffset), the catalog at \(tailOffset)",
                    at: .pack(offset: end.offset))
            }
            let (_, parsed, table) = try Pack.open(source)
            guard let metadata = parsed else { throw PackError(.badIndex, "the file has no pack index") }
            let records = try CentralDirectory.read(source: source, end: end)
            guard records.count == table.count else {
                throw PackError(.indexMismatch, "the central directory has \(records.count) entries, the index \(table.count)")
            }
            let hashes = try Self.hashes(table, source)
            var entries: [Entry] = []
            entries.reserveCapacity(records.count)
            // Where the previous entry's data ends: the next header starts there or later.
            var previousEnd: UInt64 = 0
            for (number, record) in records.enumerated() {
                let row = table.row(number)
                guard table.pathBytes(number).elementsEqual(record.name), row.crc32 == record.crc32, row.size == record.size,
                    record.compressedSize == record.size
                else {
                    throw PackError(.indexMismatch, "entry \(number) differs between the index and the central directory", at: .pack(offset: record.recordOffset))
                }
                let headerOffset = record.localHeaderOffset
                let dataOffset = row.dataOffset
                // Pack.open holds every data range inside the file, before the directory; the
                // header must lie after the previous entry and leave room for itself and its name.
                guard headerOffset >= previousEnd, headerOffset <= dataOffset,
                    dataOffset - headerOffset >= UInt64(ZipConstants.localHeaderSize + record.name.count),
                    dataOffset <= end.directoryOffset, row.size <= end.directoryOffset - dataOffset
                else {
                    throw PackError(
                        .entryOutOfBounds, "its local header at \(headerOffset) does not lie between the previous entry's end (\(previousEnd)) and its data (\(dataOffset))",
                        at: .pack(entry: String(decoding: record.name, as: UTF8.self), offset: record.recordOffset))
                }
                previousEnd = dataOffset + row.size
                let location = ZipEntryLocation(
                    number: number, path: record.name, headerOffset: headerOffset, dataOffset: dataOffset, size: row.size,
                    crc32: record.crc32, sha256: number < hashes.count ? hashes[number] : nil)
                let writer = ZipWriter(alignment: metadata.alignment, timestamp: DOSTimestamp(time: record.dosTime, date: record.dosDate))
                let header = writer.localHeader(name: record.name, size: record.size, crc32: record.crc32, at: headerOffset)
                let fits = UInt64(header.count) == dataOffset - headerOffset
                entries.append(Entry(location: location, header: fits ? header : nil))
            }
            return PackLayout(fileSize: source.size, metadata: metadata, entries: entries, tailOffset: tailOffset)
        } catch {
            throw error.at(file: name)
        }
    }

    /// The content entries' listed SHA-256s (format 2), from the index in `source`.
    private static func hashes(_ table: EntryTable, _ source: ByteSource) throws(PackError) -> [EntryHash] {
        guard table.hashedCount > 0 else { return [] }
        let index = table.row(table.count - 1)
        return try Pack.listedHashes(table, index: try source.bytes(at: index.dataOffset, count: Int(index.size)))
    }
}
