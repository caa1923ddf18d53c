// The hostile-input table: every case is a file generated in code by byte surgery on a valid
// zip or pack, the stage where it must fail, and the exact error it must give. Shared by the
// test suite and the fuzzer's seed corpus (Scripts/fuzz).
#if !FUZZ_STANDALONE
@testable import AssetPack
#endif

struct HostileCase: Sendable {
    enum Stage: Sendable, Equatable {
        /// `Pack(path:)` gives the outcome.
        case open
        /// Opening succeeds; reading this entry gives the outcome.
        case read(String)
        /// Opening succeeds; `verify()` gives the outcome.
        case verify
        /// Opening succeeds; extracting everything gives the outcome, writing nothing outside.
        case extract
    }

    var group: String
    var name: String
    var stage: Stage
    /// The expected error code, or `nil` when the input must be accepted.
    var code: PackError.Code?
    /// The entry the error must name, when it concerns one.
    var entry: String? = nil
    var make: @Sendable (_ scratch: String) throws -> [UInt8]
}

private let alpha = Array("alpha, the first file\n".utf8)
private let bravo = Array(String(repeating: "bravo ", count: 300).utf8)

/// A valid three-entry zip: stored, stored in a folder, deflated.
private func validZip() -> ZipForge {
    ZipForge([.stored("a.txt", alpha), .stored("dir/b.txt", bravo), .deflated("c.txt", bravo)])
}

private func zip(_ edit: @escaping @Sendable (inout ZipForge) -> Void) -> @Sendable (String) throws -> [UInt8] {
    { _ in
        var forge = validZip()
        edit(&forge)
        return forge.bytes()
    }
}

private func entries(_ list: [ForgedEntry]) -> @Sendable (String) throws -> [UInt8] {
    nonisolated(unsafe) let list = list
    return { _ in ZipForge(list).bytes() }
}

private let packFiles: [(String, [UInt8])] = [("a.txt", alpha), ("dir/b.txt", bravo), ("dir/c.txt", Array("c".utf8))]

private func pack(
    editIndex: @escaping @Sendable (inout [UInt8]) -> Void = { _ in },
    comment: (@Sendable (IndexLocation) -> [UInt8])? = nil,
    alignment: Int = 16,
    editEntries: (@Sendable (inout [ZipEntryLocation]) -> Void)? = nil,
    bytes edit: @escaping @Sendable (inout [UInt8]) -> Void = { _ in }
) -> @Sendable (String) throws -> [UInt8] {
    { scratch in
        var bytes = try forgePack(
            packFiles, at: scratch + "/forged-\(UInt32.random(in: 0...UInt32.max)).pack", alignment: alignment,
            editIndex: editIndex, comment: comment, editEntries: editEntries)
        edit(&bytes)
        return bytes
    }
}

/// Where the central directory starts, from the end record (the last 22 bytes before the comment).
private func centralDirectoryOffset(_ bytes: [UInt8]) -> Int {
    let end = (0...(bytes.count - 22)).last { bytes[$0] == 0x50 && bytes[$0 + 1] == 0x4B && bytes[$0 + 2] == 5 && bytes[$0 + 3] == 6 } ?? 0
    return Int(bytes[end + 16]) | Int(bytes[end + 17]) << 8 | Int(bytes[end + 18]) << 16 | Int(bytes[end + 19]) << 24
}

/// Replaces the first occurrence of `old` by `new` (same length or not).
private func replacing(_ old: String, with new: String) -> @Sendable (inout [UInt8]) -> Void {
    { bytes in
        let needle = Array(old.utf8)
        guard let start = (0...(bytes.count - needle.count)).first(where: { bytes[$0..<$0 + needle.count].elementsEqual(needle) })
        else { return }
        bytes.replaceSubrange(start..<start + needle.count, with: Array(new.utf8))
    }
}

extension HostileCase {
    static let all: [HostileCase] = endRecords + centralDirectory + entryCases + names + packCases

    // MARK: End records

    static let endRecords: [HostileCase] = [
        HostileCase(group: "end", name: "empty file", stage: .open, code: .notAZip) { _ in [] },
        HostileCase(group: "end", name: "ten bytes", stage: .open, code: .notAZip) { _ in Array("PK\u{3}\u{4}hello".utf8) },
        HostileCase(group: "end", name: "a lone end signature, short", stage: .open, code: .notAZip) { _ in
            [0x50, 0x4B, 5, 6] + [UInt8](repeating: 0, count: 10)
        },
        HostileCase(group: "end", name: "no end record in the last 65,557 bytes", stage: .open, code: .notAZip,
            make: zip { $0.suffix = [UInt8](repeating: 0x20, count: 70_000) }),
        HostileCase(group: "end", name: "junk after the end record", stage: .open, code: .badEndRecord,
            make: zip { $0.suffix = Array("trailing junk".utf8) }),
        HostileCase(group: "end", name: "comment length past the end", stage: .open, code: .badEndRecord,
            make: zip { $0.comment = Array("hi".utf8); $0.commentLength = 40 }),
        HostileCase(group: "end", name: "comment length short of the end", stage: .open, code: .badEndRecord,
            make: zip { $0.comment = Array("hello".utf8); $0.commentLength = 2 }),
        HostileCase(group: "end", name: "a fake end record hidden in the comment is passed over", stage: .open, code: nil,
            make: zip { forge in
                // A fake record whose own (empty) comment reaches the end exactly.
                var fake: [UInt8] = [0x50, 0x4B, 5, 6]
                fake += [UInt8](repeating: 0, count: 4) + [9, 0, 9, 0] + [0xFF, 0, 0, 0, 0x10, 0, 0, 0] + [0, 0]
                forge.comment = Array("note: ".utf8) + fake
            }),
        HostileCase(group: "end", name: "thousands of fake end signatures in the comment", stage: .open, code: nil,
            make: zip { $0.comment = Array([[UInt8]](repeating: [0x50, 0x4B, 5, 6], count: 8000).joined()) }),
        HostileCase(group: "end", name: "junk before the archive, offsets not adjusted", stage: .open,
            code: .badEndRecord, make: { _ in Array("#!/bin/sh\nexit 0\n".utf8) + validZip().bytes() }),
        HostileCase(group: "end", name: "a self-extractor stub with adjusted offsets is accepted", stage: .verify,
            code: nil, make: zip { $0.prefix = Array("#!/bin/sh\nexit 0\n".utf8) }),
        HostileCase(group: "end", name: "multi-disk: disk number 1", stage: .open, code: .multiDisk,
            make: zip { $0.disk = 1 }),
        HostileCase(group: "end", name: "multi-disk: entries on this disk differ", stage: .open, code: .multiDisk,
            make: zip { $0.diskEntries = 1 }),
        HostileCase(group: "end", name: "directory offset past the end of the file", stage: .open, code: .badEndRecord,
            make: zip { $0.directoryOffset = 0x7FFF_FFF0 }),
        HostileCase(group: "end", name: "directory size overlapping the end record", stage: .open, code: .badEndRecord,
            make: zip { $0.directorySize = 10_000 }),
        HostileCase(group: "end", name: "entry count larger than size/46", stage: .open, code: .badEndRecord,
            make: zip { $0.totalEntries = 60_000; $0.diskEntries = 60_000 }),
    ]

    // MARK: Central directory

    static let centralDirectory: [HostileCase] = [
        HostileCase(group: "directory", name: "bad signature in the middle of the directory", stage: .open,
            code: .badCentralDirectory,
            make: zip { forge in
                forge.editDirectory = { bytes in
                    var bytes = bytes
                    let second = 46 + 5  // the first record is 46 bytes plus "a.txt"
                    bytes[second] = 0x51
                    return bytes
                }
            }),
        HostileCase(group: "directory", name: "name length past the end of the directory", stage: .open,
            code: .badCentralDirectory, make: zip { $0.entries[2].nameLengthOverride = 4000 }),
        HostileCase(group: "directory", name: "extra length past the end of the directory", stage: .open,
            code: .badCentralDirectory, make: zip { $0.entries[2].extraLengthOverride = 0xFFFF }),
        HostileCase(group: "directory", name: "comment length past the end of the directory", stage: .open,
            code: .badCentralDirectory, make: zip { $0.entries[2].commentLengthOverride = 300 }),
        HostileCase(group: "directory", name: "malformed extra field block", stage: .open, code: .badCentralDirectory,
            make: zip { $0.entries[0].centralExtra = [0x0A, 0x00, 0x40, 0x00, 1, 2, 3] }),
        HostileCase(group: "directory", name: "Zip64 extra field too short for its markers", stage: .open,
            code: .badCentralDirectory,
            make: zip { forge in
                forge.entries[0].centralSizes = (0xFFFF_FFFF, 0xFFFF_FFFF)
                forge.entries[0].centralExtra = [0x01, 0x00, 0x08, 0x00] + [UInt8](repeating: 0, count: 8)
            }),
        HostileCase(group: "directory", name: "fewer entries claimed than records present", stage: .open,
            code: .badCentralDirectory, make: zip { $0.totalEntries = 2; $0.diskEntries = 2 }),
        HostileCase(group: "directory", name: "Zip64 locator pointing past the end", stage: .open, code: .badZip64,
            make: zip { $0.zip64 = ForgedZip64(locatorOffset: 0xFFFF_FFFF_0000) }),
        HostileCase(group: "directory", name: "Zip64 end record with a bad signature", stage: .open, code: .badZip64,
            make: zip { $0.zip64 = ForgedZip64(endSignature: 0x0606_4b51) }),
        HostileCase(group: "directory", name: "Zip64 end record claims 2^40 entries", stage: .open, code: .badEndRecord,
            make: zip { $0.zip64 = ForgedZip64(entries: 1 << 40) }),
        HostileCase(group: "directory", name: "Zip64 directory offset near 2^64 (overflow)", stage: .open,
            code: .badEndRecord, make: zip { $0.zip64 = ForgedZip64(directoryOffset: UInt64.max - 10) }),
        HostileCase(group: "directory", name: "Zip64 end record on another disk", stage: .open, code: .multiDisk,
            make: zip { $0.zip64 = ForgedZip64(disk: 2) }),
        HostileCase(group: "directory", name: "a valid Zip64 end record is accepted", stage: .open, code: nil,
            make: zip { $0.zip64 = ForgedZip64() }),
        HostileCase(group: "directory", name: "offset marker 0xFFFFFFFF without a Zip64 field", stage: .open,
            code: .entryOutOfBounds, make: zip { $0.entries[1].centralOffsetOverride = 0xFFFF_FFFF }),
    ]

    // MARK: Entries

    static let entryCases: [HostileCase] = [
        HostileCase(group: "entries", name: "local header offset past the directory", stage: .open,
            code: .entryOutOfBounds, entry: "dir/b.txt", make: zip { $0.entries[1].centralOffsetOverride = 0x00FF_FFFF }),
        HostileCase(group: "entries", name: "local header signature missing", stage: .read("dir/b.txt"),
            code: .badLocalHeader, entry: "dir/b.txt", make: zip { $0.entries[1].centralOffsetOverride = 3 }),
        HostileCase(group: "entries", name: "local name differs from the central name", stage: .verify,
            code: .headerMismatch, entry: "a.txt", make: zip { $0.entries[0].localName = Array("x.txt".utf8) }),
        HostileCase(group: "entries", name: "local sizes differ from the central sizes", stage: .verify,
            code: .headerMismatch, entry: "dir/b.txt", make: zip { $0.entries[1].localSizes = (5, 5) }),
        HostileCase(group: "entries", name: "local method differs", stage: .verify, code: .headerMismatch, entry: "a.txt",
            make: zip { $0.entries[0].localMethod = 8 }),
        HostileCase(group: "entries", name: "CRC mismatch on a stored entry", stage: .verify, code: .crcMismatch,
            entry: "a.txt",
            make: zip { $0.entries[0].crc32 ^= 1; $0.entries[0].localCRC = $0.entries[0].crc32 }),
        HostileCase(group: "entries", name: "CRC mismatch on a deflated entry, at read", stage: .read("c.txt"),
            code: .crcMismatch, entry: "c.txt",
            make: zip { $0.entries[2].crc32 ^= 1; $0.entries[2].localCRC = $0.entries[2].crc32 }),
        HostileCase(group: "entries", name: "two entries sharing one local header (zip bomb)", stage: .verify,
            code: .headerMismatch, entry: "copy.txt",
            make: zip { forge in
                var copy = forge.entries[1]
                copy.name = Array("copy.txt".utf8)
                copy.sharesHeaderOf = 1
                forge.entries.append(copy)
            }),
        HostileCase(group: "entries", name: "an entry hidden inside another entry's data", stage: .verify,
            code: .overlappingEntries, entry: "inner.txt",
            make: { _ in
                // outer.bin's stored bytes are a complete local header and data for inner.txt;
                // inner.txt's central record points into them. Every header agrees; only the
                // ranges overlap.
                let inner = ForgedEntry.stored("inner.txt", alpha)
                let innerLocal = Array(ZipForge([inner]).bytes().prefix(30 + 9 + alpha.count))
                var hidden = inner
                hidden.sharesHeaderOf = 0
                hidden.centralOffsetOverride = UInt32(30 + "outer.bin".utf8.count)
                return ZipForge([.stored("outer.bin", innerLocal), hidden]).bytes()
            }),
        HostileCase(group: "entries", name: "huge declared size in a tiny file", stage: .read("c.txt"),
            code: .sizeMismatch, entry: "c.txt",
            make: zip { forge in
                forge.entries[2].centralSizes = (UInt32(forge.entries[2].stored.count), 0xFFFF_FFF0)
                forge.entries[2].localSizes = forge.entries[2].centralSizes
            }),
        HostileCase(group: "entries", name: "deflated data longer than declared", stage: .read("c.txt"),
            code: .sizeMismatch, entry: "c.txt",
            make: zip { forge in
                forge.entries[2].centralSizes = (UInt32(forge.entries[2].stored.count), 100)
                forge.entries[2].localSizes = forge.entries[2].centralSizes
            }),
        HostileCase(group: "entries", name: "local header declares other sizes than the central directory",
            stage: .read("c.txt"), code: .headerMismatch, entry: "c.txt",
            make: zip { $0.entries[2].centralSizes = (UInt32($0.entries[2].stored.count), 100) }),
        HostileCase(group: "entries", name: "local header names another file than the central directory",
            stage: .read("a.txt"), code: .headerMismatch, entry: "a.txt",
            make: zip { $0.entries[0].localName = Array("z.txt".utf8) }),
        HostileCase(group: "entries", name: "stored entry whose two sizes differ", stage: .open, code: .sizeMismatch,
            entry: "a.txt", make: zip { $0.entries[0].centralSizes = (UInt32(alpha.count), UInt32(alpha.count + 1)) }),
        HostileCase(group: "entries", name: "unknown compression method", stage: .read("a.txt"),
            code: .unsupportedMethod, entry: "a.txt", make: zip { $0.entries[0].method = 99; $0.entries[0].localMethod = 99 }),
        HostileCase(group: "entries", name: "encrypted entry", stage: .read("a.txt"), code: .encrypted, entry: "a.txt",
            make: zip { $0.entries[0].flags |= 1 }),
        HostileCase(group: "entries", name: "data descriptor in a foreign zip is accepted", stage: .verify, code: nil,
            make: zip { forge in
                forge.entries[0].flags |= 8
                forge.entries[0].localFlags = forge.entries[0].flags
                forge.entries[0].localCRC = 0
                forge.entries[0].localSizes = (0, 0)
            }),
        HostileCase(group: "entries", name: "corrupt deflate stream", stage: .read("c.txt"), code: .inflateFailed,
            entry: "c.txt", make: zip { forge in
                forge.entries[2].stored = [0xFF] + forge.entries[2].stored.dropFirst()
            }),
    ]

    // MARK: Names

    static let names: [HostileCase] = [
        HostileCase(group: "names", name: "the same name twice", stage: .open, code: .duplicateName, entry: "a.txt",
            make: entries([.stored("a.txt", alpha), .stored("a.txt", bravo)])),
        HostileCase(group: "names", name: "names equal but for case", stage: .verify, code: .nameCollision,
            entry: "readme.txt", make: entries([.stored("README.txt", alpha), .stored("readme.txt", bravo)])),
        HostileCase(group: "names", name: "names equal but for Unicode normalization", stage: .verify,
            code: .nameCollision, entry: "cafe\u{301}.txt",
            make: entries([.stored("caf\u{E9}.txt", alpha), .stored("cafe\u{301}.txt", bravo)])),
        HostileCase(group: "names", name: "a file and a folder of the same name", stage: .verify, code: .nameCollision,
            entry: "doc", make: entries([.stored("doc", alpha), .stored("doc/inner.txt", bravo)])),
        HostileCase(group: "names", name: "a file and a folder of the same name but for case", stage: .verify,
            code: .nameCollision, entry: "DOC", make: entries([.stored("DOC", alpha), .stored("doc/inner.txt", bravo)])),
        HostileCase(group: "names", name: "empty name", stage: .extract, code: .unsafeName, entry: "",
            make: entries([.stored("ok.txt", alpha), .stored("", bravo)])),
        HostileCase(group: "names", name: "NUL in a name", stage: .extract, code: .unsafeName, entry: "evil\u{0}.txt",
            make: entries([.stored("evil\u{0}.txt", alpha)])),
        HostileCase(group: "names", name: "control character in a name", stage: .verify, code: .unsafeName,
            entry: "bell\u{7}.txt", make: entries([.stored("bell\u{7}.txt", alpha)])),
        HostileCase(group: "names", name: "../x", stage: .extract, code: .unsafeName, entry: "../escaped.txt",
            make: entries([.stored("fine.txt", alpha), .stored("../escaped.txt", bravo)])),
        HostileCase(group: "names", name: "a/../../x", stage: .extract, code: .unsafeName, entry: "a/../../escaped.txt",
            make: entries([.stored("a/../../escaped.txt", bravo)])),
        HostileCase(group: "names", name: "/x", stage: .extract, code: .unsafeName, entry: "/tmp/escaped.txt",
            make: entries([.stored("/tmp/escaped.txt", bravo)])),
        HostileCase(group: "names", name: "//x", stage: .extract, code: .unsafeName, entry: "//escaped.txt",
            make: entries([.stored("//escaped.txt", bravo)])),
        HostileCase(group: "names", name: "backslash traversal", stage: .extract, code: .unsafeName,
            entry: "..\\escaped.txt", make: entries([.stored("..\\escaped.txt", bravo)])),
        HostileCase(group: "names", name: "drive prefix", stage: .extract, code: .unsafeName, entry: "C:escaped.txt",
            make: entries([.stored("C:escaped.txt", bravo)])),
        HostileCase(group: "names", name: "dot component", stage: .verify, code: .unsafeName, entry: "a/./b.txt",
            make: entries([.stored("a/./b.txt", bravo)])),
        HostileCase(group: "names", name: "over-long name", stage: .verify, code: .unsafeName,
            entry: String(repeating: "n", count: 2000), make: entries([.stored(String(repeating: "n", count: 2000), alpha)])),
        HostileCase(group: "names", name: "deep path", stage: .extract, code: .unsafeName,
            entry: Array(repeating: "d", count: 700).joined(separator: "/"),
            make: entries([.stored(Array(repeating: "d", count: 700).joined(separator: "/"), alpha)])),
        HostileCase(group: "names", name: "a symbolic link entry is extracted as a plain file", stage: .extract,
            code: nil, make: entries([symlink("link", to: "/etc/passwd"), .stored("ok.txt", alpha)])),
        HostileCase(group: "names", name: "a file written through a symbolic link entry", stage: .extract,
            code: .nameCollision, entry: "link/escaped.txt",
            make: entries([symlink("link", to: "../../outside"), .stored("link/escaped.txt", alpha)])),
        HostileCase(group: "names", name: "setuid and device modes are ignored", stage: .extract, code: nil,
            make: entries([withMode(.stored("setuid", alpha), 0o104755), withMode(.stored("device", []), 0o020644)])),
        HostileCase(group: "names", name: "invalid UTF-8 in a UTF-8 flagged name", stage: .verify, code: .unsafeName,
            entry: "bad\u{FFFD}.txt", make: entries([.stored([0x62, 0x61, 0x64, 0xFF, 0x2E, 0x74, 0x78, 0x74], alpha)])),
    ]

    // MARK: Pack-specific damage

    static let packCases: [HostileCase] = [
        HostileCase(group: "pack", name: "a forged pack is valid", stage: .verify, code: nil, make: pack()),
        HostileCase(group: "pack", name: "index JSON is not JSON", stage: .open, code: .badIndex,
            entry: ".pack/index.json", make: pack(editIndex: replacing("\"files\":{", with: "\"files\":["))),
        HostileCase(group: "pack", name: "index JSON truncated", stage: .open, code: .badIndex, entry: ".pack/index.json",
            make: pack(editIndex: { $0.removeLast(10) })),
        HostileCase(group: "pack", name: "index with a duplicate key", stage: .open, code: .badIndex,
            entry: ".pack/index.json", make: pack(editIndex: replacing("\"name\":\"forged\"", with: "\"name\":\"a\",\"name\":\"b\""))),
        HostileCase(group: "pack", name: "index nested 1,000 folders deep", stage: .open, code: .badIndex,
            entry: ".pack/index.json",
            make: pack(editIndex: replacing(
                "\"files\":{", with: "\"files\":{" + String(repeating: "\"d\":{", count: 1000) + String(repeating: "}", count: 1000) + ","))),
        HostileCase(group: "pack", name: "index whose paths add up to more than the directory holds", stage: .open,
            code: .badIndex, entry: ".pack/index.json",
            make: pack(editIndex: replacing(
                "\"files\":{",
                // 1.5 MB of index naming 72,000 paths of 60 KB: past 4 GiB if the parser built them all.
                with: "\"files\":{\"" + String(repeating: "d", count: 60_000) + "\":{"
                    + (0..<72_000).map { "\"\($0)\":[\($0),64,1,0]" }.joined(separator: ",") + "},"))),
        HostileCase(group: "pack", name: "index entry numbers out of order", stage: .open, code: .badIndex,
            entry: ".pack/index.json", make: pack(editIndex: replacing("\"a.txt\":[0,", with: "\"a.txt\":[2,"))),
        HostileCase(group: "pack", name: "index entry count disagrees", stage: .open, code: .badIndex,
            entry: ".pack/index.json", make: pack(editIndex: replacing("\"entryCount\":3", with: "\"entryCount\":4"))),
        HostileCase(group: "pack", name: "index offset pointing outside the file", stage: .open, code: .entryOutOfBounds,
            entry: "a.txt", make: pack(editIndex: replacing("\"a.txt\":[0,", with: "\"a.txt\":[0,9999999999"))),
        HostileCase(group: "pack", name: "index size running into the central directory", stage: .open,
            code: .entryOutOfBounds, entry: "dir/c.txt", make: pack(editIndex: replacing(",1,", with: ",100000,"))),
        HostileCase(group: "pack", name: "index offset pointing into another entry", stage: .verify, code: .indexMismatch,
            entry: "a.txt", make: pack(editIndex: replacing("\"a.txt\":[0,48,", with: "\"a.txt\":[0,64,"))),
        HostileCase(group: "pack", name: "index names a file the directory does not have", stage: .verify,
            code: .indexMismatch, entry: "a.txt", make: pack(editIndex: replacing("\"a.txt\"", with: "\"q.txt\""))),
        HostileCase(group: "pack", name: "index CRC disagrees with the directory", stage: .verify, code: .indexMismatch,
            entry: "dir/c.txt", make: pack(editIndex: replacing(",1,", with: ",1,1"))),
        // Format 2: every file's SHA-256, as 64 lowercase hex digits in quotes (dir/c.txt holds "c").
        HostileCase(group: "pack", name: "index SHA-256 in uppercase", stage: .open, code: .badIndex, entry: ".pack/index.json",
            make: pack(editIndex: replacing("\"2e7d2c03a9507ae2", with: "\"2E7D2C03A9507AE2"))),
        HostileCase(group: "pack", name: "index SHA-256 one digit short", stage: .open, code: .badIndex, entry: ".pack/index.json",
            make: pack(editIndex: replacing("a1a25aefc6\"", with: "a1a25aefc\""))),
        HostileCase(group: "pack", name: "format-2 index with a file that has no SHA-256", stage: .open, code: .badIndex,
            entry: ".pack/index.json", make: pack(editIndex: replacing(
                ",\"2e7d2c03a9507ae265ecf5b5356885a53393a2029d241394997265a1a25aefc6\"]", with: "]"))),
        HostileCase(group: "pack", name: "format-1 index that lists SHA-256s", stage: .open, code: .badIndex,
            entry: ".pack/index.json", make: pack(editIndex: replacing("\"format\":2", with: "\"format\":1"))),
        HostileCase(group: "pack", name: "index SHA-256 of other bytes", stage: .verify, code: .sha256Mismatch, entry: "dir/c.txt",
            make: pack(editIndex: replacing("\"2e7d2c03a9507ae2", with: "\"2e7d2c03a9507ae3"))),
        HostileCase(group: "pack", name: "digest disagrees", stage: .verify, code: .indexMismatch, entry: ".pack/index.json",
            make: pack(editIndex: replacing("\"digest\":\"sha256:", with: "\"digest\":\"sha256:0"))),
        HostileCase(group: "pack", name: "end record comment pointing nowhere", stage: .open, code: .badIndex,
            make: pack(comment: { location in
                IndexLocation(offset: location.offset + 1_000_000, size: location.size, crc32: location.crc32).comment
            })),
        HostileCase(group: "pack", name: "end record comment with the wrong CRC", stage: .open, code: .crcMismatch,
            entry: ".pack/index.json",
            make: pack(comment: { location in
                IndexLocation(offset: location.offset, size: location.size, crc32: location.crc32 ^ 1).comment
            })),
        HostileCase(group: "pack", name: "end record comment malformed", stage: .open, code: .badIndex,
            make: pack(comment: { _ in Array("pack/1 offset=12 size=x".utf8) })),
        HostileCase(group: "pack", name: "pack data not aligned as the index says", stage: .verify, code: .misaligned,
            entry: "a.txt", make: pack(editIndex: replacing("\"alignment\":16", with: "\"alignment\":4096"))),
        HostileCase(group: "pack", name: "pack entry flagged with a data descriptor", stage: .verify, code: .indexMismatch,
            entry: "a.txt", make: pack(bytes: { bytes in bytes[6] |= 8 })),
        HostileCase(group: "pack", name: "pack local header names another file", stage: .verify, code: .headerMismatch,
            entry: "a.txt", make: pack(bytes: { bytes in bytes[30] ^= 0x20 })),
        HostileCase(group: "pack", name: "pack local header with another CRC", stage: .verify, code: .headerMismatch,
            entry: "a.txt", make: pack(bytes: { bytes in bytes[14] ^= 1 })),
        HostileCase(group: "pack", name: "pack local header offset near 2^64 (Zip64)", stage: .verify, code: .entryOutOfBounds,
            entry: "a.txt", make: pack(editEntries: { $0[0].headerOffset = .max - 15 })),
        HostileCase(group: "pack", name: "directory count disagrees with the index", stage: .open, code: .indexMismatch,
            make: pack(editEntries: { $0.removeFirst() })),
        // Reader and builder agree: alignments up to 32,768 (the 0xD935 block holds a u16).
        HostileCase(group: "pack", name: "index alignment of 65536", stage: .open, code: .badIndex, entry: ".pack/index.json",
            make: pack(editIndex: replacing("\"alignment\":16", with: "\"alignment\":65536"))),
        // Format 2 is canonical: a byte the builder would not have written is refused, even where
        // every CRC, SHA-256 and the digest still agree.
        HostileCase(group: "pack", name: "format 2: one local header with another DOS time", stage: .verify, code: .notCanonical,
            entry: "a.txt", make: pack(bytes: { bytes in bytes[10] ^= 1 })),
        HostileCase(group: "pack", name: "format 2: an alignment padding byte that is not zero", stage: .verify, code: .notCanonical,
            entry: "a.txt", make: pack(bytes: { bytes in
                // a.txt's header: 30 bytes, the name (5), then the 0xD935 block; its padding is last.
                let extraLength = Int(bytes[28]) | Int(bytes[29]) << 8
                bytes[30 + 5 + extraLength - 1] = 0xFF
            })),
        HostileCase(group: "pack", name: "format 2: the index reformatted with spaces", stage: .verify, code: .notCanonical,
            entry: ".pack/index.json", make: pack(editIndex: replacing("\"format\":2,", with: "\"format\": 2,"))),
        HostileCase(group: "pack", name: "format 2: a central record with another DOS time", stage: .verify, code: .notCanonical,
            entry: "dir/b.txt", make: pack(bytes: { bytes in
                let directory = centralDirectoryOffset(bytes)
                // The second record: after the first one (46 bytes, its name).
                let second = directory + 46 + 5
                bytes[second + 12] ^= 1
            })),
    ]
}

private func symlink(_ name: String, to target: String) -> ForgedEntry {
    withMode(.stored(name, Array(target.utf8)), 0o120777)
}

private func withMode(_ entry: ForgedEntry, _ mode: UInt32) -> ForgedEntry {
    var entry = entry
    entry.externalAttributes = mode << 16
    return entry
}

/// Where `forge` writes each entry's local header.
func forgeLocalOffsets(_ forge: ZipForge) -> [UInt64] {
    var offsets: [UInt64] = []
    var position = UInt64(forge.prefix.count)
    for entry in forge.entries {
        offsets.append(position)
        if entry.sharesHeaderOf != nil { continue }
        position += 30 + UInt64((entry.localName ?? entry.name).count + entry.localExtra.count + entry.stored.count)
    }
    return offsets
}

/// Everything a reader may do with an input, whatever it holds: list it, read every entry and
/// touch every byte (so a view pointing outside the input is caught by AddressSanitizer), look
/// each entry up and list its folder, verify, synthesize an index, and extract into `target`.
/// The hostile suite and the fuzzer both run it; it returns the errors met and a checksum of
/// the bytes read (which the fuzzer uses, so the reads are not optimized away).
func exercise(_ pack: Pack, extractTo target: String?) -> (errors: [PackError], checksum: Int) {
    var errors: [PackError] = []
    var checksum = 0
    _ = pack.contentsOfDirectory(atPath: "")
    for entry in pack.entries {
        do {
            let bytes = try pack.data(for: entry)
            checksum &+= bytes.withUnsafeBytes { $0.reduce(0) { $0 &+ Int($1) } }
        } catch {
            errors.append(error)
        }
        _ = pack.entry(forPath: entry.path)
        _ = pack.contentsOfDirectory(atPath: entry.path)
    }
    do { try pack.verify() } catch { errors.append(error) }
    _ = try? pack.synthesizedIndex()
    if let target {
        do {
            let extractor = PackExtractor(pack: pack, overwrite: true)
            try extractor.extract(try extractor.select([]), to: target)
        } catch { errors.append(error) }
    }
    return (errors, checksum)
}

/// ``exercise(_:extractTo:)`` on the file at `path`, opened with `backend`.
@discardableResult
func exercise(path: String, backend: PackBackend, extractTo target: String?) -> [PackError] {
    do {
        return exercise(try Pack(path: path, backend: backend), extractTo: target).errors
    } catch {
        return [error]
    }
}
