import Foundation
import TestSupport
import Testing

@testable import AssetPack

@Suite("Broken inputs give typed errors")
struct BrokenInputTests {
    func samplePack(_ folder: Scratch) throws -> String {
        try buildPack(sampleFiles(), at: folder.url("b.pack"), options: .init(name: "b"))
    }

    @Test("an empty file is not a zip")
    func emptyFile() throws {
        let folder = try Scratch()
        FileManager.default.createFile(atPath: folder.url("empty.pack"), contents: Data())
        #expect(throws: PackError(.notAZip, "the file is empty", at: .file(folder.url("empty.pack")))) {
            try Pack(path: folder.url("empty.pack"))
        }
    }

    @Test("a missing file is named")
    func missingFile() throws {
        let error = #expect(throws: PackError.self) { try Pack(path: "/nonexistent/x.pack") }
        #expect(error == PackError(.fileNotFound, at: .file("/nonexistent/x.pack"), underlying: .noSuchFileOrDirectory))
    }

    @Test("a pack cut short has no end record", arguments: [1, 10, 500])
    func truncated(cut: Int) throws {
        let folder = try Scratch()
        let path = try samplePack(folder)
        let bytes = try fileBytes(path)
        try Data(bytes.dropLast(cut)).write(to: URL(fileURLWithPath: path))
        let error = try #require(throws: PackError.self) { try Pack(path: path) }
        #expect(error.code == (cut < 22 + 40 ? .badEndRecord : .notAZip))
        #expect(error.location.file == path)
    }

    @Test("a flipped byte in an entry's data fails verify with a CRC mismatch naming the entry")
    func flippedDataByte() throws {
        let folder = try Scratch()
        let path = try samplePack(folder)
        let pack = try Pack(path: path)
        let entry = try #require(pack.entry(forPath: "Images/duck.png"))
        let offset = try pack.zipDetails(of: entry).dataOffset
        let original = try fileBytes(path)[Int(offset) + 100]
        try patchFile(path, at: Int(offset) + 100, with: [original ^ 0x01])
        let error = try #require(throws: PackError.self) { try Pack(path: path).verify() }
        #expect(error.code == .crcMismatch)
        #expect(error.location.entry == "Images/duck.png")
        #expect(error.location.offset == offset)
    }

    @Test("a flipped CRC byte in a local header fails verify: headers disagree")
    func flippedLocalCRC() throws {
        let folder = try Scratch()
        let path = try samplePack(folder)
        // The first local header is at 0; its CRC-32 at offset 14.
        let original = try fileBytes(path)[14]
        try patchFile(path, at: 14, with: [original ^ 0x80])
        let error = try #require(throws: PackError.self) { try Pack(path: path).verify() }
        #expect(error.code == .headerMismatch)
        #expect(error.location.entry == "Decks/animals.json")
        #expect(error.location.offset == 0)
    }

    @Test("a flipped byte in the index fails at open with the index's CRC")
    func flippedIndexByte() throws {
        let folder = try Scratch()
        let path = try samplePack(folder)
        let pack = try Pack(path: path)
        let offset = try pack.zipDetails(of: pack.indexEntry).dataOffset
        let original = try fileBytes(path)[Int(offset) + 5]
        try patchFile(path, at: Int(offset) + 5, with: [original ^ 0x20])
        let error = try #require(throws: PackError.self) { try Pack(path: path) }
        #expect(error.code == .crcMismatch)
        #expect(error.location.entry == ".pack/index.json")
    }

    @Test(
        "a large index (checksummed while it is parsed) with a flipped byte still fails with the index's CRC",
        arguments: [UInt8(ascii: "["), UInt8(ascii: "7")])
    func flippedLargeIndexByte(target: UInt8) throws {
        let folder = try Scratch()
        var builder = PackBuilder()
        for number in 0..<12_000 { try builder.add(path: String(format: "f/%05d.txt", number), contents: [UInt8(number & 0xFF)]) }
        let report = try builder.write(to: folder.url("large.pack"))
        #expect(report.indexSize >= UInt64(IndexChecksum.concurrentFrom))
        let path = folder.url("large.pack")
        let pack = try Pack(path: path)
        let offset = Int(try pack.zipDetails(of: pack.indexEntry).dataOffset)
        // Turn the middle file's "[" into "{" (the JSON breaks) or a "7" into "8" (it stays valid).
        let bytes = try fileBytes(path)
        let at = try #require(bytes[(offset + Int(report.indexSize) / 2)...].firstIndex(of: target))
        try patchFile(path, at: at, with: [target == UInt8(ascii: "[") ? UInt8(ascii: "{") : UInt8(ascii: "8")])
        for backend in [PackBackend.mapped, .read] {
            let error = try #require(throws: PackError.self) { try Pack(path: path, backend: backend) }
            #expect(error.code == .crcMismatch)
            #expect(error.location.entry == ".pack/index.json")
        }
    }

    @Test("random bytes that are not a zip")
    func notAZip() throws {
        let folder = try Scratch()
        var random = SeededBytes(state: 9)
        FileManager.default.createFile(atPath: folder.url("noise"), contents: Data(random.bytes(100_000)))
        #expect(throws: PackError.self) { try Pack(path: folder.url("noise")) }
        let error = try #require(throws: PackError.self) { try Pack(path: folder.url("noise")) }
        #expect(error.code == .notAZip)
    }
}
