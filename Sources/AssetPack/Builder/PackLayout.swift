/// Writes local headers with their data, the central directory and the end records, in the
/// pack format's fixed layout (stored, UTF-8, no data descriptors, aligned, Zip64 only if needed).
struct PackLayout {
    let alignment: Int
    let timestamp: DOSTimestamp

    /// What the central directory needs to know about a written entry.
    struct Written {
        var name: [UInt8]
        var headerOffset: UInt64
        var dataOffset: UInt64
        var size: UInt64
        var crc32: UInt32
    }

    static let unixRegularFile0644: UInt32 = 0o100644 << 16
    static let versionDefault: UInt16 = 20
    static let versionZip64: UInt16 = 45
    static let madeByUnix: UInt16 = 3 << 8

    /// Writes an entry whose bytes are in memory or streamed from a file.
    func writeEntry(_ entry: PackBuilder.Entry, to output: OutputFile) throws(PackError) -> Written {
        switch entry.contents {
        case .bytes(let bytes):
            let written = bytes.withUnsafeBytes { raw in
                Result { () throws(PackError) in
                    try writeEntry(name: entry.utf8, bytes: raw, crc32: CRC32.checksum(raw), to: output)
                }
            }
            return try written.get()
        case .file(let source):
            let headerOffset = output.position
            try output.append(localHeader(name: entry.utf8, size: source.listed.size, crc32: 0, at: headerOffset))
            let dataOffset = output.position
            var crc = CRC32()
            try source.copy(to: output, crc: &crc)
            var crcBytes: [UInt8] = []
            crcBytes.appendLE(crc.value)
            try output.patch(crcBytes, at: headerOffset + 14)
            return Written(
                name: entry.utf8, headerOffset: headerOffset, dataOffset: dataOffset, size: source.listed.size,
                crc32: crc.value)
        }
    }

    /// Writes an entry whose bytes and CRC-32 are known.
    func writeEntry(name: [UInt8], bytes: UnsafeRawBufferPointer, crc32: UInt32, to output: OutputFile) throws(PackError) -> Written {
        let headerOffset = output.position
        try output.append(localHeader(name: name, size: UInt64(bytes.count), crc32: crc32, at: headerOffset))
        let dataOffset = output.position
        try output.append(bytes)
        return Written(name: name, headerOffset: headerOffset, dataOffset: dataOffset, size: UInt64(bytes.count), crc32: crc32)
    }

    /// A local header at `headerOffset`, padded so that the data after it is aligned.
    func localHeader(name: [UInt8], size: UInt64, crc32: UInt32, at headerOffset: UInt64) -> [UInt8] {
        let zip64 = size >= UInt64(ZipConstants.marker32)
        var header: [UInt8] = []
        header.reserveCapacity(ZipConstants.localHeaderSize + name.count + 32 + alignment)
        header.appendLE(ZipSignature.localHeader)
        header.appendLE(zip64 ? Self.versionZip64 : Self.versionDefault)
        header.appendLE(ZipConstants.flagUTF8)
        header.appendLE(ZipConstants.methodStored)
        header.appendLE(timestamp.time)
        header.appendLE(timestamp.date)
        header.appendLE(crc32)
        let size32 = zip64 ? ZipConstants.marker32 : UInt32(size)
        header.appendLE(size32)
        header.appendLE(size32)
        // Extra: Zip64 sizes when needed, then the 0xD935 block padding the data to the alignment.
        let zip64Length = zip64 ? 20 : 0
        let unpadded =
            headerOffset + UInt64(ZipConstants.localHeaderSize + name.count + zip64Length)
            + UInt64(ZipConstants.alignmentExtraMinimumSize)
        let padding = Int((UInt64(alignment) - unpadded % UInt64(alignment)) % UInt64(alignment))
        header.appendLE(UInt16(name.count))
        header.appendLE(UInt16(zip64Length + ZipConstants.alignmentExtraMinimumSize + padding))
        header += name
        if zip64 {
            header.appendLE(ZipConstants.zip64ExtraID)
            header.appendLE(UInt16(16))
            header.appendLE(size)
            header.appendLE(size)
        }
        header.appendLE(ZipConstants.alignmentExtraID)
        header.appendLE(UInt16(2 + padding))
        header.appendLE(UInt16(alignment))
        header += repeatElement(0, count: padding)
        return header
    }

    func writeDirectory(_ entries: [Written], comment: [UInt8], to output: OutputFile) throws(PackError) {
        let directoryOffset = output.position
        for entry in entries {
            let sizeWide = entry.size >= UInt64(ZipConstants.marker32)
            let offsetWide = entry.headerOffset >= UInt64(ZipConstants.marker32)
            var extra: [UInt8] = []
            if sizeWide {
                extra.appendLE(entry.size)
                extra.appendLE(entry.size)
            }
            if offsetWide { extra.appendLE(entry.headerOffset) }
            if !extra.isEmpty {
                var block: [UInt8] = []
                block.appendLE(ZipConstants.zip64ExtraID)
                block.appendLE(UInt16(extra.count))
                extra = block + extra
            }
            let version = extra.isEmpty ? Self.versionDefault : Self.versionZip64
            var record: [UInt8] = []
            record.reserveCapacity(ZipConstants.centralHeaderSize + entry.name.count + extra.count)
            record.appendLE(ZipSignature.centralHeader)
            record.appendLE(Self.madeByUnix | version)
            record.appendLE(version)
            record.appendLE(ZipConstants.flagUTF8)
            record.appendLE(ZipConstants.methodStored)
            record.appendLE(timestamp.time)
            record.appendLE(timestamp.date)
            record.appendLE(entry.crc32)
            let size32 = sizeWide ? ZipConstants.marker32 : UInt32(entry.size)
            record.appendLE(size32)
            record.appendLE(size32)
            record.appendLE(UInt16(entry.name.count))
            record.appendLE(UInt16(extra.count))
            record.appendLE(UInt16(0))  // comment length
            record.appendLE(UInt16(0))  // disk number start
            record.appendLE(UInt16(0))  // internal attributes
            record.appendLE(Self.unixRegularFile0644)
            record.appendLE(offsetWide ? ZipConstants.marker32 : UInt32(entry.headerOffset))
            record += entry.name
            record += extra
            try output.append(record)
        }
        let directorySize = output.position - directoryOffset
        let count = UInt64(entries.count)
        let zip64 =
            count >= UInt64(ZipConstants.marker16) || directoryOffset >= UInt64(ZipConstants.marker32)
            || directorySize >= UInt64(ZipConstants.marker32)
        var end: [UInt8] = []
        if zip64 {
            let zip64EndOffset = output.position
            end.appendLE(ZipSignature.zip64EndOfCentralDirectory)
            end.appendLE(UInt64(ZipConstants.zip64EndRecordSize - 12))
            end.appendLE(Self.madeByUnix | Self.versionZip64)
            end.appendLE(Self.versionZip64)
            end.appendLE(UInt32(0))
            end.appendLE(UInt32(0))
            end.appendLE(count)
            end.appendLE(count)
            end.appendLE(directorySize)
            end.appendLE(directoryOffset)
            end.appendLE(ZipSignature.zip64Locator)
            end.appendLE(UInt32(0))
            end.appendLE(zip64EndOffset)
            end.appendLE(UInt32(1))
        }
        end.appendLE(ZipSignature.endOfCentralDirectory)
        end.appendLE(UInt16(0))
        end.appendLE(UInt16(0))
        let count16 = count >= UInt64(ZipConstants.marker16) ? ZipConstants.marker16 : UInt16(count)
        end.appendLE(count16)
        end.appendLE(count16)
        end.appendLE(directorySize >= UInt64(ZipConstants.marker32) ? ZipConstants.marker32 : UInt32(directorySize))
        end.appendLE(
            directoryOffset >= UInt64(ZipConstants.marker32) ? ZipConstants.marker32 : UInt32(directoryOffset))
        end.appendLE(UInt16(comment.count))
        end += comment
        try output.append(end)
    }
}
