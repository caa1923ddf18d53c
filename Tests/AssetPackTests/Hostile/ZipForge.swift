// Builds zip files byte by byte, with every field under the test's control, so hostile inputs
// are generated in code rather than committed as opaque blobs. Compiled into the test target
// and, by Scripts/fuzz, into the fuzzer's seed writer (FUZZ_STANDALONE: same module as the library).
import CAssetPackZlib

#if !FUZZ_STANDALONE
@testable import AssetPack
#endif

/// One entry of a forged zip. Every header field can be overridden independently.
struct ForgedEntry {
    var name: [UInt8]
    /// The bytes as stored (deflated already for method 8).
    var stored: [UInt8]
    var size: UInt64
    var crc32: UInt32
    var method: UInt16 = 0
    var flags: UInt16 = 0x0800
    var localName: [UInt8]?
    var localCRC: UInt32?
    var localSizes: (compressed: UInt32, size: UInt32)?
    var localFlags: UInt16?
    var localMethod: UInt16?
    var localExtra: [UInt8] = []
    var centralExtra: [UInt8] = []
    var centralSizes: (compressed: UInt32, size: UInt32)?
    /// Point the central record at another entry's local header (shared data).
    var sharesHeaderOf: Int?
    var centralOffsetOverride: UInt32?
    var nameLengthOverride: UInt16?
    var extraLengthOverride: UInt16?
    var commentLengthOverride: UInt16?
    /// Unix mode in the high 16 bits (a regular 0644 file by default).
    var externalAttributes: UInt32 = 0o100644 << 16

    static func stored(_ name: String, _ bytes: [UInt8]) -> ForgedEntry {
        stored(Array(name.utf8), bytes)
    }

    static func stored(_ name: [UInt8], _ bytes: [UInt8]) -> ForgedEntry {
        ForgedEntry(name: name, stored: bytes, size: UInt64(bytes.count), crc32: forgeCRC(bytes))
    }

    static func deflated(_ name: String, _ bytes: [UInt8]) -> ForgedEntry {
        var entry = ForgedEntry(
            name: Array(name.utf8), stored: rawDeflate(bytes), size: UInt64(bytes.count), crc32: forgeCRC(bytes))
        entry.method = 8
        return entry
    }
}

/// Overrides for the Zip64 end record and locator.
struct ForgedZip64 {
    var entries: UInt64?
    var directorySize: UInt64?
    var directoryOffset: UInt64?
    var locatorOffset: UInt64?
    var endSignature: UInt32 = 0x0606_4b50
    var disk: UInt32 = 0
}

/// A whole forged zip.
struct ZipForge {
    var entries: [ForgedEntry]
    var comment: [UInt8] = []
    var prefix: [UInt8] = []
    var suffix: [UInt8] = []
    var disk: UInt16 = 0
    var directoryDisk: UInt16 = 0
    var diskEntries: UInt16?
    var totalEntries: UInt16?
    var directorySize: UInt32?
    var directoryOffset: UInt32?
    var commentLength: UInt16?
    var zip64: ForgedZip64?
    /// Applied to the central directory bytes before they are written.
    var editDirectory: (([UInt8]) -> [UInt8])?

    init(_ entries: [ForgedEntry]) { self.entries = entries }

    func bytes() -> [UInt8] {
        var out = prefix
        var localOffsets: [UInt64] = []
        for entry in entries {
            localOffsets.append(UInt64(out.count))
            if entry.sharesHeaderOf != nil { continue }
            let name = entry.localName ?? entry.name
            out.appendForged(UInt32(0x0403_4b50))
            out.appendForged(UInt16(20))
            out.appendForged(entry.localFlags ?? entry.flags)
            out.appendForged(entry.localMethod ?? entry.method)
            out.appendForged(UInt16(0))
            out.appendForged(UInt16(0x21))
            out.appendForged(entry.localCRC ?? entry.crc32)
            let sizes = entry.localSizes ?? (UInt32(truncatingIfNeeded: entry.stored.count), UInt32(truncatingIfNeeded: entry.size))
            out.appendForged(sizes.compressed)
            out.appendForged(sizes.size)
            out.appendForged(UInt16(name.count))
            out.appendForged(UInt16(entry.localExtra.count))
            out += name
            out += entry.localExtra
            out += entry.stored
        }
        var directory: [UInt8] = []
        for (index, entry) in entries.enumerated() {
            let offset = entry.sharesHeaderOf.map { localOffsets[$0] } ?? localOffsets[index]
            directory.appendForged(UInt32(0x0201_4b50))
            directory.appendForged(UInt16(0x031E))
            directory.appendForged(UInt16(20))
            directory.appendForged(entry.flags)
            directory.appendForged(entry.method)
            directory.appendForged(UInt16(0))
            directory.appendForged(UInt16(0x21))
            directory.appendForged(entry.crc32)
            let sizes = entry.centralSizes ?? (UInt32(truncatingIfNeeded: entry.stored.count), UInt32(truncatingIfNeeded: entry.size))
            directory.appendForged(sizes.compressed)
            directory.appendForged(sizes.size)
            directory.appendForged(entry.nameLengthOverride ?? UInt16(entry.name.count))
            directory.appendForged(entry.extraLengthOverride ?? UInt16(entry.centralExtra.count))
            directory.appendForged(entry.commentLengthOverride ?? 0)
            directory.appendForged(UInt16(0))
            directory.appendForged(UInt16(0))
            directory.appendForged(entry.externalAttributes)
            directory.appendForged(entry.centralOffsetOverride ?? UInt32(truncatingIfNeeded: offset))
            directory += entry.name
            directory += entry.centralExtra
        }
        if let editDirectory { directory = editDirectory(directory) }
        let directoryStart = UInt64(out.count)
        out += directory
        if let zip64 {
            let endOffset = UInt64(out.count)
            out.appendForged(zip64.endSignature)
            out.appendForged(UInt64(44))
            out.appendForged(UInt16(0x032D))
            out.appendForged(UInt16(45))
            out.appendForged(zip64.disk)
            out.appendForged(UInt32(0))
            out.appendForged(zip64.entries ?? UInt64(entries.count))
            out.appendForged(zip64.entries ?? UInt64(entries.count))
            out.appendForged(zip64.directorySize ?? UInt64(directory.count))
            out.appendForged(zip64.directoryOffset ?? directoryStart)
            out.appendForged(UInt32(0x0706_4b50))
            out.appendForged(UInt32(0))
            out.appendForged(zip64.locatorOffset ?? endOffset)
            out.appendForged(UInt32(1))
        }
        out.appendForged(UInt32(0x0605_4b50))
        out.appendForged(disk)
        out.appendForged(directoryDisk)
        let count = UInt16(truncatingIfNeeded: entries.count)
        out.appendForged(diskEntries ?? (zip64 != nil ? 0xFFFF : count))
        out.appendForged(totalEntries ?? (zip64 != nil ? 0xFFFF : count))
        out.appendForged(directorySize ?? (zip64 != nil ? 0xFFFF_FFFF : UInt32(directory.count)))
        out.appendForged(directoryOffset ?? (zip64 != nil ? 0xFFFF_FFFF : UInt32(directoryStart)))
        out.appendForged(commentLength ?? UInt16(comment.count))
        out += comment
        out += suffix
        return out
    }
}

extension Array where Element == UInt8 {
    mutating func appendForged<T: FixedWidthInteger>(_ value: T) {
        Swift.withUnsafeBytes(of: value.littleEndian) { append(contentsOf: $0) }
    }
}

func forgeCRC(_ bytes: [UInt8]) -> UInt32 {
    bytes.withUnsafeBufferPointer { UInt32(truncatingIfNeeded: crc32(0, $0.baseAddress, uInt($0.count))) }
}

/// Raw deflate (no zlib header), as zip method 8 stores it.
func rawDeflate(_ bytes: [UInt8]) -> [UInt8] {
    var stream = z_stream()
    deflateInit2_(&stream, 9, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size))
    defer { deflateEnd(&stream) }
    var output = [UInt8](repeating: 0, count: Int(deflateBound(&stream, uLong(bytes.count))) + 16)
    var input = bytes
    let produced = input.withUnsafeMutableBufferPointer { inBuffer in
        output.withUnsafeMutableBufferPointer { outBuffer in
            stream.next_in = inBuffer.baseAddress
            stream.avail_in = uInt(inBuffer.count)
            stream.next_out = outBuffer.baseAddress
            stream.avail_out = uInt(outBuffer.count)
            _ = deflate(&stream, Z_FINISH)
            return Int(stream.total_out)
        }
    }
    return Array(output.prefix(produced))
}

/// Writes a pack with the builder's own layout step, but lets a test edit the index JSON, the
/// end record's comment and the central directory's view of the entries before they are
/// written; names are taken as given (not checked) and nothing is verified or published.
func forgePack(
    _ files: [(String, [UInt8])], at path: String, alignment: Int = 16,
    editIndex: @escaping (inout [UInt8]) -> Void = { _ in },
    comment: ((IndexLocation) -> [UInt8])? = nil,
    editEntries: ((inout [ZipEntryLocation]) -> Void)? = nil
) throws -> [UInt8] {
    let entries = files.map { name, bytes in
        PackBuilder.PendingEntry(path: name, utf8: Array(name.utf8), origin: name, contents: .bytes(bytes))
    }.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
    let output = try OutputFile(creating: path)
    _ = try PackBuilder.layOut(
        entries, name: "forged", options: .init(alignment: alignment), timestamp: .epoch, into: output,
        hooks: .init(editIndex: editIndex, comment: comment, editEntries: editEntries))
    return Array(try readWholeFile(path))
}

func readWholeFile(_ path: String) throws -> [UInt8] {
    let pack = try ByteSource.open(path: path, backend: .read)
    return Array(try pack.0.bytes(at: 0, count: Int(pack.0.size)))
}
