import Foundation
import Testing

@testable import AssetPack
import TestSupport

/// Format 2: every entry's SHA-256 in the index, and a digest over them, so the digest covers
/// every content byte; format-1 packs still open and verify by CRC.
@Suite("Pack format 2: per-entry SHA-256")
struct FormatTwoTests {
    /// Changes `data[position]` and then four bytes at `fix` so that the CRC-32 of `data` is what
    /// it was: CRC-32 is affine over GF(2), so the four bytes are the solution of a 32×32 system.
    static func crc(_ bytes: [UInt8]) -> UInt32 { bytes.withUnsafeBytes { CRC32.checksum($0) } }

    static func changeKeepingCRC(_ data: inout [UInt8], at position: Int, fixAt fix: Int) {
        let original = crc(data)
        data[position] ^= 0x5A
        let target = crc(data) ^ original
        // Column j: what flipping bit j of the four bytes at `fix` does to the CRC.
        var columns: [UInt32] = []
        for bit in 0..<32 {
            var flipped = data
            flipped[fix + bit / 8] ^= UInt8(1 << (bit % 8))
            columns.append(crc(flipped) ^ crc(data))
        }
        // Gaussian elimination over GF(2): rows are CRC bits, each with the column bits that set it.
        var rows: [(mask: UInt32, value: UInt32)] = (0..<32).map { row in
            var mask: UInt32 = 0
            for (bit, column) in columns.enumerated() where column >> row & 1 == 1 { mask |= 1 << bit }
            return (mask, target >> row & 1)
        }
        var pivotRow = 0
        var pivots: [(row: Int, bit: Int)] = []
        for bit in 0..<32 {
            guard let found = (pivotRow..<32).first(where: { rows[$0].mask >> bit & 1 == 1 }) else { continue }
            rows.swapAt(pivotRow, found)
            for other in 0..<32 where other != pivotRow && rows[other].mask >> bit & 1 == 1 {
                rows[other].mask ^= rows[pivotRow].mask
                rows[other].value ^= rows[pivotRow].value
            }
            pivots.append((pivotRow, bit))
            pivotRow += 1
        }
        var solution: UInt32 = 0
        for (row, bit) in pivots where rows[row].value == 1 { solution |= 1 << bit }
        for bit in 0..<32 where solution >> bit & 1 == 1 { data[fix + bit / 8] ^= UInt8(1 << (bit % 8)) }
    }

    @Test("bytes changed so that their CRC-32 still matches are found by SHA-256, naming the entry and offset")
    func forgedCRC() throws {
        let scratch = try Scratch()
        let path = try buildPack(sampleFiles(), at: scratch.url("p.pack"))
        let pack = try Pack(path: path)
        let entry = try #require(pack.entry(forPath: "Images/duck@2x.png"))
        let offset = try pack.dataOffset(entryNumber: entry.entryNumber)
        var bytes = try fileBytes(path)
        var data = Array(bytes[Int(offset)..<Int(offset) + Int(entry.size)])
        Self.changeKeepingCRC(&data, at: 100, fixAt: 2000)
        #expect(Self.crc(data) == entry.crc32)
        #expect(data != Array(bytes[Int(offset)..<Int(offset) + Int(entry.size)]))
        bytes.replaceSubrange(Int(offset)..<Int(offset) + Int(entry.size), with: data)
        try Data(bytes).write(to: URL(fileURLWithPath: path))

        let error = try #require(throws: PackError.self) { try Pack(path: path).verify() }
        #expect(error.code == .sha256Mismatch)
        #expect(error.location.entry == "Images/duck@2x.png")
        #expect(error.location.offset == offset)
        #expect(error.location.file == path)
        // Through packtool too: one line, exit 1.
        let result = try Packtool.run("verify", path)
        #expect(result.status == 1)
        #expect(result.stderr.hasPrefix("packtool: \(path): entry \"Images/duck@2x.png\": SHA-256 mismatch: data has SHA-256 "))
        #expect(result.stderr.hasSuffix("(at offset \(offset))\n"))
    }

    @Test("the index lists each entry's SHA-256 and the reader serves it")
    func listedHashes() throws {
        let scratch = try Scratch()
        let files = sampleFiles()
        let pack = try Pack(path: try buildPack(files, at: scratch.url("p.pack")))
        #expect(pack.metadata?.formatVersion == 2)
        for (name, bytes) in files {
            let entry = try #require(pack.entry(forPath: name))
            #expect(try pack.sha256(of: entry)?.hex == ExternalReaders.sha256(bytes), "\(name)")
        }
        #expect(try pack.verify().hashedEntries == files.count)
    }

    @Test("every way the builder hashes gives the entry's SHA-256: small files as read, larger ones read back, streamed ones")
    func everyHashingPath() throws {
        let scratch = try Scratch()
        var random = SeededBytes(state: 7)
        // Up to 16 KiB the read-ahead workers hash; above, the pack is read back; above 4 MiB the
        // file is streamed; entries given as bytes are read back too.
        let sizes = [0, 100, 16 << 10, (16 << 10) + 1, 300_000, (4 << 20) + 5, 5 << 20]
        var expected: [String: EntryHash] = [:]
        for (number, size) in sizes.enumerated() {
            let bytes = random.bytes(size)
            try scratch.write("src/f\(number).bin", bytes)
            expected["f\(number).bin"] = EntryHash.of(bytes)
        }
        var builder = PackBuilder()
        try builder.addDirectory(atPath: scratch.url("src"))
        let given = random.bytes(40_000)
        try builder.add(path: "given.bin", contents: given)
        expected["given.bin"] = EntryHash.of(given)
        try builder.write(to: scratch.url("p.pack"))
        let pack = try Pack(path: scratch.url("p.pack"))
        for (name, hash) in expected {
            let entry = try #require(pack.entry(forPath: name))
            #expect(try pack.sha256(of: entry) == hash, "\(name)")
        }
        #expect(try pack.verify().hashedEntries == expected.count)
    }

    @Test("a listed SHA-256 is 64 lowercase hex digits: every other byte, at every position, is refused")
    func hexDigitsOnly() throws {
        var random = SystemRandomNumberGenerator()
        let hex = Array("0123456789abcdef".utf8)
        for _ in 0..<8 {
            let bytes = (0..<32).map { _ in UInt8.random(in: 0...255, using: &random) }
            let digits = bytes.flatMap { [hex[Int($0 >> 4)], hex[Int($0 & 15)]] }
            #expect(EntryHash(hex: String(decoding: digits, as: UTF8.self))?.bytes == bytes)
            for position in 0..<64 {
                for byte in UInt8.min...UInt8.max {
                    var changed = digits
                    changed[position] = byte
                    let parsed = changed.withUnsafeBytes { EntryHash(hexDigits: $0) }
                    if let value = hex.firstIndex(of: byte) {
                        var expected = bytes
                        expected[position / 2] = position % 2 == 0
                            ? UInt8(value) << 4 | bytes[position / 2] & 15 : bytes[position / 2] & 0xF0 | UInt8(value)
                        #expect(parsed?.bytes == expected, "byte \(byte) at \(position)")
                    } else {
                        #expect(parsed == nil, "byte \(byte) at \(position)")
                    }
                }
            }
        }
    }

    @Test("the digest is the SHA-256 of the manifest the format article documents, computed by Python")
    func manifestByPython() throws {
        let scratch = try Scratch()
        let path = try buildPack(
            sampleFiles(), at: scratch.url("p.pack"), options: .init(locale: "ru", contentVersion: "2026.11"))
        // The worked example of the format article (PackFormat.md), as a third party runs it.
        let script = """
            import hashlib, json, sys, zipfile
            z = zipfile.ZipFile(sys.argv[1])
            index = json.loads(z.read(".pack/index.json"))
            manifest = "pack/2\\nname={}\\nlocale={}\\nversion={}\\nalignment={}\\n".format(
                index["name"], index.get("locale", ""), index.get("contentVersion", ""), index["alignment"]).encode()
            for info in z.infolist()[:-1]:  # every entry but the index, in entry order
                manifest += hashlib.sha256(z.read(info)).hexdigest().encode() + b"  " + info.filename.encode() + b"\\n"
            print("sha256:" + hashlib.sha256(manifest).hexdigest(), index["digest"])
            """
        let result = try run("python3", ["-c", script, path])
        #expect(result.status == 0, "\(result.stderr)")
        let words = result.output.split(separator: " ").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
        #expect(words.count == 2 && words[0] == words[1], "\(result.output)")
        #expect(words.first == (try Pack(path: path)).metadata?.digest)
    }

    @Test("a pack made by release 1.0 (format 1) still opens, reads and verifies by CRC-32")
    func formatOneForever() throws {
        let pack = try Pack(path: Repository.path("Tests/Fixtures/Format1/made-by-1.0.pack"))
        #expect(pack.metadata?.formatVersion == 1)
        #expect(try Array(pack.data(forPath: "notes/one.txt")) == Array("first note\n".utf8))
        let entry = try #require(pack.entry(forPath: "notes/one.txt"))
        #expect(try pack.sha256(of: entry) == nil)
        let report = try pack.verify()
        #expect(report.entryCount == 3 && report.hashedEntries == 0)
        let info = try Packtool.run("info", pack.path)
        #expect(info.output.contains("format:          pack/1\n"))
    }

    @Test("--format 1 still writes format 1 for this release, and says it is deprecated")
    func writeFormatOne() throws {
        let scratch = try Scratch()
        try scratch.write("src/a.txt", "a\n")
        let result = try Packtool.run("build", scratch.url("src"), "-o", scratch.url("old.pack"), "--format", "1")
        #expect(result.status == 0)
        #expect(result.stderr.contains("--format 1 is deprecated and will be removed in the next release"))
        let pack = try Pack(path: scratch.url("old.pack"))
        #expect(pack.metadata?.formatVersion == 1)
        #expect(try pack.verify().hashedEntries == 0)
        let index = try #require(try pack.indexData())
        #expect(!String(decoding: Array(index), as: UTF8.self).contains(ExternalReaders.sha256(Array("a\n".utf8))))
        let bad = try Packtool.run("build", scratch.url("src"), "-o", scratch.url("x.pack"), "--format", "3")
        #expect(bad.status == 1)
        #expect(bad.stderr == "packtool: invalid argument: format 3 is not 1 or 2\n")
    }
}
