import Foundation
import TestSupport
import Testing

/// Runs packtool under a time limit: a command that waits on a FIFO would be killed (status 124).
private func runBounded(_ arguments: [String], in directory: String? = nil) throws -> ProcessResult {
    try run("timeout", ["20", Packtool.binary] + arguments, removing: ["SOURCE_DATE_EPOCH"], in: directory)
}

@Suite("packtool and hostile arguments: FIFOs, devices and folders where files belong, bad settings")
struct HostileArgumentsTests {
    @Test("a FIFO, a device or a folder given as a pack is one line and exit 1, never a wait")
    func notRegularPacks() throws {
        let scratch = try Scratch()
        let fifo = scratch.url("pipe.pack")
        #expect(try run("mkfifo", [fifo]).status == 0)
        try FileManager.default.createDirectory(atPath: scratch.url("dir.pack"), withIntermediateDirectories: true)
        let commands: [[String]] = [
            ["verify"], ["info"], ["ls"], ["ls", "-l"], ["index"], ["extract", "-o", scratch.url("out")],
            ["resolve", "--locale", "en", "x.png"],
        ]
        for (path, kind) in [(fifo, "a FIFO"), ("/dev/null", "a device"), (scratch.url("dir.pack"), "a folder")] {
            for command in commands + [["cat"]] {
                let arguments = [command[0], path] + command.dropFirst() + (command == ["cat"] ? ["x"] : [])
                let result = try runBounded(arguments)
                #expect(result.status == 1, "\(arguments): \(result.status) \(result.stderr)")
                #expect(result.stderr == "packtool: \(path): not a regular file: it is \(kind)\n", "\(arguments)")
            }
        }
    }

    @Test("a FIFO as --base, --reference or .pack.json fails the build with one line, never a wait")
    func notRegularBuildInputs() throws {
        let scratch = try Scratch()
        try scratch.write("src/a.txt", "a")
        let fifo = scratch.url("pipe")
        #expect(try run("mkfifo", [fifo]).status == 0)
        for option in ["--base", "--reference"] {
            let result = try runBounded(["build", scratch.url("src"), "-o", scratch.url("p.pack"), option, fifo])
            #expect(result.status == 1, "\(option): \(result.stderr)")
            #expect(result.stderr == "packtool: \(fifo): not a regular file: it is a FIFO\n", "\(option)")
        }
        #expect(try run("mkfifo", [scratch.url("src/.pack.json")]).status == 0)
        let result = try runBounded(["build", scratch.url("src"), "-o", scratch.url("p.pack")])
        #expect(result.status == 1)
        #expect(result.stderr == "packtool: \(scratch.url("src/.pack.json")): not a regular file: it is a FIFO\n")
        #expect(!FileManager.default.fileExists(atPath: scratch.url("p.pack")))
    }

    @Test("bad build settings and a malformed locale are one line naming the file and line, and write nothing")
    func badSettings() throws {
        let scratch = try Scratch()
        try scratch.write("src/a.txt", "a")
        try scratch.write("src/.pack.json", "{\n  \"name\": \"x\",\n  \"locle\": \"en\"\n}\n")
        let typo = try Packtool.run("build", scratch.url("src"), "-o", scratch.url("p.pack"))
        #expect(typo.status == 1)
        #expect(
            typo.stderr
                == "packtool: \(scratch.url("src/.pack.json")):3: invalid build settings: unknown key \"locle\" (did you mean \"locale\"?); the keys are name, locale, contentVersion, alignment, base, reference\n"
        )
        try scratch.write("src/.pack.json", "{\"locale\": \"en_US_!\"}")
        let locale = try Packtool.run("build", scratch.url("src"), "-o", scratch.url("p.pack"))
        #expect(locale.status == 1)
        #expect(
            locale.stderr
                == "packtool: \(scratch.url("src/.pack.json")): malformed locale tag: \"en_US_!\": subtags are 1 to 8 ASCII letters or digits\n")
        try FileManager.default.removeItem(atPath: scratch.url("src/.pack.json"))
        let option = try Packtool.run("build", scratch.url("src"), "-o", scratch.url("p.pack"), "--locale", "english")
        #expect(option.stderr == "packtool: malformed locale tag: \"english\": the language must be 2 or 3 letters\n")
        #expect(!FileManager.default.fileExists(atPath: scratch.url("p.pack")))
    }

    @Test("names with control characters are listed on one line each, escaped")
    func escapedListing() throws {
        let scratch = try Scratch()
        try scratch.write("src/a.txt", "a")
        #expect(try Packtool.run("build", scratch.url("src"), "-o", scratch.url("p.pack")).status == 0)
        // A zip made by another tool may carry any name: Python writes one with an escape sequence.
        let script = "import zipfile; z = zipfile.ZipFile('\(scratch.url("e.zip"))', 'w'); z.writestr('red\\x1b[31m\\nx.txt', 'r'); z.close()"
        #expect(try run("python3", ["-c", script]).status == 0)
        let listing = try Packtool.run("ls", scratch.url("e.zip"))
        #expect(listing.output == "red\\u{1B}[31m\\nx.txt\n")
        let long = try Packtool.run("ls", "-l", scratch.url("e.zip"))
        #expect(long.output.hasSuffix("  red\\u{1B}[31m\\nx.txt\n"))
        #expect(long.output.split(separator: "\n").count == 1)
    }
}
