import Foundation
import TestSupport
import Testing

@testable import AssetPack

@Suite("Builder: the pack format contract")
struct BuilderFormatTests {
    @Test("unzip -t, Python's zipfile and libzip accept the pack and read back the source bytes", .tags(.oracle), .fullTierOnly, arguments: [16, 4096])
    func externalReadersAcceptBuiltPacks(alignment: Int) throws {
        let folder = try Scratch()
        let files = sampleFiles()
        let pack = try buildPack(files, at: folder.url("sample.pack"), options: .init(alignment: alignment))

        try ExternalReaders.unzipTest(pack)

        let python = try ExternalReaders.python(pack)
        #expect(python.testzip == nil)
        let pythonHashes = Dictionary(uniqueKeysWithValues: python.entries.map { ($0.name, $0.sha256) })
        for (name, bytes) in files { #expect(pythonHashes[name] == ExternalReaders.sha256(bytes), "\(name)") }

        let libzip = try ExternalReaders.libzip(pack)
        #expect(libzip.count == files.count + 1)
        for (name, bytes) in files { #expect(libzip[name] == bytes, "\(name)") }
    }

    @Test("every entry is stored, UTF-8 flagged, without data descriptor, mode 0644, at the DOS epoch", .tags(.oracle), .fullTierOnly)
    func entriesFollowTheContract() throws {
        let folder = try Scratch()
        let pack = try buildPack(sampleFiles(), at: folder.url("sample.pack"))
        let python = try ExternalReaders.python(pack)
        for entry in python.entries {
            #expect(entry.method == 0, "\(entry.name)")
            #expect(entry.flags & 0x800 != 0, "\(entry.name)")
            #expect(entry.flags & 0x8 == 0, "\(entry.name)")
            #expect(entry.mode == 0o100644, "\(entry.name)")
            #expect(entry.dateTime == [1980, 1, 1, 0, 0, 0], "\(entry.name)")
        }
        // Sorted by UTF-8 bytes, the index last.
        let names = python.entries.map(\.name)
        #expect(names.last == ".pack/index.json")
        let content = names.dropLast().map { Array($0.utf8) }
        #expect(content == content.sorted { $0.lexicographicallyPrecedes($1) })
    }

    @Test("SOURCE_DATE_EPOCH-style timestamps go into every header", .tags(.oracle), .fullTierOnly)
    func timestampOption() throws {
        let folder = try Scratch()
        // 2024-03-29 20:32:32 UTC
        let pack = try buildPack(["a.txt": [1]], at: folder.url("t.pack"), options: .init(timestamp: 1_711_744_352))
        let python = try ExternalReaders.python(pack)
        #expect(python.entries.map(\.dateTime) == [[2024, 3, 29, 20, 32, 32], [2024, 3, 29, 20, 32, 32]])
    }

    @Test("the same folder gives byte-identical packs, whatever the files' modification times")
    func deterministic() throws {
        let folder = try Scratch()
        let source = try folder.write(sampleFiles())
        var first = PackBuilder(options: .init(name: "same"))
        try first.addDirectory(atPath: source)
        try first.write(to: folder.url("one.pack"))
        for (index, name) in sampleFiles().keys.sorted().enumerated() {
            let date = Date(timeIntervalSince1970: 1_000_000_000 + Double(index) * 7777)
            try FileManager.default.setAttributes([.modificationDate: date], ofItemAtPath: source + "/" + name)
        }
        var second = PackBuilder(options: .init(name: "same"))
        try second.addDirectory(atPath: source)
        try second.write(to: folder.url("two.pack"))
        #expect(try fileBytes(folder.url("one.pack")) == fileBytes(folder.url("two.pack")))
    }

    @Test("every entry's data starts at a multiple of the alignment", .tags(.oracle), .fullTierOnly, arguments: [1, 16, 4096, 16384])
    func aligned(alignment: Int) throws {
        let folder = try Scratch()
        let pack = try buildPack(sampleFiles(), at: folder.url("a.pack"), options: .init(alignment: alignment))
        let python = try ExternalReaders.python(pack)
        for entry in python.entries { #expect(entry.dataOffset % alignment == 0, "\(entry.name) at \(entry.dataOffset)") }
        let opened = try Pack(path: pack)
        #expect(opened.metadata?.alignment == alignment)
        for entry in opened.entries { #expect(try opened.zipDetails(of: entry).dataOffset % UInt64(alignment) == 0) }
        try opened.verify()
    }

    @Test("the index is the last entry, the end record's comment points at it, and it maps every entry", .tags(.oracle), .fullTierOnly)
    func indexDescribesEveryEntry() throws {
        let folder = try Scratch()
        let files = sampleFiles()
        let pack = try buildPack(files, at: folder.url("i.pack"), options: .init(name: "sample", locale: "ru", contentVersion: "7"))
        let python = try ExternalReaders.python(pack)
        let index = try #require(python.entries.last)
        #expect(python.comment == "pack/1 offset=\(index.dataOffset) size=\(index.size) crc=\(hex32(CRC32.checksum(try fileBytes(pack), range: index.dataOffset, index.size)))")
        let json = try #require(
            try JSONSerialization.jsonObject(with: Data(Array(try fileBytes(pack)[index.dataOffset..<index.dataOffset + index.size])))
                as? [String: Any])
        #expect(json["format"] as? Int == 2)
        #expect(json["name"] as? String == "sample")
        #expect(json["locale"] as? String == "ru")
        #expect(json["contentVersion"] as? String == "7")
        #expect(json["entryCount"] as? Int == files.count)
        #expect(json["alignment"] as? Int == 16)
        #expect((json["digest"] as? String)?.hasPrefix("sha256:") == true)
        // Walk the nested folders and compare each file's [number, offset, size, crc, sha256] with
        // Python's view (its SHA-256 from hashlib).
        var found: [String: [Any]] = [:]
        func walk(_ object: [String: Any], _ prefix: String) {
            for (key, value) in object {
                if let folder = value as? [String: Any] { walk(folder, prefix + key + "/") } else if let file = value as? [Any] {
                    found[prefix + key] = file
                }
            }
        }
        walk(try #require(json["files"] as? [String: Any]), "")
        #expect(found.count == files.count)
        for (number, entry) in python.entries.dropLast().enumerated() {
            let fields = try #require(found[entry.name])
            #expect(fields.count == 5)
            #expect(fields[0] as? Int == number)
            #expect(fields[1] as? Int == entry.dataOffset)
            #expect(fields[2] as? Int == entry.size)
            #expect(fields[4] as? String == entry.sha256)
        }
    }

    @Test("names are NFC-normalized in the pack")
    func namesAreNormalized() throws {
        let folder = try Scratch()
        let decomposed = "cafe\u{301}.txt"
        let pack = try Pack(path: buildPack([decomposed: [1, 2]], at: folder.url("n.pack")))
        #expect(pack.entries.map(\.path) == ["caf\u{E9}.txt"])
        #expect(pack.zipEntries.map(\.path) == ["caf\u{E9}.txt", ".pack/index.json"])
        #expect(Array(pack.entries[0].path.utf8) == Array("caf\u{E9}.txt".utf8))
        #expect(try Array(pack.data(forPath: decomposed)) == [1, 2])  // lookups normalize too
    }

    @Test(
        "names that collide on case-insensitive or normalization-insensitive file systems are an error naming both",
        arguments: [
            (["Images/Duck.png", "Images/duck.png"], PackError.Code.nameCollision),
            (["caf\u{E9}.txt", "cafe\u{301}.txt"], .nameCollision),
            (["IMAGES/a.png", "images/b.png"], nil),  // folders merge, no file is lost
            (["a", "a/b"], .nameCollision),
            (["x/a", "x/a-b/c", "x/a/b"], .nameCollision),  // another entry sorts between the file and its folder
            (["d/e/f/g.txt", "D/E"], .nameCollision),  // a file and a folder two levels up, differing by case
            (["a/b/c.txt", "a/b/d.txt", "a/B"], .nameCollision),
            (["\u{C4}/x.txt", "\u{E4}"], .nameCollision),  // Ä/ and ä: non-ASCII keys
            (["a/b/c.txt", "a/b-c.txt", "a/bc/d.txt"], nil),
            (["Stra\u{DF}e.txt", "STRASSE.txt"], nil),
        ])
    func collisions(names: [String], expected: PackError.Code?) throws {
        var builder = PackBuilder()
        for name in names { try builder.add(path: name, contents: [0]) }
        let folder = try Scratch()
        if let expected {
            let error = try #require(throws: PackError.self) { try builder.write(to: folder.url("c.pack")) }
            #expect(error.code == expected)
            // Both colliding names are in the message (which one comes first depends on sorting).
            let colliding = names.filter { error.description.contains($0) }
            #expect(colliding.count >= 2, "\(error)")
            #expect(!FileManager.default.fileExists(atPath: folder.url("c.pack")))
        } else {
            try builder.write(to: folder.url("c.pack"))
        }
    }

    @Test("collisions between files on disk name both files")
    func collisionInFolderNamesBothFiles() throws {
        let folder = try Scratch()
        let source = try folder.write(["Pictures/cat.png": [1], "Pictures/CAT.png": [2]])
        var builder = PackBuilder()
        try builder.addDirectory(atPath: source)
        let error = try #require(throws: PackError.self) { try builder.write(to: folder.url("c.pack")) }
        #expect(error.code == .nameCollision)
        #expect(error.description.contains(source + "/Pictures/cat.png"))
        #expect(error.description.contains(source + "/Pictures/CAT.png"))
    }

    @Test(
        "unsafe names are refused when added",
        arguments: [
            "", "/etc/passwd", "../up.txt", "a/../../x", "a//b", "a/./b", "back\\slash", "C:drive.txt", "nul\u{0}byte",
            "tab\tname", "trailing/", ".pack/index.json", String(repeating: "x", count: 256),
            Array(repeating: "d", count: 600).joined(separator: "/"),
        ])
    func unsafeNames(name: String) throws {
        var builder = PackBuilder()
        let error = try #require(throws: PackError.self) { try builder.add(path: name, contents: [1]) }
        #expect(error.code == .unsafeName)
    }

    @Test("the same name added twice is a duplicate")
    func duplicate() throws {
        var builder = PackBuilder()
        try builder.add(path: "a.txt", contents: [1])
        try builder.add(path: "a.txt", contents: [2])
        let folder = try Scratch()
        #expect(throws: PackError(.duplicateName, "added twice", at: .pack(entry: "a.txt"))) {
            try builder.write(to: folder.url("d.pack"))
        }
    }

    @Test("alignments that are not a power of two up to 32768 are refused", arguments: [0, 3, 24, 65536])
    func badAlignment(alignment: Int) throws {
        let folder = try Scratch()
        let error = try #require(throws: PackError.self) {
            try buildPack(["a": [1]], at: folder.url("x.pack"), options: .init(alignment: alignment))
        }
        #expect(error.code == .invalidArgument)
    }

    @Test("hidden files are skipped; an input folder that does not exist is a clear error")
    func folderWalking() throws {
        let folder = try Scratch()
        let source = try folder.write(["a.txt": [1], ".DS_Store": [2], ".git/config": [3], "b/.hidden": [4]])
        var builder = PackBuilder()
        try builder.addDirectory(atPath: source)
        #expect(builder.count == 1)
        var missing = PackBuilder()
        #expect(throws: PackError(.fileNotFound, at: .file(folder.url("nope")), underlying: .noSuchFileOrDirectory)) {
            try missing.addDirectory(atPath: folder.url("nope"))
        }
    }

    @Test("packs with fewer than 65,535 entries carry no Zip64 records")
    func noZip64WhenSmall() throws {
        let folder = try Scratch()
        let bytes = try fileBytes(buildPack(sampleFiles(), at: folder.url("s.pack")))
        #expect(!bytes.contains(bytes: [0x50, 0x4B, 6, 6]))  // Zip64 end record
        #expect(!bytes.contains(bytes: [0x50, 0x4B, 6, 7]))  // Zip64 locator
    }
}

extension Array where Element == UInt8 {
    /// Whether the bytes contain `needle` anywhere.
    func contains(bytes needle: [UInt8]) -> Bool {
        withUnsafeBufferPointer { haystack in
            guard let first = needle.first, haystack.count >= needle.count else { return false }
            var index = 0
            while index + needle.count <= haystack.count {
                if haystack[index] == first, haystack[index..<index + needle.count].elementsEqual(needle) { return true }
                index += 1
            }
            return false
        }
    }
}

extension CRC32 {
    static func checksum(_ bytes: [UInt8], range start: Int, _ count: Int) -> UInt32 {
        bytes.withUnsafeBytes { checksum(UnsafeRawBufferPointer(rebasing: $0[start..<start + count])) }
    }
}

@Suite("Name rules: the quick test agrees with the full one")
struct NameRuleTests {
    @Test("random names over the characters that matter get the same verdict both ways")
    func quickAndFullAgree() {
        // allowDirectory: true takes the full check only; names not ending in "/" mean the same.
        let alphabet: [UInt8] = Array("a./\\\\:C \u{7F}é".utf8) + [0x00, 0x0A, 0x1B]
        var random = SeededBytes(state: 11)
        var checked = 0
        for _ in 0..<20_000 {
            let length = Int(random.next() % 9)
            var name = (0..<length).map { _ in alphabet[Int(random.next() % UInt64(alphabet.count))] }
            while name.last == UInt8(ascii: "/") { name.removeLast() }
            let quick = PackPath.problem(with: name) == nil
            let full = PackPath.problem(with: name, allowDirectory: true) == nil
            #expect(quick == full, "\(name)")
            checked += 1
        }
        for name in ["a", "a/b", "...", "a..b/.c", "C:x", "c:/x", "/x", "a//b", ".", "..", "a/..", String(repeating: "x", count: 256), String(repeating: "x/", count: 600)] {
            #expect((PackPath.problem(with: name.utf8) == nil) == (PackPath.problem(with: name.utf8, allowDirectory: true) == nil), "\(name)")
        }
        #expect(checked == 20_000)
    }
}
