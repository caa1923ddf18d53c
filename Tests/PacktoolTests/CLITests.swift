import AssetPack
import Foundation
import TestSupport
import Testing

extension Scratch {
    /// The small pack of the exact-output tests: a/x.txt, a/y z.txt (empty), b.txt.
    func smallPack() throws -> String {
        try write("src/b.txt", "bee\n")
        try write("src/a/x.txt", "ex\n")
        try write("src/a/y z.txt", "")
        let result = try Packtool.run("build", url("src"), "-o", url("small.pack"), "--name", "small")
        #expect(result.status == 0, "\(result.stderr)")
        return url("small.pack")
    }
}

@Suite("packtool, run as a built binary")
struct CLITests {
    @Test("build prints one summary line")
    func buildSummary() throws {
        let scratch = try Scratch()
        try scratch.write("src/b.txt", "bee\n")
        let result = try Packtool.run("build", scratch.url("src"), "-o", scratch.url("one.pack"))
        #expect(result.status == 0)
        #expect(result.output == "\(scratch.url("one.pack")): 1 entry, 4 content bytes, 529 bytes in all (index 243 bytes)\n")
        #expect(result.stderr.isEmpty)
    }

    @Test("ls prints one path per line in pack order")
    func lsExact() throws {
        let scratch = try Scratch()
        let pack = try scratch.smallPack()
        let result = try Packtool.run("ls", pack)
        #expect(result.status == 0)
        #expect(result.output == "a/x.txt\na/y z.txt\nb.txt\n.pack/index.json\n")
    }

    @Test("ls -l shows size, data offset, CRC-32 and method")
    func lsLongExact() throws {
        let scratch = try Scratch()
        let pack = try scratch.smallPack()
        let result = try Packtool.run("ls", "-l", pack)
        #expect(result.status == 0)
        #expect(
            result.output == """
                         3           48  b66eca39  stored    a/x.txt
                         0           96  00000000  stored    a/y z.txt
                         4          144  06289fa3  stored    b.txt
                       435          208  f70e5c88  stored    .pack/index.json

                """)
    }

    @Test("ls --json is a JSON array of entries")
    func lsJSON() throws {
        let scratch = try Scratch()
        let pack = try scratch.smallPack()
        let result = try Packtool.run("ls", "--json", pack)
        #expect(result.status == 0)
        let entries = try #require(try JSONSerialization.jsonObject(with: result.stdout) as? [[String: Any]])
        #expect(entries.map { $0["path"] as? String } == ["a/x.txt", "a/y z.txt", "b.txt", ".pack/index.json"])
        #expect(entries[0]["size"] as? Int == 3)
        #expect(entries[0]["offset"] as? Int == 48)
        #expect(entries[0]["crc32"] as? String == "b66eca39")
        #expect(entries[0]["method"] as? String == "stored")
    }

    @Test("cat writes the entry's exact bytes")
    func cat() throws {
        let scratch = try Scratch()
        let pack = try scratch.smallPack()
        #expect(try Packtool.run("cat", pack, "b.txt").output == "bee\n")
        let empty = try Packtool.run("cat", pack, "a/y z.txt")
        #expect(empty.status == 0)
        #expect(empty.stdout.isEmpty)
    }

    @Test("a missing entry: one line on stderr naming pack and entry, exit 1")
    func missingEntry() throws {
        let scratch = try Scratch()
        let pack = try scratch.smallPack()
        let result = try Packtool.run("cat", pack, "nope.txt")
        #expect(result.status == 1)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr == "packtool: \(pack): entry \"nope.txt\": no such entry\n")
    }

    @Test("a missing pack: one line on stderr, exit 1, for every subcommand", arguments: [
        ["ls"], ["ls", "-l"], ["cat", "x"], ["verify"], ["info"], ["index"], ["extract"],
    ])
    func missingPack(arguments: [String]) throws {
        let scratch = try Scratch()
        let missing = scratch.url("missing.pack")
        let result = try Packtool.run([arguments[0], missing] + arguments.dropFirst(), in: scratch.path)
        #expect(result.status == 1)
        #expect(result.stderr == "packtool: \(missing): no such file\n")
    }

    @Test("usage errors exit 64")
    func usage() throws {
        #expect(try Packtool.run("ls").status == 64)
        #expect(try Packtool.run("build", "x").status == 64)
        #expect(try Packtool.run("frobnicate").status == 64)
    }

    @Test("verify says OK for a good pack and names the entry and offset of a corrupt one")
    func verify() throws {
        let scratch = try Scratch()
        let pack = try scratch.smallPack()
        let good = try Packtool.run("verify", pack)
        #expect(good.status == 0)
        #expect(good.output == "\(pack): OK, 4 entries, 442 bytes checked (CRC-32 and SHA-256)\n")
        var bytes = try scratch.bytes("small.pack")
        bytes[144] ^= 0x01  // first byte of b.txt's data
        try Data(bytes).write(to: URL(fileURLWithPath: pack))
        let bad = try Packtool.run("verify", pack)
        #expect(bad.status == 1)
        #expect(bad.stderr == "packtool: \(pack): entry \"b.txt\": CRC-32 mismatch: data has CRC be94f8c6, the headers say 06289fa3 (at offset 144)\n")
    }

    @Test("info shows the pack's metadata and sizes")
    func info() throws {
        let scratch = try Scratch()
        try scratch.write("src/hello.txt", "hello\n")
        let pack = scratch.url("ru.pack")
        try Packtool.run("build", scratch.url("src"), "-o", pack, "--name", "lessons", "--locale", "ru", "--content-version", "2026.11", "--align", "4096")
        let result = try Packtool.run("info", pack)
        #expect(result.status == 0)
        let lines = result.output.split(separator: "\n").map(String.init)
        #expect(lines.contains("name:            lessons"))
        #expect(lines.contains("locale:          ru"))
        #expect(lines.contains("content version: 2026.11"))
        #expect(lines.contains("entries:         1 (+ index)"))
        #expect(lines.contains("alignment:       4096"))
        #expect(lines.contains("content size:    6 bytes"))
        #expect(lines.contains { $0.hasPrefix("digest:          sha256:") && $0.count == 17 + 7 + 64 })
    }

    @Test("index prints the stored JSON index")
    func index() throws {
        let scratch = try Scratch()
        let pack = try scratch.smallPack()
        let result = try Packtool.run("index", pack)
        #expect(result.status == 0)
        #expect(result.stdout == (try Packtool.run("cat", pack, ".pack/index.json").stdout))
        let json = try #require(try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any])
        let files = try #require(json["files"] as? [String: Any])
        // [entry number, data offset, size, CRC-32, SHA-256]: the hash as sha256sum prints it.
        let x = try #require((files["a"] as? [String: Any])?["x.txt"] as? [Any])
        #expect(x.prefix(4).compactMap { $0 as? Int } == [0, 48, 3, 0xb66e_ca39])
        #expect(x.last as? String == ExternalSHA256.hex(try scratch.bytes("src/a/x.txt")))
        let b = try #require(files["b.txt"] as? [Any])
        #expect(b.prefix(4).compactMap { $0 as? Int } == [2, 144, 4, 0x0628_9fa3])
        #expect(b.last as? String == ExternalSHA256.hex(Array("bee\n".utf8)))
    }

    @Test("build then extract reproduces the folder: spaces, Cyrillic, Japanese, an empty file, a multi-megabyte file")
    func roundTrip() throws {
        let scratch = try Scratch()
        var big = [UInt8](repeating: 0, count: 3 * 1024 * 1024 + 17)
        for index in big.indices { big[index] = UInt8(truncatingIfNeeded: index &* 2_654_435_761 >> 13) }
        let files: [String: [UInt8]] = [
            "with spaces/a file.txt": Array("spaces".utf8),
            "Русский/Привет мир.txt": Array("мир".utf8),
            "日本語/ねこ.txt": Array("猫".utf8),
            "empty": [],
            "media/big.bin": big,
        ]
        for (name, bytes) in files { try scratch.write("src/" + name, bytes) }
        #expect(try Packtool.run("build", scratch.url("src"), "-o", scratch.url("rt.pack")).status == 0)
        let result = try Packtool.run("extract", scratch.url("rt.pack"), "-o", scratch.url("out"))
        #expect(result.status == 0, "\(result.stderr)")
        // The content: the pack's own index is not extracted.
        #expect(result.output == "\(scratch.url("out")): 5 files extracted\n")
        #expect(try scratch.tree("out") == files)
        // A second extract refuses to overwrite, and --force does.
        let again = try Packtool.run("extract", scratch.url("rt.pack"), "-o", scratch.url("out"))
        #expect(again.status == 1)
        #expect(again.stderr.hasPrefix("packtool: \(scratch.url("out")): entry \""))
        #expect(again.stderr.hasSuffix("file exists: use --force to overwrite; nothing was extracted\n"))
        #expect(try Packtool.run("extract", scratch.url("rt.pack"), "-o", scratch.url("out"), "--force").status == 0)
        // Selected paths only.
        #expect(try Packtool.run("extract", scratch.url("rt.pack"), "-o", scratch.url("some"), "日本語").status == 0)
        #expect(try scratch.tree("some") == ["日本語/ねこ.txt": Array("猫".utf8)])
    }

    @Test("SOURCE_DATE_EPOCH sets the timestamp; builds stay byte-identical")
    func sourceDateEpoch() throws {
        let scratch = try Scratch()
        try scratch.write("src/a.txt", "a")
        let epoch = ["SOURCE_DATE_EPOCH": "1700000000"]
        try Packtool.run("build", scratch.url("src"), "-o", scratch.url("1.pack"), "--name", "p", environment: epoch)
        try Packtool.run("build", scratch.url("src"), "-o", scratch.url("2.pack"), "--name", "p", environment: epoch)
        try Packtool.run("build", scratch.url("src"), "-o", scratch.url("3.pack"), "--name", "p")
        #expect(try scratch.bytes("1.pack") == scratch.bytes("2.pack"))
        #expect(try scratch.bytes("1.pack") != scratch.bytes("3.pack"))
        let bad = try Packtool.run("build", scratch.url("src"), "-o", scratch.url("4.pack"), environment: ["SOURCE_DATE_EPOCH": "soon"])
        #expect(bad.status == 1)
        #expect(bad.stderr == "packtool: invalid argument: SOURCE_DATE_EPOCH is not a number of seconds: soon\n")
    }

    @Test("a build error is one line naming both colliding files, and no pack is left behind")
    func buildCollision() throws {
        let scratch = try Scratch()
        try scratch.write("src/Cat.png", "1")
        try scratch.write("src/cat.png", "2")
        let result = try Packtool.run("build", scratch.url("src"), "-o", scratch.url("c.pack"))
        #expect(result.status == 1)
        #expect(result.stderr == "packtool: entry \"cat.png\": names collide on case-insensitive file systems: \"\(scratch.url("src/Cat.png"))\" and \"\(scratch.url("src/cat.png"))\" differ only by case or Unicode normalization\n")
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.path).sorted() == ["src"])
    }

    @Test("a pack of 3,000 files answers ls, cat and verify")
    func threeThousandFiles() throws {
        let scratch = try Scratch()
        var expected: [String: String] = [:]
        for index in 0..<3000 {
            let name = String(format: "letters/%02d/item-%04d.json", index % 30, index)
            expected[name] = "{\"item\":\(index),\"text\":\"\(String(repeating: "x", count: index % 200))\"}"
        }
        for (name, text) in expected { try scratch.write("src/" + name, text) }
        let build = try Packtool.run("build", scratch.url("src"), "-o", scratch.url("3k.pack"))
        #expect(build.status == 0, "\(build.stderr)")
        let ls = try Packtool.run("ls", scratch.url("3k.pack"))
        #expect(ls.output == (expected.keys.sorted() + [".pack/index.json"]).map { $0 + "\n" }.joined())
        for index in stride(from: 7, to: 3000, by: 331) {
            let name = String(format: "letters/%02d/item-%04d.json", index % 30, index)
            #expect(try Packtool.run("cat", scratch.url("3k.pack"), name).output == expected[name])
        }
        let verify = try Packtool.run("verify", scratch.url("3k.pack"))
        #expect(verify.status == 0)
        #expect(verify.output.hasPrefix("\(scratch.url("3k.pack")): OK, 3001 entries, "))
    }

    @Test("every subcommand works on a zip made by Info-ZIP")
    func foreignZip() throws {
        let scratch = try Scratch()
        try scratch.write("src/docs/readme.txt", String(repeating: "read me ", count: 500))
        try scratch.write("src/b.bin", [0, 1, 2, 3])
        let zip = try run("zip", ["-9", "-r", "-q", scratch.url("f.zip"), "."], in: scratch.url("src"))
        #expect(zip.status == 0, "\(zip.stderr)")
        let path = scratch.url("f.zip")
        #expect(Set(try Packtool.run("ls", path).output.split(separator: "\n")) == ["docs/", "docs/readme.txt", "b.bin"])
        let long = try Packtool.run("ls", "-l", path).output
        #expect(long.contains("deflated  docs/readme.txt"))
        #expect(try Packtool.run("cat", path, "docs/readme.txt").output == String(repeating: "read me ", count: 500))
        #expect(try Packtool.run("verify", path).status == 0)
        #expect(try Packtool.run("info", path).output.contains("format:          zip (no pack index)"))
        #expect(try JSONSerialization.jsonObject(with: Packtool.run("index", path).stdout) is [String: Any])
        #expect(try Packtool.run("extract", path, "-o", scratch.url("out")).status == 0)
        #expect(try scratch.tree("out") == scratch.tree("src"))
    }
}
