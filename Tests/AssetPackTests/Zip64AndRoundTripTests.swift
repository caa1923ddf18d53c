import Foundation
import TestSupport
import Testing

@testable import AssetPack

@Suite("Large packs and round trips")
struct Zip64AndRoundTripTests {
    @Test("a 70,000-entry pack uses Zip64, opens, reads and verifies; unzip, Python and libzip accept it", .tags(.oracle), .fullTierOnly)
    func seventyThousandEntries() throws {
        let folder = try Scratch()
        var builder = PackBuilder(options: .init(name: "big"))
        let count = 70_000
        for index in 0..<count {
            try builder.add(path: "cards/\(index % 70)/card-\(index).txt", contents: Array("card \(index)\n".utf8))
        }
        let path = folder.url("big.pack")
        let report = try builder.write(to: path)
        #expect(report.metadata.entryCount == count)

        let bytes = try fileBytes(path)
        #expect(bytes.contains(bytes: [0x50, 0x4B, 6, 6]))  // Zip64 end record
        #expect(bytes.contains(bytes: [0x50, 0x4B, 6, 7]))  // Zip64 locator

        let pack = try Pack(path: path)
        #expect(pack.count == count)
        #expect(pack.zipEntries.count == count + 1)
        for index in stride(from: 0, to: count, by: 997) {
            #expect(try Array(pack.data(forPath: "cards/\(index % 70)/card-\(index).txt")) == Array("card \(index)\n".utf8))
        }
        #expect(pack.contentsOfDirectory(atPath: "cards").count == 70)
        #expect(try pack.verify().entryCount == count + 1)

        try ExternalReaders.unzipTest(path)
        let python = try ExternalReaders.python(path)
        #expect(python.testzip == nil)
        #expect(python.entries.count == count + 1)
        let libzip = try ExternalReaders.libzip(path)
        #expect(libzip.count == count + 1)
        #expect(libzip["cards/65/card-69995.txt"] == Array("card 69995\n".utf8))
    }

    @Test("build then extract reproduces the folder exactly")
    func buildThenExtract() throws {
        let folder = try Scratch()
        var random = SeededBytes(state: 7)
        var files = sampleFiles()
        files["media/large video.bin"] = random.bytes(5 * 1024 * 1024 + 123)
        files["Уроки/Первый урок/вопросы.json"] = Array("[]".utf8)
        files["日本語/単語 リスト.csv"] = Array("猫,ねこ,neko\n".utf8)
        let source = try folder.write(files)
        var builder = PackBuilder()
        try builder.addDirectory(atPath: source)
        try builder.write(to: folder.url("rt.pack"))

        let pack = try Pack(path: folder.url("rt.pack"), backend: .read)
        let extractor = PackExtractor(pack: pack)
        let written = try extractor.extract(try extractor.select([]), to: folder.url("out"))
        // The content is extracted; the pack's own index is not content.
        #expect(written == files.count)
        #expect(try readTree(folder.url("out")) == files)
        // Selecting a folder extracts only what is below it.
        let partial = try extractor.extract(try extractor.select(["Уроки"]), to: folder.url("partial"))
        #expect(partial == 1)
        #expect(try readTree(folder.url("partial")) == ["Уроки/Первый урок/вопросы.json": Array("[]".utf8)])
    }

    @Test("extract checks every conflict first: one existing file, and nothing at all is written")
    func allOrNothing() throws {
        let folder = try Scratch()
        let pack = try Pack(path: buildPack(["a.txt": [1], "m/b.txt": [2], "z/c.txt": [3]], at: folder.url("o.pack")))
        try folder.write(["m/b.txt": [9]], in: "out")
        let extractor = PackExtractor(pack: pack)
        let error = #expect(throws: PackError.self) { try extractor.extract(try extractor.select([]), to: folder.url("out")) }
        #expect(error?.code == .fileExists)
        #expect(error?.location.entry == "m/b.txt")
        #expect(try readTree(folder.url("out")) == ["m/b.txt": [9]])
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url("out")).sorted() == ["m"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url("out/m")) == ["b.txt"])
    }

    @Test("extract refuses to overwrite without being asked, and overwrites when asked")
    func overwrite() throws {
        let folder = try Scratch()
        let pack = try Pack(path: buildPack(["a.txt": [1, 2, 3]], at: folder.url("o.pack")))
        try folder.write(["a.txt": [9]], in: "out")
        let entries = try PackExtractor(pack: pack).select(["a.txt"])
        let error = try #require(throws: PackError.self) { try PackExtractor(pack: pack).extract(entries, to: folder.url("out")) }
        #expect(error.code == .fileExists)
        #expect(try fileBytes(folder.url("out/a.txt")) == [9])
        try PackExtractor(pack: pack, overwrite: true).extract(entries, to: folder.url("out"))
        #expect(try fileBytes(folder.url("out/a.txt")) == [1, 2, 3])
    }

    @Test("extract never follows a symbolic link already in the target")
    func symlinkInTarget() throws {
        let folder = try Scratch()
        let pack = try Pack(path: buildPack(["docs/a.txt": [1], "b.txt": [2]], at: folder.url("s.pack")))
        try FileManager.default.createDirectory(atPath: folder.url("out"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: folder.url("elsewhere"), withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: folder.url("out/docs"), withDestinationPath: folder.url("elsewhere"))
        try FileManager.default.createSymbolicLink(atPath: folder.url("out/b.txt"), withDestinationPath: folder.url("elsewhere/b.txt"))
        let extractor = PackExtractor(pack: pack, overwrite: true)
        let error = try #require(throws: PackError.self) { try extractor.extract(try extractor.select(["docs/a.txt"]), to: folder.url("out")) }
        #expect(error.code == .fileExists)
        // With --force, a link in the way is replaced, never written through.
        try extractor.extract(try extractor.select(["b.txt"]), to: folder.url("out"))
        #expect(try readTree(folder.url("elsewhere")).isEmpty)
        #expect(try fileBytes(folder.url("out/b.txt")) == [2])
        #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: folder.url("out/b.txt"))) == nil)
    }
}
