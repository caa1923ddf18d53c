import Foundation
import TestSupport
import Testing

@Suite("packtool build, incremental: up to date costs nothing; identical output keeps the file")
struct IncrementalBuildTests {
    /// The pack's modification time (seconds and nanoseconds) and inode.
    func identity(_ path: String) throws -> [AnyHashable] {
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        return [attributes[.modificationDate] as? Date, attributes[.systemFileNumber] as? Int, attributes[.size] as? Int]
    }

    func build(_ scratch: Scratch, _ extra: String...) throws -> String {
        let result = try Packtool.run(["build", scratch.url("src"), "-o", scratch.url("out/p.pack")] + extra)
        #expect(result.status == 0, "\(result.stderr)")
        return result.output
    }

    @Test("unchanged, touched, changed, options changed, damaged or foreign destination, --force")
    func outcomes() throws {
        let scratch = try Scratch()
        for index in 0..<30 { try scratch.write("src/Images/\(index).png", "picture \(index)") }
        try scratch.write("src/notes.txt", "one")
        try FileManager.default.createDirectory(atPath: scratch.url("out"), withIntermediateDirectories: true)
        let pack = scratch.url("out/p.pack")
        #expect(try build(scratch).hasPrefix("\(pack): 31 entries"))
        #expect(FileManager.default.fileExists(atPath: scratch.url("out/.p.pack.stamp")))
        let first = try identity(pack)
        usleep(20_000)  // so a rewrite would show in the modification time

        // Unchanged: up to date, the file untouched (time and inode kept).
        #expect(try build(scratch) == "\(pack): up to date\n")
        #expect(try identity(pack) == first)

        // One file touched with the same bytes: built again, identical, the file kept.
        let touched = Date().addingTimeInterval(5)
        try FileManager.default.setAttributes([.modificationDate: touched], ofItemAtPath: scratch.url("src/notes.txt"))
        #expect(try build(scratch) == "\(pack): unchanged (built again, byte for byte the same; the file was kept)\n")
        #expect(try identity(pack) == first)
        #expect(try build(scratch) == "\(pack): up to date\n")

        // One file changed: rebuilt.
        try scratch.write("src/notes.txt", "two")
        #expect(try build(scratch).hasPrefix("\(pack): 31 entries"))
        let second = try identity(pack)
        #expect(second != first)
        #expect(try Packtool.run("cat", pack, "notes.txt").output == "two")

        // Options changed: rebuilt.
        #expect(try build(scratch, "--align", "4096").hasPrefix("\(pack): 31 entries"))
        #expect(try build(scratch, "--align", "4096") == "\(pack): up to date\n")
        #expect(try build(scratch).hasPrefix("\(pack): 31 entries"))

        // A damaged destination (same size, other bytes) or a foreign one: rebuilt.
        var bytes = try scratch.bytes("out/p.pack")
        bytes[40] ^= 0xFF
        try Data(bytes).write(to: URL(fileURLWithPath: pack))
        #expect(try build(scratch).hasPrefix("\(pack): 31 entries"))
        #expect(try Packtool.run("verify", pack).status == 0)
        #expect(try run("zip", ["-q", "-j", scratch.url("foreign.zip"), scratch.url("src/notes.txt")]).status == 0)
        try FileManager.default.removeItem(atPath: pack)
        try FileManager.default.copyItem(atPath: scratch.url("foreign.zip"), toPath: pack)
        #expect(try build(scratch).hasPrefix("\(pack): 31 entries"))
        #expect(try Packtool.run("verify", pack).status == 0)

        // The limit of a stamp: bytes changed, size and time restored. Only --force sees it.
        // (touch -r copies the time to the nanosecond, which Foundation's Date cannot.)
        #expect(try run("touch", ["-r", scratch.url("src/notes.txt"), scratch.url("time-reference")]).status == 0)
        try Data("TWO".utf8).write(to: URL(fileURLWithPath: scratch.url("src/notes.txt")))
        #expect(try run("touch", ["-r", scratch.url("time-reference"), scratch.url("src/notes.txt")]).status == 0)
        #expect(try build(scratch) == "\(pack): up to date\n")
        #expect(try Packtool.run("cat", pack, "notes.txt").output == "two")
        #expect(try build(scratch, "--force").hasPrefix("\(pack): 31 entries"))
        #expect(try Packtool.run("cat", pack, "notes.txt").output == "TWO")
    }

    @Test("a content error in compiler format: FILE:LINE: error: message, and no pack")
    func compilerDiagnostics() throws {
        let scratch = try Scratch()
        for (file, text) in StoreCommandTests.bank(prompt: "", correct: (true, true)) { try scratch.write("src/" + file, text) }
        try scratch.write("src/Images/p.png", "p")
        let result = try Packtool.run("build", scratch.url("src"), "-o", scratch.url("p.pack"), "--message-format", "compiler")
        #expect(result.status == 1)
        #expect(
            result.stderr == """
                \(scratch.url("src/Banks/b/c.json")):2: error: q1: empty text: prompt
                \(scratch.url("src/Banks/b/c.json")):2: error: q1: needs exactly one correct answer: 2 are marked correct

                """)
        try scratch.write("src/.pack.json", "{\"colour\": 1}")
        let settings = try Packtool.run("build", scratch.url("src"), "-o", scratch.url("p.pack"), "--message-format", "compiler")
        #expect(
            settings.stderr
                == "\(scratch.url("src/.pack.json")):1: error: invalid build settings: unknown key \"colour\"; the keys are name, locale, contentVersion, alignment, base, reference\n"
        )
    }
}
