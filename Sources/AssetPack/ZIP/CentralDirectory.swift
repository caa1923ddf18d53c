/// One central directory record, as parsed (the zip layer's view of an entry).
struct ZipCentralRecord: Sendable {
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
    /// The entry's DOS modification time and date.
    var dosTime: UInt16 = 0
    var dosDate: UInt16 = 0

    var isDirectory: Bool { name.last == UInt8(ascii: "/") }

    /// Parses the record at the reader's position; the reader's window is the central directory.
    static func parse(_ reader: inout ByteReader, index: Int) throws(PackError) -> ZipCentralRecord {
        let start = reader.position
        let offset = reader.currentFileOffset
        func bad(_ detail: String) -> PackError {
            PackError(.badCentralDirectory, "record \(index): " + detail, at: .pack(offset: offset))
        }
        guard reader.remaining >= ZipConstants.centralHeaderSize else {
            throw bad("only \(reader.remaining) bytes left for a 46-byte record")
        }
        guard let signature = reader.u32(), signature == ZipSignature.centralHeader else {
            throw bad("bad signature")
        }
        guard let madeBy = reader.u16(), let _ = reader.u16(), let flags = reader.u16(), let method = reader.u16(),
            let dosTime = reader.u16(), let dosDate = reader.u16(), let crc = reader.u32(), let compressed32 = reader.u32(), let size32 = reader.u32(),
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
        guard disk == 0 else { throw PackError(.multiDisk, "record \(index) starts on disk \(disk)", at: .pack(offset: offset)) }
        return ZipCentralRecord(
            recordOffset: offset, recordLength: reader.position - start, versionMadeBy: madeBy, flags: flags,
            method: method, crc32: crc, compressedSize: compressed, size: uncompressed, externalAttributes: external,
            localHeaderOffset: localOffset, name: Array(name), dosTime: dosTime, dosDate: dosDate)
    }
}

/// Reading the whole central directory (foreign zips at open, every zip in `verify`).
enum CentralDirectory {
    static func read(source: ByteSource, end: EndRecord) throws(PackError) -> [ZipCentralRecord] {
        guard end.directorySize <= UInt64(Int.max) else { throw PackError(.badCentralDirectory, "too large") }
        let bytes = try source.bytes(at: end.directoryOffset, count: Int(end.directorySize))
        return try bytes.withUnsafeBytes { (buffer) throws(PackError) -> [ZipCentralRecord] in
            var reader = ByteReader(buffer, fileOffset: end.directoryOffset)
            // The count was checked against size/46 when the end record was read.
            var records: [ZipCentralRecord] = []
            records.reserveCapacity(Int(end.entryCount))
            for index in 0..<Int(end.entryCount) {
                records.append(try ZipCentralRecord.parse(&reader, index: index))
            }
            guard reader.remaining == 0 else {
                throw PackError(
                    .badCentralDirectory,
                    "\(reader.remaining) bytes after the last of \(end.entryCount) records",
                    at: .pack(offset: reader.currentFileOffset))
            }
            return records
        }
    }

    /// The record's name as UTF-8: as stored when flagged UTF-8 or when it is valid UTF-8 anyway,
    /// else decoded from code page 437 (the zip default).
    static func utf8Name(_ record: ZipCentralRecord) -> [UInt8] { utf8Name(record.name, flags: record.flags) }

    /// A raw name as UTF-8, given the flags of its record.
    static func utf8Name(_ name: [UInt8], flags: UInt16) -> [UInt8] {
        if flags & ZipConstants.flagUTF8 != 0 || name.allSatisfy({ $0 < 0x80 })
            || String(validating: name, as: UTF8.self) != nil
        {
            return name
        }
        var scalars = String.UnicodeScalarView()
        for byte in name {
            scalars.append(Unicode.Scalar(byte < 0x80 ? UInt32(byte) : codePage437High[Int(byte - 0x80)]) ?? "?")
        }
        return Array(String(scalars).utf8)
    }

    static func displayName(_ record: ZipCentralRecord) -> String { String(decoding: utf8Name(record), as: UTF8.self) }

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
