import Foundation
import TestSupport
import Testing

@testable import AssetPack

@Suite("Reader: opening, lookups, views, listings")
struct ReaderTests {
    @Test("a pack opens through its index and returns every entry's bytes")
    func readsEveryEntry() throws {
        let folder = try Scratch()
        let files = sampleFiles()
        let pack = try Pack(path: buildPack(files, at: folder.url("r.pack"), options: .init(name: "r", locale: "en")))
        #expect(pack.hasIndex)
        #expect(pack.metadata?.name == "r")
        #expect(pack.metadata?.locale == "en")
        // The content only: the index is reachable through metadata and indexData().
        #expect(pack.count == files.count)
        #expect(pack.entry(forPath: ".pack/index.json") == nil)
        #expect(!pack.contains(".pack/index.json"))
        #expect(try pack.indexData()?.count ?? 0 > 100)
        for (name, bytes) in files {
            #expect(try Array(pack.data(forPath: name)) == bytes, "\(name)")
            #expect(pack.entry(forPath: name)?.size == UInt64(bytes.count))
        }
        #expect(pack.entry(forPath: "missing.png") == nil)
        #expect(throws: PackError(.entryNotFound, at: .pack(pack.path, entry: "missing.png"))) {
            try pack.data(forPath: "missing.png")
        }
        #expect(
            try pack.verify()
                == VerificationReport(entryCount: files.count + 1, checkedBytes: try pack.verifiedBytes(), hashedEntries: files.count))
    }

    @Test("the pread backend reads the same bytes as the mapping")
    func readBackend() throws {
        let folder = try Scratch()
        let files = sampleFiles()
        let path = try buildPack(files, at: folder.url("r.pack"))
        let pack = try Pack(path: path, backend: .read)
        for (name, bytes) in files { #expect(try Array(pack.data(forPath: name)) == bytes) }
        try pack.verify()
    }

    @Test("views are zero-copy into the mapping and keep it alive after the pack is gone")
    func viewsOutliveThePack() throws {
        let folder = try Scratch()
        let files = sampleFiles()
        let path = try buildPack(files, at: folder.url("v.pack"))
        var view: PackData?
        var mappedBase: UnsafeRawPointer?
        do {
            let pack = try Pack(path: path)
            view = try pack.data(forPath: "Images/duck@2x.png")
            let entry = try #require(pack.entry(forPath: "Images/duck@2x.png"))
            let offset = try pack.zipDetails(of: entry).dataOffset
            let index = try #require(try pack.indexData())
            let indexOffset = try pack.zipDetails(of: pack.indexEntry).dataOffset
            // Both views point into the same mapping, each at its entry's offset from the start.
            mappedBase = view?.withUnsafeBytes { $0.baseAddress! - Int(offset) }
            let indexBase = index.withUnsafeBytes { $0.baseAddress! - Int(indexOffset) }
            #expect(mappedBase == indexBase)
        }
        let data = try #require(view)
        #expect(Array(data) == files["Images/duck@2x.png"])
        #expect(data.makeData() == Data(files["Images/duck@2x.png"]!))
    }

    @Test("folder listings show files and sub-folders in path order")
    func folderListing() throws {
        let folder = try Scratch()
        let pack = try Pack(path: buildPack(sampleFiles(), at: folder.url("l.pack")))
        #expect(pack.contentsOfDirectory(atPath: "").map(\.name) == ["Decks", "Images", "Lessons", "empty.txt", "notes with spaces.md"])
        #expect(pack.contentsOfDirectory(atPath: ".pack").isEmpty)
        #expect(pack.contentsOfDirectory(atPath: "Images").map(\.name) == ["duck.png", "duck@2x.png", "duck@3x~ipad.png"])
        #expect(pack.contentsOfDirectory(atPath: "Images/").allSatisfy { !$0.isDirectory })
        let lessons = pack.contentsOfDirectory(atPath: "Lessons")
        #expect(lessons.map(\.name) == ["Урок 1.txt", "日本語"])
        #expect(lessons.map(\.isDirectory) == [false, true])
        #expect(lessons[1].path == "Lessons/日本語")
        #expect(pack.contentsOfDirectory(atPath: "Lessons/日本語").map(\.path) == ["Lessons/日本語/ひらがな.txt"])
        #expect(pack.contentsOfDirectory(atPath: "Nope").isEmpty)
        #expect(pack.contentsOfDirectory(atPath: "Image").isEmpty)
    }

    @Test("entries iterate in pack order; the zip's own entries end with the index")
    func iteration() throws {
        let folder = try Scratch()
        let files = sampleFiles()
        let pack = try Pack(path: buildPack(files, at: folder.url("i.pack")))
        let paths = pack.entries.map(\.path)
        let sorted = files.keys.map { Array($0.utf8) }.sorted { $0.lexicographicallyPrecedes($1) }.map {
            String(decoding: $0, as: UTF8.self)
        }
        #expect(paths == sorted)
        #expect(pack.zipEntries.map(\.path) == sorted + [".pack/index.json"])
        #expect(pack.entries.map(\.entryNumber) == Array(0..<pack.count))
    }

    @Test("one pack read by 8 threads at once returns the right bytes")
    func concurrentReads() async throws {
        let folder = try Scratch()
        var random = SeededBytes(state: 42)
        var files: [String: [UInt8]] = [:]
        for index in 0..<500 { files["f/\(index).bin"] = random.bytes(Int(random.next() % 2000)) }
        let pack = try Pack(path: buildPack(files, at: folder.url("c.pack")))
        let names = Array(files.keys)
        let expected = files.mapValues { Data($0) }
        let failures = await withTaskGroup(of: Int.self) { group in
            for worker in 0..<8 {
                group.addTask {
                    var failures = 0
                    var state = SeededBytes(state: UInt64(worker))
                    for _ in 0..<5000 {
                        let name = names[Int(state.next() % UInt64(names.count))]
                        if (try? pack.data(forPath: name).makeData()) != expected[name] { failures += 1 }
                    }
                    return failures
                }
            }
            return await group.reduce(0, +)
        }
        #expect(failures == 0)
    }
}

extension Pack {
    func verifiedBytes() throws -> UInt64 { zipEntries.reduce(0) { $0 + $1.size } }
}
