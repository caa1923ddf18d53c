// What every test target needs: a temporary folder that writes files and builds packs, a
// process runner, deterministic bytes. One copy, shared by all test targets.
import AssetPack
import Foundation
import Testing

/// A fresh temporary folder, removed when the value is deinitialized.
public final class Scratch: @unchecked Sendable {
    public let path: String

    public init() throws {
        path = NSTemporaryDirectory() + "/assetpack-test-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    /// The full path of `relative` inside the folder.
    public func url(_ relative: String) -> String { path + "/" + relative }

    /// Writes one file, creating its folders.
    public func write(_ relative: String, _ bytes: [UInt8]) throws {
        let full = url(relative)
        try FileManager.default.createDirectory(
            atPath: (full as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try Data(bytes).write(to: URL(fileURLWithPath: full))
    }

    public func write(_ relative: String, _ text: String) throws { try write(relative, Array(text.utf8)) }

    /// Writes `files` (relative path → bytes) under `folder`; returns the folder's path.
    @discardableResult
    public func write(_ files: [String: [UInt8]], in folder: String = "source") throws -> String {
        for (name, bytes) in files { try write(folder + "/" + name, bytes) }
        try FileManager.default.createDirectory(atPath: url(folder), withIntermediateDirectories: true)
        return url(folder)
    }

    /// The bytes of `relative`.
    public func bytes(_ relative: String) throws -> [UInt8] { try fileBytes(url(relative)) }

    /// Every regular file below `relative`, path → bytes.
    public func tree(_ relative: String) throws -> [String: [UInt8]] { try readTree(url(relative)) }

    /// Builds `NAME.pack` in the folder from text files and returns its path.
    @discardableResult
    public func pack(_ name: String, locale: String? = nil, files: [String: String]) throws -> String {
        var builder = PackBuilder(options: .init(name: name, locale: locale))
        for (file, text) in files { try builder.add(path: file, contents: Array(text.utf8)) }
        try builder.write(to: url(name + ".pack"))
        return url(name + ".pack")
    }
}

/// The repository's folders, found from this file's place in it (Tests/TestSupport/).
public enum Repository {
    /// The repository's root folder.
    public static let root: String = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().path

    /// The full path of `relative` in the repository.
    public static func path(_ relative: String) -> String { root + "/" + relative }
}

/// The package's built executables, found beside the test bundle. Test targets that run one
/// list its target among their dependencies, so `swift test` builds it first.
public enum BuiltProducts {
    /// The folder that holds the test bundle and the executables.
    public static let folder: String = {
        #if os(macOS)
        for bundle in Bundle.allBundles where bundle.bundlePath.hasSuffix(".xctest") {
            return bundle.bundleURL.deletingLastPathComponent().path
        }
        #endif
        return Bundle.main.bundleURL.path
    }()

    /// The path of the executable `name` (`packtool`, `study`).
    public static func path(_ name: String) -> String { folder + "/" + name }
}

/// Runs the built `packtool` binary, as a user would. Test targets that use it list the
/// `packtool` target among their dependencies, so `swift test` builds it first.
public enum Packtool {
    /// Where the binary is: beside the test bundle.
    public static let binary = BuiltProducts.path("packtool")

    /// Runs packtool with `arguments`; SOURCE_DATE_EPOCH from the test's own environment is not
    /// passed on.
    @discardableResult
    public static func run(_ arguments: String..., environment: [String: String] = [:], in directory: String? = nil) throws -> ProcessResult {
        try run(arguments, environment: environment, in: directory)
    }

    /// Runs packtool with `arguments`.
    @discardableResult
    public static func run(_ arguments: [String], environment: [String: String] = [:], in directory: String? = nil) throws -> ProcessResult {
        try TestSupport.run(binary, arguments, environment: environment, removing: ["SOURCE_DATE_EPOCH"], in: directory)
    }
}

/// The result of running a program.
public struct ProcessResult: Sendable {
    public var status: Int32
    public var stdout: Data
    public var stderr: String
    public var output: String { String(decoding: stdout, as: UTF8.self) }

    public init(status: Int32, stdout: Data, stderr: String) {
        self.status = status
        self.stdout = stdout
        self.stderr = stderr
    }
}

/// Runs `executable` (a path, or a name looked up on PATH) and waits; never throws for a
/// non-zero exit. `removing` names environment variables the child must not inherit; `input`,
/// when given, is written to its standard input, which is then closed.
@discardableResult
public func run(
    _ executable: String, _ arguments: [String], environment: [String: String] = [:], removing: [String] = [],
    in directory: String? = nil, input: Data? = nil
) throws -> ProcessResult {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable.hasPrefix("/") ? executable : "/usr/bin/env")
    process.arguments = executable.hasPrefix("/") ? arguments : [executable] + arguments
    var inherited = ProcessInfo.processInfo.environment
    for name in removing { inherited.removeValue(forKey: name) }
    process.environment = inherited.merging(environment) { $1 }
    if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
    let out = Pipe()
    let err = Pipe()
    process.standardOutput = out
    process.standardError = err
    let stdin = input.map { _ in Pipe() }
    if let stdin { process.standardInput = stdin }
    try process.run()
    if let stdin, let input {
        // Written on another thread: a child that answers before reading everything must not
        // block this one on a full pipe.
        let writer = stdin.fileHandleForWriting
        Thread.detachNewThread {
            writer.write(input)
            try? writer.close()
        }
    }
    // Drain both pipes at once so a chatty child never blocks on a full pipe.
    let errors = ErrorDrain(err.fileHandleForReading)
    let stdout = out.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return ProcessResult(status: process.terminationStatus, stdout: stdout, stderr: String(decoding: errors.wait(), as: UTF8.self))
}

/// Reads a pipe to its end on another thread.
private final class ErrorDrain: @unchecked Sendable {
    private let done = DispatchSemaphore(value: 0)
    private var data = Data()

    init(_ handle: FileHandle) {
        Thread.detachNewThread { [self] in
            data = handle.readDataToEndOfFile()
            done.signal()
        }
    }

    func wait() -> Data {
        done.wait()
        return data
    }
}

/// Every regular file under `folder`, relative path → bytes.
public func readTree(_ folder: String) throws -> [String: [UInt8]] {
    var result: [String: [UInt8]] = [:]
    guard let enumerator = FileManager.default.enumerator(atPath: folder) else { return result }
    while let relative = enumerator.nextObject() as? String {
        var isDirectory: ObjCBool = false
        let full = folder + "/" + relative
        if FileManager.default.fileExists(atPath: full, isDirectory: &isDirectory), !isDirectory.boolValue {
            result[relative] = try fileBytes(full)
        }
    }
    return result
}

/// The whole file.
public func fileBytes(_ path: String) throws -> [UInt8] { Array(try Data(contentsOf: URL(fileURLWithPath: path))) }

/// Deterministic pseudo-random bytes, so fixtures are the same on every run: SplitMix64
/// (Steele, Lea and Flood), seeded by `state`. The test helpers' own, so that a test target
/// links no engine it does not test.
public struct SeededBytes: RandomNumberGenerator, Sendable {
    /// The generator's whole state; it advances by a fixed odd constant per draw.
    public var state: UInt64

    /// A generator whose state starts at `state`.
    public init(state: UInt64) { self.state = state }

    /// The next 64 random bits.
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// `count` bytes: each draw's eight bytes in memory order.
    public mutating func bytes(_ count: Int) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(count + 8)
        while out.count < count { withUnsafeBytes(of: next()) { out.append(contentsOf: $0) } }
        return Array(out.prefix(count))
    }
}

extension PackData {
    /// The bytes as UTF-8 text.
    public var text: String { String(decoding: self, as: UTF8.self) }
}

// MARK: - Test tiers

/// The test tiers: `Scripts/test` runs everything; `Scripts/test --quick` (which sets
/// `ASSETPACKS_TEST_TIER=quick`) leaves out the tests tagged below (and marked `.fullTierOnly`).
public enum TestTier {
    /// Whether this run is the quick tier.
    public static let isQuick = ProcessInfo.processInfo.environment["ASSETPACKS_TEST_TIER"] == "quick"
}

extension Tag {
    /// Builds another package with `swift build` (minutes, not seconds).
    @Tag public static var nestedBuild: Self
    /// Kills processes at random moments, many times over.
    @Tag public static var killLoop: Self
    /// Checks our output against another implementation run as a program (py-fsrs, Info-ZIP,
    /// Python's zipfile, minisign).
    @Tag public static var oracle: Self
    /// Runs a real browser (headless Chromium).
    @Tag public static var browser: Self
}

extension Trait where Self == ConditionTrait {
    /// Runs in the full tier only: `Scripts/test --quick` leaves the test out.
    public static var fullTierOnly: Self {
        .disabled(if: TestTier.isQuick, "left out of the quick tier (Scripts/test --quick)")
    }
}

/// Bytes as lowercase hex, two digits a byte (what `sha256sum` and minisign print).
public func hexString(_ bytes: some Sequence<UInt8>) -> String {
    let digits = Array("0123456789abcdef".utf8)
    var out: [UInt8] = []
    for byte in bytes { out += [digits[Int(byte >> 4)], digits[Int(byte & 15)]] }
    return String(decoding: out, as: UTF8.self)
}

/// SHA-256 as another program computes it (`sha256sum`): an oracle independent of the library.
public enum ExternalSHA256 {
    /// The SHA-256 of `bytes`, in hex, or "" when sha256sum cannot run.
    public static func hex(_ bytes: [UInt8]) -> String {
        let scratch = try? Scratch()
        guard let scratch, (try? scratch.write("x", bytes)) != nil else { return "" }
        return file(scratch.url("x"))
    }

    /// The SHA-256 of the file at `path`, in hex, or "" when sha256sum cannot run.
    public static func file(_ path: String) -> String {
        guard let result = try? run("sha256sum", [path]) else { return "" }
        return String(result.output.prefix(64))
    }
}
