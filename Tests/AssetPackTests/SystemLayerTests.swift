import Foundation
import SystemPackage
import TestSupport
import Testing

@testable import AssetPack

@Suite("The system layer: one place for system calls, files that are not regular, the system's errors")
struct SystemLayerTests {
    @Test("no source file but the platform layer imports Glibc, Darwin or Musl")
    func onePlatformFile() throws {
        let sources = Repository.path("Sources")
        var offenders: [String] = []
        var scanned = 0
        let enumerator = try #require(FileManager.default.enumerator(atPath: sources))
        while let relative = enumerator.nextObject() as? String {
            guard relative.hasSuffix(".swift") else { continue }
            scanned += 1
            let text = try String(contentsOfFile: sources + "/" + relative, encoding: .utf8)
            if Self.importsCLibrary(text), relative != "AssetPack/System/Platform.swift" { offenders.append(relative) }
        }
        #expect(scanned > 50, "the scan found only \(scanned) Swift files under \(sources)")
        #expect(offenders == [])
        let platform = try String(contentsOfFile: sources + "/AssetPack/System/Platform.swift", encoding: .utf8)
        #expect(platform.contains("F_FULLFSYNC"))
    }

    /// Whether `text` imports Glibc, Darwin or Musl, or asks `canImport` of one of them.
    static func importsCLibrary(_ text: String) -> Bool {
        let libraries = ["Glibc", "Darwin", "Musl"]
        for line in text.split(separator: "\n") {
            var words = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            if words.first == "@_exported" { words.removeFirst() }
            if words.count >= 2, words[0] == "import", libraries.contains(String(words[1])) { return true }
            if libraries.contains(where: { line.contains("canImport(\($0))") }) { return true }
        }
        return false
    }

    @Test("the import scan sees imports and canImport checks, and nothing else")
    func importScan() {
        #expect(Self.importsCLibrary("import Foundation\nimport Glibc\n"))
        #expect(Self.importsCLibrary("  @_exported import Darwin"))
        #expect(Self.importsCLibrary("#if canImport(Musl)"))
        #expect(!Self.importsCLibrary("import GlibcExtras\n// uses Darwin's headers\nimport Foundation"))
    }

    @Test("a folder, a device or a FIFO given as a pack is refused before anything waits on it")
    func notRegularFiles() throws {
        let scratch = try Scratch()
        let fifo = scratch.url("pipe.pack")
        #expect(try run("mkfifo", [fifo]).status == 0)
        try FileManager.default.createDirectory(atPath: scratch.url("folder.pack"), withIntermediateDirectories: true)
        for (path, kind) in [(fifo, "a FIFO"), ("/dev/null", "a device"), (scratch.url("folder.pack"), "a folder")] {
            for backend in [PackBackend.mapped, .read] {
                let error = #expect(throws: PackError.self) { try Pack(path: path, backend: backend) }
                #expect(error?.code == .notRegularFile, "\(path)")
                #expect(error?.description == "\(path): not a regular file: it is \(kind)")
            }
        }
        // The builder refuses the same, whether named one by one or met in a source folder.
        var builder = PackBuilder()
        #expect(throws: PackError(.notRegularFile, "it is a FIFO", at: .file(fifo))) {
            try builder.add(path: "pipe", contentsOfFile: fifo)
        }
        try scratch.write("source/a.txt", "a")
        #expect(try run("mkfifo", [scratch.url("source/pipe")]).status == 0)
        let error = #expect(throws: PackError.self) { try builder.addDirectory(atPath: scratch.url("source")) }
        #expect(error?.code == .notRegularFile)
        #expect(error?.location.file == scratch.url("source/pipe"))
    }

    @Test("a source file whose status does not tell its size (/proc) is refused, not packed empty")
    func procFiles() throws {
        let scratch = try Scratch()
        var builder = PackBuilder()
        try builder.add(path: "status", contentsOfFile: "/proc/self/status")
        let error = #expect(throws: PackError.self) { try builder.write(to: scratch.url("p.pack")) }
        #expect(error?.code == .sizeMismatch)
        #expect(error?.location.file == "/proc/self/status")
        #expect(!FileManager.default.fileExists(atPath: scratch.url("p.pack")))
        // Met in a folder through a symbolic link, the same.
        try scratch.write("source/a.txt", "a")
        try FileManager.default.createSymbolicLink(atPath: scratch.url("source/cpu"), withDestinationPath: "/proc/cpuinfo")
        var folder = PackBuilder()
        try folder.addDirectory(atPath: scratch.url("source"))
        #expect(throws: PackError.self) { try folder.write(to: scratch.url("q.pack")) }
    }

    @Test("errors keep the system's error: a full disk is told apart from a missing file")
    func systemErrors() throws {
        let scratch = try Scratch()
        var builder = PackBuilder()
        try builder.add(path: "a", contents: [UInt8](repeating: 1, count: 4096))
        builder.faults = WriteFaults(budget: 100)
        let full = #expect(throws: PackError.self) { try builder.write(to: scratch.url("p.pack")) }
        #expect(full?.code == .io)
        #expect(full?.underlying == .noSpace)
        let missing = #expect(throws: PackError.self) { try Pack(path: scratch.url("nope.pack")) }
        #expect(missing?.code == .fileNotFound)
        #expect(missing?.underlying == .noSuchFileOrDirectory)
        try FileManager.default.createDirectory(atPath: scratch.url("locked"), withIntermediateDirectories: true)
        try FileManager.default.setAttributes([.posixPermissions: 0o500], ofItemAtPath: scratch.url("locked"))
        defer { try? FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: scratch.url("locked")) }
        if getuid() != 0 {  // root writes anywhere
            let denied = #expect(throws: PackError.self) { try builder.write(to: scratch.url("locked/p.pack")) }
            #expect(denied?.underlying == .permissionDenied)
        }
    }

    @Test("messages escape control characters in names: one line, no terminal escapes")
    func escapedMessages() {
        let error = PackError(.entryNotFound, "found \u{1B}[31mred", at: .pack("a\nb.pack", entry: "x\ty\u{7F}\u{202E}"))
        #expect(error.description == #"a\nb.pack: entry "x\ty\u{7F}\u{202E}": no such entry: found \u{1B}[31mred"#)
    }
}

@Suite("PackData: a collection of bytes, its own slice, zero-copy Data")
struct PackDataTests {
    @Test("indices, elements, slices that share indices, iteration and copies agree with the bytes")
    func collection() throws {
        let scratch = try Scratch()
        let bytes = (0..<300).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        for view in [PackData(copying: bytes), try Pack(path: buildPack(["b": bytes], at: scratch.url("b.pack"))).data(forPath: "b")] {
            #expect(view.count == 300)
            #expect(view.startIndex == 0 && view.endIndex == 300)
            #expect(Array(view) == bytes)
            #expect(view.elementsEqual(bytes))
            #expect(view.reversed().elementsEqual(bytes.reversed()))
            #expect(view[5] == bytes[5] && view.last == bytes.last)
            let slice = view[100..<110]
            #expect(slice.startIndex == 100 && slice.count == 10)
            #expect(slice[100] == bytes[100])
            #expect(Array(slice) == Array(bytes[100..<110]))
            #expect(Array(slice[102..<104]) == Array(bytes[102..<104]))
            #expect(slice.withUnsafeBytes { Array($0) } == Array(bytes[100..<110]))
            #expect(view.dropFirst(290).elementsEqual(bytes.dropFirst(290)))
            var iterator = view.makeIterator()
            var iterated: [UInt8] = []
            while let byte = iterator.next() { iterated.append(byte) }
            #expect(iterated == bytes)
            // A copy into a smaller buffer leaves the iterator where the copy stopped.
            let buffer = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: 10)
            defer { buffer.deallocate() }
            let (rest, copied) = view._copyContents(initializing: buffer)
            #expect(copied == 10)
            var remaining = rest
            #expect(remaining.next() == bytes[10])
            // Data: zero-copy, indexed from 0, also for a slice; a copy for mutation.
            let data = slice.data
            #expect(data.startIndex == 0 && Array(data) == Array(bytes[100..<110]))
            var copy = view.makeData()
            copy[0] = 255
            #expect(view[0] == bytes[0])
            #expect(String(decoding: PackData(copying: Array("héllo".utf8)), as: UTF8.self) == "héllo")
        }
    }
}
