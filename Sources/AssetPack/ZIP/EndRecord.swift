/// The end of central directory, with any Zip64 values already applied.
struct EndRecord: Sendable {
    /// Where the classic end record starts.
    var offset: UInt64
    /// Where the end records start: the Zip64 end record if there is one, else ``offset``.
    /// The central directory must end exactly here.
    var recordsStart: UInt64
    var entryCount: UInt64
    var directoryOffset: UInt64
    var directorySize: UInt64
    var comment: [UInt8]
    var isZip64: Bool

    /// Finds and checks the end records of a file of `fileSize` bytes.
    ///
    /// Searches backwards through the last 65,557 bytes for an end record whose comment reaches
    /// the end of the file exactly, then follows a Zip64 locator if one precedes it.
    static func locate(in source: ByteSource) throws(PackError) -> EndRecord {
        let fileSize = source.size
        guard fileSize >= UInt64(ZipConstants.endRecordSize) else {
            throw PackError(
                .notAZip, fileSize == 0 ? "the file is empty" : "the file is only \(fileSize) bytes long")
        }
        // A source holding only the file's last bytes (a download's tail) is searched as far as it goes.
        let tailLength = Int(min(fileSize - source.firstAvailable, UInt64(ZipConstants.maxEndSearch)))
        let tailStart = fileSize - UInt64(tailLength)
        let tail = try source.bytes(at: tailStart, count: tailLength)
        // Candidates whose comment reaches the end of the file exactly, nearest the end first;
        // the first whose records hold together wins, so a signature inside a comment that
        // happens to look like an end record does not hide the real one. The search stops
        // there: for a pack that is the last 22 bytes plus its short comment.
        var sawSignature = false
        var lengthError: PackError?
        var recordError: PackError?
        var next = tailLength - ZipConstants.endRecordSize
        while next >= 0 {
            let found: EndRecord? = tail.withUnsafeBytes { buffer in
                let bytes = RawBytes(buffer)
                while next >= 0 {
                    let candidate = next
                    next -= 1
                    guard bytes.integer(at: candidate, as: UInt32.self) == ZipSignature.endOfCentralDirectory else {
                        continue
                    }
                    sawSignature = true
                    let position = tailStart + UInt64(candidate)
                    var reader = ByteReader(bytes.slice(candidate..<bytes.count).buffer, fileOffset: position)
                    _ = reader.u32()
                    guard let disk = reader.u16(), let directoryDisk = reader.u16(), let diskEntries = reader.u16(),
                        let entries = reader.u16(), let size = reader.u32(), let offset = reader.u32(),
                        let commentLength = reader.u16()
                    else { continue }
                    guard Int(commentLength) == reader.remaining else {
                        lengthError =
                            lengthError
                            ?? PackError(
                                .badEndRecord,
                                "the end record's comment length (\(commentLength)) does not reach the end of the file exactly",
                                at: .pack(offset: position))
                        continue
                    }
                    if disk != 0 || directoryDisk != 0 || diskEntries != entries {
                        recordError =
                            recordError
                            ?? PackError(
                                .multiDisk,
                                "disk \(disk), directory disk \(directoryDisk), \(diskEntries) of \(entries) entries",
                                at: .pack(offset: position))
                        continue
                    }
                    let comment = Array(reader.take(Int(commentLength)) ?? UnsafeRawBufferPointer(start: nil, count: 0))
                    return EndRecord(
                        offset: position, recordsStart: position, entryCount: UInt64(entries),
                        directoryOffset: UInt64(offset), directorySize: UInt64(size), comment: comment, isZip64: false)
                }
                return nil
            }
            guard var record = found else { break }
            do throws(PackError) {
                try record.applyZip64(from: source)
                try record.checkDirectoryBounds()
                return record
            } catch {
                recordError = recordError ?? error
            }
        }
        // The nearest well-formed candidate's problem says most; a length mismatch comes next.
        if let error = recordError ?? lengthError { throw error }
        if sawSignature { throw PackError(.badEndRecord, "no valid end record") }
        throw PackError(.notAZip, "no end of central directory record in the last \(tailLength) bytes")
    }

    private func checkDirectoryBounds() throws(PackError) {
        guard directoryOffset <= recordsStart, directorySize == recordsStart - directoryOffset else {
            throw PackError(
                .badEndRecord,
                "central directory (offset \(directoryOffset), size \(directorySize)) "
                    + "does not end where the end records start (\(recordsStart))",
                at: .pack(offset: offset))
        }
        guard entryCount <= directorySize / UInt64(ZipConstants.centralHeaderSize) else {
            throw PackError(
                .badEndRecord, "\(entryCount) entries cannot fit in a \(directorySize)-byte central directory",
                at: .pack(offset: offset))
        }
    }

    /// Reads the Zip64 locator and end record, if the bytes before the end record are a locator.
    private mutating func applyZip64(from source: ByteSource) throws(PackError) {
        guard offset >= UInt64(ZipConstants.zip64LocatorSize) else { return }
        let locatorOffset = offset - UInt64(ZipConstants.zip64LocatorSize)
        let locatorBytes = try source.bytes(at: locatorOffset, count: ZipConstants.zip64LocatorSize)
        let locator: (disk: UInt32, endOffset: UInt64, disks: UInt32)? = locatorBytes.withUnsafeBytes {
            var reader = ByteReader($0, fileOffset: locatorOffset)
            guard reader.u32() == ZipSignature.zip64Locator, let disk = reader.u32(), let endOffset = reader.u64(),
                let disks = reader.u32()
            else { return nil }
            return (disk, endOffset, disks)
        }
        // No locator: the classic values stand (a literal 0xFFFFFFFF is accepted as a real value, as
        // Info-ZIP writes it; the directory bounds check in `locate` rejects it if it is not).
        guard let locator else { return }
        guard locator.disk == 0, locator.disks <= 1 else {
            throw PackError(.multiDisk, "Zip64 locator names disk \(locator.disk) of \(locator.disks)", at: .pack(offset: locatorOffset))
        }
        guard locator.endOffset <= locatorOffset,
            locatorOffset - locator.endOffset >= UInt64(ZipConstants.zip64EndRecordSize)
        else {
            throw PackError(
                .badZip64, "the locator points at \(locator.endOffset), which leaves no room for a Zip64 end record",
                at: .pack(offset: locatorOffset))
        }
        let endBytes = try source.bytes(at: locator.endOffset, count: ZipConstants.zip64EndRecordSize)
        let parsed: (UInt32, UInt32, UInt64, UInt64, UInt64, UInt64, UInt64)? = endBytes.withUnsafeBytes {
            var reader = ByteReader($0, fileOffset: locator.endOffset)
            guard reader.u32() == ZipSignature.zip64EndOfCentralDirectory, let recordSize = reader.u64(),
                reader.skip(4), let disk = reader.u32(), let directoryDisk = reader.u32(),
                let diskEntries = reader.u64(), let entries = reader.u64(), let size = reader.u64(),
                let offset = reader.u64()
            else { return nil }
            return (disk, directoryDisk, diskEntries, entries, size, offset, recordSize)
        }
        guard let (disk, directoryDisk, diskEntries, entries, size, directoryStart, recordSize) = parsed else {
            throw PackError(.badZip64, "no Zip64 end record where the locator points", at: .pack(offset: locator.endOffset))
        }
        guard recordSize >= 44, recordSize == locatorOffset - locator.endOffset - 12 else {
            throw PackError(
                .badZip64, "Zip64 end record size \(recordSize) does not reach the locator", at: .pack(offset: locator.endOffset))
        }
        guard disk == 0, directoryDisk == 0, diskEntries == entries else {
            throw PackError(.multiDisk, "Zip64 end record names disk \(disk)", at: .pack(offset: locator.endOffset))
        }
        func agrees(_ classic: UInt64, _ wide: UInt64, marker: UInt64) -> Bool { classic == marker || classic == wide }
        guard agrees(entryCount, entries, marker: 0xFFFF), agrees(directorySize, size, marker: 0xFFFF_FFFF),
            agrees(directoryOffset, directoryStart, marker: 0xFFFF_FFFF)
        else {
            throw PackError(.badZip64, "Zip64 end record disagrees with the end record", at: .pack(offset: locator.endOffset))
        }
        entryCount = entries
        directorySize = size
        directoryOffset = directoryStart
        recordsStart = locator.endOffset
        isZip64 = true
    }
}

