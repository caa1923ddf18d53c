// The one place where zip records are parsed and written (PKWARE APPNOTE 6.3.x).
// Every other part of the library asks these types; bounds and overflow checks live here.

enum ZipSignature {
    static let localHeader: UInt32 = 0x0403_4b50
    static let centralHeader: UInt32 = 0x0201_4b50
    static let endOfCentralDirectory: UInt32 = 0x0605_4b50
    static let zip64EndOfCentralDirectory: UInt32 = 0x0606_4b50
    static let zip64Locator: UInt32 = 0x0706_4b50
}

enum ZipConstants {
    static let localHeaderSize = 30
    static let centralHeaderSize = 46
    static let endRecordSize = 22
    static let zip64LocatorSize = 20
    static let zip64EndRecordSize = 56
    static let maxCommentLength = 65_535
    /// The furthest back from the end of a file an end record can start.
    static let maxEndSearch = endRecordSize + maxCommentLength
    static let marker16: UInt16 = 0xFFFF
    static let marker32: UInt32 = 0xFFFF_FFFF
    static let zip64ExtraID: UInt16 = 0x0001
    /// Android's alignment extra block (apksigner): u16 id, u16 size, u16 alignment, zero padding.
    static let alignmentExtraID: UInt16 = 0xD935
    static let alignmentExtraMinimumSize = 6
    static let flagEncrypted: UInt16 = 1 << 0
    static let flagDataDescriptor: UInt16 = 1 << 3
    static let flagUTF8: UInt16 = 1 << 11
    static let methodStored: UInt16 = 0
    static let methodDeflated: UInt16 = 8
}

/// A DOS date and time as stored in zip headers (two-second resolution, 1980–2107, UTC here).
struct DOSTimestamp: Equatable, Sendable {
    var time: UInt16
    var date: UInt16

    /// 1980-01-01 00:00:00, the earliest DOS time: the builder's default timestamp.
    static let epoch = DOSTimestamp(time: 0, date: (1 << 5) | 1)

    init(time: UInt16, date: UInt16) {
        self.time = time
        self.date = date
    }

    /// The DOS time for seconds since 1970 (UTC); earlier than 1980 clamps to ``epoch``.
    init?(unixTime: Int64) {
        guard unixTime >= 315_532_800 else {
            self = .epoch
            return
        }
        var days = unixTime / 86_400
        let secondsOfDay = Int(unixTime % 86_400)
        // Civil-from-days (Howard Hinnant's algorithm), proleptic Gregorian, UTC.
        days += 719_468
        let era = (days >= 0 ? days : days - 146_096) / 146_097
        let dayOfEra = days - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        guard year <= 2107 else { return nil }
        date = UInt16((year - 1980) << 9 | month << 5 | day)
        time = UInt16((secondsOfDay / 3600) << 11 | ((secondsOfDay / 60) % 60) << 5 | (secondsOfDay % 60) / 2)
    }
}

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
        let tailLength = Int(min(fileSize, UInt64(ZipConstants.maxEndSearch)))
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
                while next >= 0 {
                    let candidate = next
                    next -= 1
                    guard buffer[candidate] == 0x50, buffer[candidate + 1] == 0x4B, buffer[candidate + 2] == 5,
                        buffer[candidate + 3] == 6
                    else { continue }
                    sawSignature = true
                    let position = tailStart + UInt64(candidate)
                    var reader = ByteReader(UnsafeRawBufferPointer(rebasing: buffer[candidate...]), fileOffset: position)
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
                                offset: position)
                        continue
                    }
                    if disk != 0 || directoryDisk != 0 || diskEntries != entries {
                        recordError =
                            recordError
                            ?? PackError(
                                .multiDisk,
                                "disk \(disk), directory disk \(directoryDisk), \(diskEntries) of \(entries) entries",
                                offset: position)
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
                offset: offset)
        }
        guard entryCount <= directorySize / UInt64(ZipConstants.centralHeaderSize) else {
            throw PackError(
                .badEndRecord, "\(entryCount) entries cannot fit in a \(directorySize)-byte central directory",
                offset: offset)
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
            throw PackError(.multiDisk, "Zip64 locator names disk \(locator.disk) of \(locator.disks)", offset: locatorOffset)
        }
        guard locator.endOffset <= locatorOffset,
            locatorOffset - locator.endOffset >= UInt64(ZipConstants.zip64EndRecordSize)
        else {
            throw PackError(
                .badZip64, "the locator points at \(locator.endOffset), which leaves no room for a Zip64 end record",
                offset: locatorOffset)
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
            throw PackError(.badZip64, "no Zip64 end record where the locator points", offset: locator.endOffset)
        }
        guard recordSize >= 44, recordSize == locatorOffset - locator.endOffset - 12 else {
            throw PackError(
                .badZip64, "Zip64 end record size \(recordSize) does not reach the locator", offset: locator.endOffset)
        }
        guard disk == 0, directoryDisk == 0, diskEntries == entries else {
            throw PackError(.multiDisk, "Zip64 end record names disk \(disk)", offset: locator.endOffset)
        }
        func agrees(_ classic: UInt64, _ wide: UInt64, marker: UInt64) -> Bool { classic == marker || classic == wide }
        guard agrees(entryCount, entries, marker: 0xFFFF), agrees(directorySize, size, marker: 0xFFFF_FFFF),
            agrees(directoryOffset, directoryStart, marker: 0xFFFF_FFFF)
        else {
            throw PackError(.badZip64, "Zip64 end record disagrees with the end record", offset: locator.endOffset)
        }
        entryCount = entries
        directorySize = size
        directoryOffset = directoryStart
        recordsStart = locator.endOffset
        isZip64 = true
    }
}

/// One central directory record.
struct CentralRecord: Sendable {
    var recordOffset: UInt64
    var recordLength: Int
    var versionMadeBy: UInt16
    var flags: UInt16
    var method: UInt16
    var crc32: UInt32
    var compressedSize: UInt64
    var size: UInt64
    var externalAttributes: UInt32
    var localHeaderOffset: UInt64
    var name: [UInt8]

    var isDirectory: Bool { name.last == UInt8(ascii: "/") }

    /// Parses the record at the reader's position; the reader's window is the central directory.
    static func parse(_ reader: inout ByteReader, index: Int) throws(PackError) -> CentralRecord {
        let start = reader.position
        let offset = reader.currentFileOffset
        func bad(_ detail: String) -> PackError {
            PackError(.badCentralDirectory, "record \(index): " + detail, offset: offset)
        }
        guard reader.remaining >= ZipConstants.centralHeaderSize else {
            throw bad("only \(reader.remaining) bytes left for a 46-byte record")
        }
        guard let signature = reader.u32(), signature == ZipSignature.centralHeader else {
            throw bad("bad signature")
        }
        guard let madeBy = reader.u16(), let _ = reader.u16(), let flags = reader.u16(), let method = reader.u16(),
            reader.skip(4), let crc = reader.u32(), let compressed32 = reader.u32(), let size32 = reader.u32(),
            let nameLength = reader.u16(), let extraLength = reader.u16(), let commentLength = reader.u16(),
            let diskStart = reader.u16(), reader.skip(2), let external = reader.u32(), let local32 = reader.u32()
        else { throw bad("truncated record") }
        guard let name = reader.take(Int(nameLength)) else { throw bad("name length \(nameLength) runs past the end") }
        guard let extra = reader.take(Int(extraLength)) else {
            throw bad("extra field length \(extraLength) runs past the end")
        }
        guard reader.skip(Int(commentLength)) else { throw bad("comment length \(commentLength) runs past the end") }
        var compressed = UInt64(compressed32)
        var uncompressed = UInt64(size32)
        var localOffset = UInt64(local32)
        var disk = UInt32(diskStart)
        do {
            try ExtraFields.applyZip64(
                extra, size: &uncompressed, compressedSize: &compressed, localHeaderOffset: &localOffset,
                disk: &disk, sizeMarked: size32 == ZipConstants.marker32,
                compressedMarked: compressed32 == ZipConstants.marker32, offsetMarked: local32 == ZipConstants.marker32,
                diskMarked: diskStart == ZipConstants.marker16)
        } catch {
            throw bad(error.detail)
        }
        guard disk == 0 else { throw PackError(.multiDisk, "record \(index) starts on disk \(disk)", offset: offset) }
        return CentralRecord(
            recordOffset: offset, recordLength: reader.position - start, versionMadeBy: madeBy, flags: flags,
            method: method, crc32: crc, compressedSize: compressed, size: uncompressed, externalAttributes: external,
            localHeaderOffset: localOffset, name: Array(name))
    }
}

/// One local file header.
struct LocalHeader: Sendable {
    var flags: UInt16
    var method: UInt16
    var crc32: UInt32
    var compressedSize: UInt64
    var size: UInt64
    var name: [UInt8]
    /// Where the entry's data starts: right after the header.
    var dataOffset: UInt64
    /// The alignment recorded in a 0xD935 block, if the header has one.
    var recordedAlignment: UInt16?

    /// The fixed part plus name and extra lengths: enough to find the data without reading the name.
    static func dataOffset(in source: ByteSource, headerOffset: UInt64) throws(PackError) -> UInt64 {
        let fixed = try source.bytes(at: headerOffset, count: ZipConstants.localHeaderSize)
        let lengths: (UInt16, UInt16)? = fixed.withUnsafeBytes {
            var reader = ByteReader($0)
            guard reader.u32() == ZipSignature.localHeader, reader.skip(22), let name = reader.u16(),
                let extra = reader.u16()
            else { return nil }
            return (name, extra)
        }
        guard let (nameLength, extraLength) = lengths else {
            throw PackError(.badLocalHeader, "no local header signature", offset: headerOffset)
        }
        return headerOffset + UInt64(ZipConstants.localHeaderSize) + UInt64(nameLength) + UInt64(extraLength)
    }

    /// Parses the whole header at `headerOffset`; the header must end at or before `limit`.
    static func parse(in source: ByteSource, headerOffset: UInt64, limit: UInt64) throws(PackError) -> LocalHeader {
        let end = try dataOffset(in: source, headerOffset: headerOffset)
        guard end <= limit else {
            throw PackError(.badLocalHeader, "header runs past the central directory", offset: headerOffset)
        }
        let bytes = try source.bytes(at: headerOffset, count: Int(end - headerOffset))
        return try bytes.withUnsafeBytes { (buffer) throws(PackError) -> LocalHeader in
            var reader = ByteReader(buffer, fileOffset: headerOffset)
            _ = reader.skip(6)
            guard let flags = reader.u16(), let method = reader.u16(), reader.skip(4), let crc = reader.u32(),
                let compressed32 = reader.u32(), let size32 = reader.u32(), let nameLength = reader.u16(),
                let extraLength = reader.u16(), let name = reader.take(Int(nameLength)),
                let extra = reader.take(Int(extraLength))
            else { throw PackError(.badLocalHeader, "truncated header", offset: headerOffset) }
            var compressed = UInt64(compressed32)
            var size = UInt64(size32)
            var unusedOffset: UInt64 = 0
            var unusedDisk: UInt32 = 0
            do throws(ExtraFields.Malformed) {
                try ExtraFields.applyZip64(
                    extra, size: &size, compressedSize: &compressed, localHeaderOffset: &unusedOffset,
                    disk: &unusedDisk, sizeMarked: size32 == ZipConstants.marker32,
                    compressedMarked: compressed32 == ZipConstants.marker32, offsetMarked: false, diskMarked: false)
            } catch {
                throw PackError(.badLocalHeader, error.detail, offset: headerOffset)
            }
            return LocalHeader(
                flags: flags, method: method, crc32: crc, compressedSize: compressed, size: size, name: Array(name),
                dataOffset: end, recordedAlignment: ExtraFields.alignment(in: extra))
        }
    }
}

/// Extra field blocks: `u16 id, u16 size, data`.
enum ExtraFields {
    struct Malformed: Error {
        var detail: String
    }

    /// Calls `body` with each block; trailing zero bytes (old zipalign padding) are accepted.
    static func forEach(
        _ extra: UnsafeRawBufferPointer, _ body: (UInt16, UnsafeRawBufferPointer) throws(Malformed) -> Void
    ) throws(Malformed) {
        var reader = ByteReader(extra)
        while reader.remaining > 0 {
            if reader.remaining < 4 {
                guard reader.take(reader.remaining)?.allSatisfy({ $0 == 0 }) == true else {
                    throw Malformed(detail: "malformed extra field: \(reader.remaining) stray bytes")
                }
                return
            }
            let start = reader.position
            guard let id = reader.u16(), let size = reader.u16() else { return }
            guard let data = reader.take(Int(size)) else {
                let rest = UnsafeRawBufferPointer(rebasing: extra[start...])
                if rest.allSatisfy({ $0 == 0 }) { return }
                throw Malformed(detail: "malformed extra field: block 0x\(hex16(id)) of \(size) bytes runs past the end")
            }
            try body(id, data)
        }
    }

    /// Replaces the marked fields by the values of a Zip64 extra block, in APPNOTE order.
    static func applyZip64(
        _ extra: UnsafeRawBufferPointer, size: inout UInt64, compressedSize: inout UInt64,
        localHeaderOffset: inout UInt64, disk: inout UInt32, sizeMarked: Bool, compressedMarked: Bool,
        offsetMarked: Bool, diskMarked: Bool
    ) throws(Malformed) {
        var applied = false
        try forEach(extra) { (id, data) throws(Malformed) in
            guard id == ZipConstants.zip64ExtraID, !applied else { return }
            applied = true
            var reader = ByteReader(data)
            func next() throws(Malformed) -> UInt64 {
                guard let value = reader.u64() else { throw Malformed(detail: "Zip64 extra field is too short") }
                return value
            }
            if sizeMarked { size = try next() }
            if compressedMarked { compressedSize = try next() }
            if offsetMarked { localHeaderOffset = try next() }
            if diskMarked {
                guard let value = reader.u32() else { throw Malformed(detail: "Zip64 extra field is too short") }
                disk = value
            }
        }
    }

    /// The alignment in a 0xD935 block, if there is a well-formed one.
    static func alignment(in extra: UnsafeRawBufferPointer) -> UInt16? {
        var result: UInt16?
        try? forEach(extra) { id, data in
            if id == ZipConstants.alignmentExtraID, data.count >= 2 {
                result = UInt16(data[0]) | UInt16(data[1]) << 8
            }
        }
        return result
    }
}

func hex16(_ value: UInt16) -> String {
    let digits = String(value, radix: 16, uppercase: true)
    return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
}

func hex32(_ value: UInt32) -> String {
    let digits = String(value, radix: 16)
    return String(repeating: "0", count: max(0, 8 - digits.count)) + digits
}
