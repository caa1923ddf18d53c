import Foundation
import Testing

@testable import AssetPack

/// A fresh temporary folder, removed when the value is deinitialized.
final class TemporaryFolder: @unchecked Sendable {
    let path: String

    init() throws {
        var template = Array((NSTemporaryDirectory() + "/assetpack-test-XXXXXX").utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            throw PackError(.io, "mkdtemp failed")
        }
        path = String(cString: made)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    func url(_ relative: String) -> String { path + "/" + relative }

    /// Writes `files` (relative path → bytes) under `folder`, creating folders as needed.
    @discardableResult
    func write(_ files: [String: [UInt8]], in folder: String = "source") throws -> String {
        let root = url(folder)
        for (name, bytes) in files {
            let full = root + "/" + name
            try FileManager.default.createDirectory(
                atPath: (full as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            guard FileManager.default.createFile(atPath: full, contents: Data(bytes)) else {
                throw PackError(.io, "cannot write", path: full)
            }
        }
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        return root
    }
}

/// Deterministic pseudo-random bytes (SplitMix64), so fixtures are the same on every run.
struct SeededBytes {
    var state: UInt64

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    mutating func bytes(_ count: Int) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(count + 8)
        while out.count < count { withUnsafeBytes(of: next()) { out.append(contentsOf: $0) } }
        return Array(out.prefix(count))
    }
}

/// The result of running an external program.
struct ProcessResult {
    var status: Int32
    var stdout: Data
    var stderr: String
    var output: String { String(decoding: stdout, as: UTF8.self) }
}

/// Runs `executable` with `arguments`; never throws for a non-zero exit.
@discardableResult
func run(_ executable: String, _ arguments: [String], environment: [String: String]? = nil, in directory: String? = nil)
    throws -> ProcessResult
{
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable.hasPrefix("/") ? executable : "/usr/bin/env")
    process.arguments = executable.hasPrefix("/") ? arguments : [executable] + arguments
    if let environment {
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
    }
    if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
    let out = Pipe()
    let err = Pipe()
    process.standardOutput = out
    process.standardError = err
    try process.run()
    // Drain both pipes concurrently so a chatty child can never block on a full pipe.
    let group = DispatchGroup()
    nonisolated(unsafe) var errData = Data()
    group.enter()
    DispatchQueue.global().async {
        errData = err.fileHandleForReading.readDataToEndOfFile()
        group.leave()
    }
    let outData = out.fileHandleForReading.readDataToEndOfFile()
    group.wait()
    process.waitUntilExit()
    return ProcessResult(status: process.terminationStatus, stdout: outData, stderr: String(decoding: errData, as: UTF8.self))
}

/// Every regular file under `folder`, relative path → bytes.
func readTree(_ folder: String) throws -> [String: [UInt8]] {
    var result: [String: [UInt8]] = [:]
    guard let enumerator = FileManager.default.enumerator(atPath: folder) else { return result }
    while let relative = enumerator.nextObject() as? String {
        var isDirectory: ObjCBool = false
        let full = folder + "/" + relative
        if FileManager.default.fileExists(atPath: full, isDirectory: &isDirectory), !isDirectory.boolValue {
            result[relative] = Array(try Data(contentsOf: URL(fileURLWithPath: full)))
        }
    }
    return result
}

/// Builds a pack from in-memory files and returns its path.
@discardableResult
func buildPack(
    _ files: [String: [UInt8]], at path: String, options: PackBuilder.Options = .init()
) throws -> String {
    var builder = PackBuilder(options: options)
    for (name, bytes) in files { try builder.add(path: name, contents: bytes) }
    try builder.write(to: path)
    return path
}

/// A small mixed content set: nested folders, an empty file, non-ASCII names.
func sampleFiles(seed: UInt64 = 1) -> [String: [UInt8]] {
    var random = SeededBytes(state: seed)
    return [
        "Decks/animals.json": Array(#"{"id":"animals","cards":[]}"#.utf8),
        "Images/duck.png": random.bytes(3000),
        "Images/duck@2x.png": random.bytes(7000),
        "Images/duck@3x~ipad.png": random.bytes(12000),
        "Lessons/Урок 1.txt": Array("Привет, мир".utf8),
        "Lessons/日本語/ひらがな.txt": Array("あいうえお".utf8),
        "empty.txt": [],
        "notes with spaces.md": Array("# Notes\n".utf8),
    ]
}

/// Reads the whole file.
func fileBytes(_ path: String) throws -> [UInt8] { Array(try Data(contentsOf: URL(fileURLWithPath: path))) }

/// Overwrites `bytes` at `offset` in the file at `path`.
func patchFile(_ path: String, at offset: Int, with bytes: [UInt8]) throws {
    var data = try fileBytes(path)
    data.replaceSubrange(offset..<offset + bytes.count, with: bytes)
    try Data(data).write(to: URL(fileURLWithPath: path))
}

/// Whether a tool is installed (tests that need it say so by failing, not skipping).
func which(_ tool: String) -> Bool { (try? run("sh", ["-c", "command -v \(tool)"]))?.status == 0 }
