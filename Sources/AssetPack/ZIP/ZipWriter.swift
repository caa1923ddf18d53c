/// Writes zip records in the pack format's fixed layout: stored entries, UTF-8 names, no data
/// descriptors, data aligned with an Android 0xD935 extra block, Zip64 only when needed.
///
/// It makes the records' bytes; the builder decides where they go.
struct ZipWriter {
    let alignment: Int
    let timestamp: DOSTimestamp

    static let unixRegularFile0644: UInt32 = 0o100644 << 16
    static let versionDefault: UInt16 = 20
    static let versionZip64: UInt16 = 45
    static let madeByUnix: UInt16 = 3 << 8

    /// A local header at `headerOffset`, padded so that the data after it is aligned.
    ///
    /// `alignment` must be a valid one (``isValidAlignment(_:)``) and `name` at most 65,535 bytes:
    /// the builder checks both before it writes, a reader before it rebuilds a header.
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
        // Only the sum modulo the alignment matters, and the alignment (a power of two) divides
        // 2^64: wrapping addition gives the same padding for any offset, even one from a hostile
        // file near 2^64.
        let unpadded =
            headerOffset &+ UInt64(ZipConstants.localHeaderSize + name.count + zip64Length)
            &+ UInt64(ZipConstants.alignmentExtraMinimumSize)
        let padding = Int((UInt64(alignment) &- unpadded % UInt64(alignment)) % UInt64(alignment))
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

    /// Where a local header's CRC-32 field is, from the header's start (for entries streamed
    /// before their CRC is known).
    static let localHeaderCRCOffset: UInt64 = 14

    /// The central directory record of `entry`.
    func centralRecord(_ entry: ZipEntryLocation) -> [UInt8] {
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
        record.reserveCapacity(ZipConstants.centralHeaderSize + entry.path.count + extra.count)
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
        record.appendLE(UInt16(entry.path.count))
        record.appendLE(UInt16(extra.count))
        record.appendLE(UInt16(0))  // comment length
        record.appendLE(UInt16(0))  // disk number start
        record.appendLE(UInt16(0))  // internal attributes
        record.appendLE(Self.unixRegularFile0644)
        record.appendLE(offsetWide ? ZipConstants.marker32 : UInt32(entry.headerOffset))
        record += entry.path
        record += extra
        return record
    }

    /// The end records after a central directory of `count` records, `directorySize` bytes at
    /// `directoryOffset`: the Zip64 end record and locator when needed, then the end record with
    /// `comment`.
    func endRecords(count: UInt64, directoryOffset: UInt64, directorySize: UInt64, comment: [UInt8]) -> [UInt8] {
        let zip64 =
            count >= UInt64(ZipConstants.marker16) || directoryOffset >= UInt64(ZipConstants.marker32)
            || directorySize >= UInt64(ZipConstants.marker32)
        var end: [UInt8] = []
        if zip64 {
            let zip64EndOffset = directoryOffset + directorySize
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
        return end
    }
}

/// Where an entry is in the zip, as the writer placed it: what the central directory and the
/// pack index record of it.
package struct ZipEntryLocation: Sendable {
    /// The entry number (its position in the central directory).
    package var number: Int
    /// The name's UTF-8 bytes.
    package var path: [UInt8]
    /// Where its local header starts.
    package var headerOffset: UInt64
    /// Where its data starts.
    package var dataOffset: UInt64
    /// The size of its data.
    package var size: UInt64
    /// The CRC-32 of its data.
    package var crc32: UInt32
    /// The SHA-256 of its bytes, in format-2 packs.
    package var sha256: EntryHash? = nil
}
