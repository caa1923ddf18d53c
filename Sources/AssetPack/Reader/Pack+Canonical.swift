extension Pack {
    /// The builder's writer for this pack: its alignment and the one timestamp every entry of a
    /// format-2 pack carries (the first record's). `nil` for format 1 and other zips.
    func canonicalWriter(_ records: [ZipCentralRecord]) -> ZipWriter? {
        guard let metadata, metadata.formatVersion >= 2, let first = records.first else { return nil }
        return ZipWriter(alignment: metadata.alignment, timestamp: DOSTimestamp(time: first.dosTime, date: first.dosDate))
    }

    /// The local header the builder writes for entry `central` at its offset, for the per-entry
    /// check that holds each local header of a format-2 pack to it byte for byte.
    static func canonicalLocalHeader(_ central: ZipCentralRecord, writer: ZipWriter) -> [UInt8] {
        writer.localHeader(name: central.name, size: central.size, crc32: central.crc32, at: central.localHeaderOffset)
    }

    /// Holds everything of a format-2 pack but the entries' data and local headers (checked per
    /// entry) to what the builder writes for this index and these contents: one timestamp for
    /// all entries, entries one after another from the first byte with no gap, the index written
    /// as ``IndexWriter`` writes it, the central directory right after the index and record for
    /// record as ``ZipWriter`` makes it, and the end records (the comment included) last. With the
    /// data bound by the listed SHA-256s and those by the digest, `verify` and the digest
    /// together bind every byte of the file.
    ///
    /// - Throws: ``PackError/Code/notCanonical`` naming the first byte range that differs.
    func checkCanonicalRecords(_ records: [ZipCentralRecord], hashes: [EntryHash], writer: ZipWriter) throws(PackError) {
        guard let metadata, let indexRecord = records.last else { return }
        func problem(_ detail: String, entry: Int? = nil, offset: UInt64) -> PackError {
            PackError(.notCanonical, detail, at: .pack(entry: entry.map { table.path($0) }, offset: offset))
        }
        var entries: [ZipEntryLocation] = []
        entries.reserveCapacity(records.count)
        var expectedOffset: UInt64 = 0
        for (number, record) in records.enumerated() {
            guard record.dosTime == writer.timestamp.time, record.dosDate == writer.timestamp.date else {
                throw problem("its time differs from the first entry's: a pack has one timestamp", entry: number, offset: record.recordOffset)
            }
            guard record.localHeaderOffset == expectedOffset else {
                throw problem(
                    "its local header is at \(record.localHeaderOffset), right after the previous entry is \(expectedOffset)", entry: number,
                    offset: record.recordOffset)
            }
            let row = table.row(number)
            entries.append(
                ZipEntryLocation(
                    number: number, path: record.name, headerOffset: record.localHeaderOffset, dataOffset: row.dataOffset, size: row.size,
                    crc32: record.crc32, sha256: number < hashes.count ? hashes[number] : nil))
            // Pack.open holds data ranges inside the file: no overflow.
            expectedOffset = row.dataOffset + row.size
        }
        // The index's text.
        let content = Array(entries.dropLast())
        let expectedIndex = IndexWriter.json(metadata: metadata, entries: content)
        guard let index = try indexData(), index.withUnsafeBytes({ $0.elementsEqual(expectedIndex) }) else {
            throw problem("the index's text is not what the builder writes for its contents", entry: records.count - 1, offset: table.row(records.count - 1).dataOffset)
        }
        // The central directory, right after the index, record for record.
        guard endRecord.directoryOffset == expectedOffset else {
            throw problem("the central directory starts at \(endRecord.directoryOffset), right after the index is \(expectedOffset)", offset: endRecord.directoryOffset)
        }
        let directory = try source.bytes(at: endRecord.directoryOffset, count: Int(endRecord.directorySize))
        var position = 0
        let mismatch: Int? = directory.withUnsafeBytes { raw in
            for (number, entry) in entries.enumerated() {
                let expected = writer.centralRecord(entry)
                guard position <= raw.count - expected.count,
                    UnsafeRawBufferPointer(rebasing: raw[position..<position + expected.count]).elementsEqual(expected)
                else { return number }
                position += expected.count
            }
            return position == raw.count ? nil : entries.count
        }
        if let number = mismatch {
            guard number < records.count else {
                throw problem("the central directory has bytes after its last record", offset: endRecord.directoryOffset + UInt64(position))
            }
            throw problem("its central record is not what the builder writes", entry: number, offset: records[number].recordOffset)
        }
        // The end records, last in the file.
        let location = IndexLocation(offset: table.row(records.count - 1).dataOffset, size: indexRecord.size, crc32: indexRecord.crc32)
        let endStart = endRecord.directoryOffset + endRecord.directorySize
        let expectedEnd = writer.endRecords(
            count: UInt64(records.count), directoryOffset: endRecord.directoryOffset, directorySize: endRecord.directorySize,
            comment: location.comment)
        guard source.size >= endStart, source.size - endStart == UInt64(expectedEnd.count),
            try source.bytes(at: endStart, count: expectedEnd.count).withUnsafeBytes({ $0.elementsEqual(expectedEnd) })
        else {
            throw problem("the end records (or the bytes after them) are not what the builder writes", offset: endStart)
        }
    }
}
