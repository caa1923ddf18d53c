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

    /// What in this header disagrees with the entry's central directory record, or `nil`.
    ///
    /// Name (compared as UTF-8, decoded under the central record's flags), method and the
    /// encryption bit must match; CRC-32 and sizes too, unless the header defers them to a data
    /// descriptor (flag bit 3), as streaming writers do.
    func disagreement(
        withName centralName: ArraySlice<UInt8>, method centralMethod: UInt16, flags centralFlags: UInt16,
        crc32 centralCRC: UInt32, size centralSize: UInt64, compressedSize centralCompressedSize: UInt64
    ) -> String? {
        let localName = CentralDirectory.utf8Name(name, flags: centralFlags)
        guard localName.elementsEqual(centralName) else {
            return "the local header names \"\(String(decoding: localName, as: UTF8.self))\""
        }
        guard method == centralMethod else { return "the local header says method \(method), the directory \(centralMethod)" }
        guard flags & ZipConstants.flagEncrypted == centralFlags & ZipConstants.flagEncrypted else {
            return "only one of the headers marks the entry encrypted"
        }
        if flags & ZipConstants.flagDataDescriptor == 0 {
            guard crc32 == centralCRC else {
                return "the local header says CRC \(hex32(crc32)), the directory \(hex32(centralCRC))"
            }
            guard size == centralSize, compressedSize == centralCompressedSize else {
                return "the local header says \(compressedSize) bytes stored for \(size), the directory \(centralCompressedSize) for \(centralSize)"
            }
        }
        return nil
    }

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
            throw PackError(.badLocalHeader, "no local header signature", at: .pack(offset: headerOffset))
        }
        return headerOffset + UInt64(ZipConstants.localHeaderSize) + UInt64(nameLength) + UInt64(extraLength)
    }

    /// Parses the whole header at `headerOffset`; the header must end at or before `limit`.
    static func parse(in source: ByteSource, headerOffset: UInt64, limit: UInt64) throws(PackError) -> LocalHeader {
        let end = try dataOffset(in: source, headerOffset: headerOffset)
        guard end <= limit else {
            throw PackError(.badLocalHeader, "header runs past the central directory", at: .pack(offset: headerOffset))
        }
        let bytes = try source.bytes(at: headerOffset, count: Int(end - headerOffset))
        let header = try bytes.withUnsafeBytes { (buffer) throws(PackError) -> LocalHeader? in
            try parse(buffer, at: headerOffset, limit: limit)
        }
        guard let header else { throw PackError(.badLocalHeader, "truncated header", at: .pack(offset: headerOffset)) }
        return header
    }

    /// Parses the header at the start of `buffer`, which holds the file from `headerOffset` on;
    /// `nil` if the buffer ends before the header does (read it from the file then).
    static func parse(_ buffer: UnsafeRawBufferPointer, at headerOffset: UInt64, limit: UInt64) throws(PackError) -> LocalHeader? {
        var reader = ByteReader(buffer, fileOffset: headerOffset)
        guard let signature = reader.u32(), reader.skip(2), let flags = reader.u16(),
            let method = reader.u16(), reader.skip(4), let crc = reader.u32(), let compressed32 = reader.u32(),
            let size32 = reader.u32(), let nameLength = reader.u16(), let extraLength = reader.u16()
        else { return nil }
        guard signature == ZipSignature.localHeader else {
            throw PackError(.badLocalHeader, "no local header signature", at: .pack(offset: headerOffset))
        }
        let end = headerOffset + UInt64(ZipConstants.localHeaderSize) + UInt64(nameLength) + UInt64(extraLength)
        guard end <= limit else {
            throw PackError(.badLocalHeader, "header runs past the central directory", at: .pack(offset: headerOffset))
        }
        guard let name = reader.take(Int(nameLength)), let extra = reader.take(Int(extraLength)) else { return nil }
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
            throw PackError(.badLocalHeader, error.detail, at: .pack(offset: headerOffset))
        }
        return LocalHeader(
            flags: flags, method: method, crc32: crc, compressedSize: compressed, size: size, name: Array(name),
            dataOffset: end, recordedAlignment: ExtraFields.alignment(in: extra))
    }
}
