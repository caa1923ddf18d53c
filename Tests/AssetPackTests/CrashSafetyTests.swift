import Foundation
import TestSupport
import Testing

@testable import AssetPack

@Suite("Crash-safe publishing, faults, concurrent readers, the mapping contract")
struct CrashSafetyTests {
    static func files(version: Int, count: Int = 40) -> [String: [UInt8]] {
        var random = SeededBytes(state: UInt64(version))
        var files: [String: [UInt8]] = [:]
        for index in 0..<count { files["v/\(index).bin"] = random.bytes(100 + Int(random.next() % 3000)) }
        files["version.txt"] = Array("version \(version)".utf8)
        return files
    }

    /// The folder's entries other than `keep`: temporary files a build must never leave behind.
    static func leftovers(_ folder: String, keep: Set<String>) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder).filter { !keep.contains($0) }.sorted()
    }

    @Test("a disk that fills up after N bytes leaves the old pack, for every N")
    func diskFullAtEveryStage() throws {
        let folder = try Scratch()
        let destination = folder.url("p.pack")
        try buildPack(Self.files(version: 1), at: destination)
        let old = try fileBytes(destination)
        let reference = try fileBytes(
            buildPack(Self.files(version: 2), at: folder.url("reference.pack"), options: .init(name: "p")))
        try FileManager.default.removeItem(atPath: folder.url("reference.pack"))
        var budgets = Array(0..<64) + Array(stride(from: 64, to: reference.count + 64, by: 613))
        budgets += [reference.count - 1, reference.count, reference.count + 100]
        var failures = 0
        for budget in budgets {
            var builder = PackBuilder(options: .init(name: "p"))
            for (name, bytes) in Self.files(version: 2) { try builder.add(path: name, contents: bytes) }
            builder.faults = WriteFaults(budget: budget)
            do {
                try builder.write(to: destination)
                #expect(try fileBytes(destination) == reference, "budget \(budget)")
                // Put the old pack back for the next round.
                try Data(old).write(to: URL(fileURLWithPath: destination))
            } catch let error as PackError {
                failures += 1
                #expect(error.code == .io, "budget \(budget): \(error)")
                #expect(try fileBytes(destination) == old, "budget \(budget): the old pack must be intact")
            }
            #expect(try Self.leftovers(folder.path, keep: ["p.pack"]) == [], "budget \(budget)")
        }
        #expect(failures > 60)
    }

    @Test("short writes of any size still produce the exact pack", arguments: [1, 7, 4096])
    func shortWrites(maximum: Int) throws {
        let folder = try Scratch()
        let reference = try fileBytes(buildPack(Self.files(version: 3), at: folder.url("reference.pack")))
        var builder = PackBuilder(options: .init(name: "reference"))
        for (name, bytes) in Self.files(version: 3) { try builder.add(path: name, contents: bytes) }
        builder.faults = WriteFaults(maximumPerCall: maximum)
        try builder.write(to: folder.url("reference.pack"))
        #expect(try fileBytes(folder.url("reference.pack")) == reference)
    }

    @Test("a failing fsync is final: the old pack stays, the temporary file goes")
    func fsyncFailure() throws {
        let folder = try Scratch()
        let destination = folder.url("p.pack")
        try buildPack(Self.files(version: 1), at: destination)
        let old = try fileBytes(destination)
        var builder = PackBuilder()
        try builder.add(path: "x", contents: [1])
        builder.faults = WriteFaults(failSync: true)
        let error = try #require(throws: PackError.self) { try builder.write(to: destination) }
        #expect(error.code == .io)
        #expect(error.description.contains("fsync failed"))
        #expect(try fileBytes(destination) == old)
        #expect(try Self.leftovers(folder.path, keep: ["p.pack"]) == [])
    }

    @Test("an input file that changes size between listing and packing is an error")
    func inputChanges() throws {
        let folder = try Scratch()
        let source = try folder.write(["a.txt": [1, 2, 3], "b.txt": [4]])
        var builder = PackBuilder()
        try builder.addDirectory(atPath: source)
        try Data([9, 9, 9, 9, 9]).write(to: URL(fileURLWithPath: source + "/a.txt"))
        let error = try #require(throws: PackError.self) { try builder.write(to: folder.url("c.pack")) }
        #expect(error.code == .fileChanged)
        #expect(error.location.file == source + "/a.txt")
        #expect(!FileManager.default.fileExists(atPath: folder.url("c.pack")))
        #expect(try Self.leftovers(folder.path, keep: ["source"]) == [])
    }

    @Test("files are read ahead on worker threads, but the first failing file in entry order is the one reported")
    func firstFailureInOrder() throws {
        let folder = try Scratch()
        // 500 files (several read-ahead batches) and one over the 4 MiB read-ahead limit.
        var files: [String: [UInt8]] = [:]
        for number in 0..<500 { files[String(format: "f/%03d.txt", number)] = Array("file \(number)".utf8) }
        var random = SeededBytes(state: 3)
        files["f/big.bin"] = random.bytes(5 << 20)
        let source = try folder.write(files)
        var builder = PackBuilder()
        try builder.addDirectory(atPath: source)
        let built = try builder.write(to: folder.url("ok.pack"))
        #expect(built.metadata.entryCount == 501)
        let pack = try Pack(path: folder.url("ok.pack"))
        #expect(try Array(pack.data(forPath: "f/big.bin")) == files["f/big.bin"])
        #expect(try Array(pack.data(forPath: "f/499.txt")) == Array("file 499".utf8))
        try pack.verify()
        // Two files vanish after listing: the earlier one in entry order is reported, every time.
        try FileManager.default.removeItem(atPath: source + "/f/420.txt")
        try FileManager.default.removeItem(atPath: source + "/f/300.txt")
        for _ in 0..<5 {
            let error = try #require(throws: PackError.self) { try builder.write(to: folder.url("c.pack")) }
            #expect(error.location.file == source + "/f/300.txt")
            #expect(error.code == .fileNotFound)
        }
        #expect(try Self.leftovers(folder.path, keep: ["source", "ok.pack"]) == [])
    }

    @Test("stale temporary files of killed builds are removed by the next build; live ones are kept")
    func staleTemporaries() throws {
        let folder = try Scratch()
        let dead = Process()
        dead.executableURL = URL(fileURLWithPath: "/bin/true")
        try dead.run()
        dead.waitUntilExit()
        let alive = Process()
        alive.executableURL = URL(fileURLWithPath: "/bin/sleep")
        alive.arguments = ["30"]
        try alive.run()
        defer { alive.terminate() }
        let stale = ".p.pack.tmp-\(dead.processIdentifier)-12345"
        let live = ".p.pack.tmp-\(alive.processIdentifier)-678"
        let unrelated = ".other.pack.tmp-\(dead.processIdentifier)-1"
        for name in [stale, live, unrelated] { FileManager.default.createFile(atPath: folder.url(name), contents: Data([0])) }
        try buildPack(["a": [1]], at: folder.url("p.pack"))
        #expect(try Self.leftovers(folder.path, keep: ["p.pack"]) == [live, unrelated].sorted())
    }

    @Test("a build killed with SIGKILL at random moments never leaves a torn pack", .tags(.killLoop), .fullTierOnly)
    func killedBuilds() throws {
        let trials = Int(ProcessInfo.processInfo.environment["KILL_TRIALS"] ?? "") ?? 20
        let folder = try Scratch()
        let sourceOld = try folder.write(Self.files(version: 5, count: 50), in: "old")
        var big = Self.files(version: 6, count: 1500)
        var bigRandom = SeededBytes(state: 6)
        big["big.bin"] = bigRandom.bytes(6 << 20)
        let sourceNew = try folder.write(big, in: "new")
        let packtool = Packtool.binary
        let destination = folder.url("out/p.pack")
        try FileManager.default.createDirectory(atPath: folder.url("out"), withIntermediateDirectories: true)
        let first = try run(packtool, ["build", sourceNew, "-o", destination, "--name", "p"])
        try #require(first.status == 0, "packtool build failed: \(first.stderr)")
        let new = try fileBytes(destination)
        #expect(try run(packtool, ["build", sourceOld, "-o", destination, "--name", "p"]).status == 0)
        let old = try fileBytes(destination)
        // How long a build takes here, to spread the kills over it.
        let start = Date()
        #expect(try run(packtool, ["build", sourceNew, "-o", folder.url("timing.pack"), "--name", "p"]).status == 0)
        let duration = max(Date().timeIntervalSince(start), 0.05)
        var random = SeededBytes(state: 99)
        var outcomes: [String: Int] = [:]
        for _ in 0..<trials {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: packtool)
            process.arguments = ["build", sourceNew, "-o", destination, "--name", "p"]
            process.standardOutput = FileHandle.nullDevice
            try process.run()
            usleep(UInt32(Double(random.next() % 1000) / 1000 * duration * 1.2 * 1_000_000))
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            let now = try fileBytes(destination)
            var outcome = now == old ? "old" : now == new ? "new" : "TORN"
            // A kill that landed while the pack was being written leaves its temporary file.
            let temporary = ".p.pack.tmp-\(process.processIdentifier)-"
            if outcome == "old", try Self.leftovers(folder.url("out"), keep: ["p.pack"]).contains(where: { $0.hasPrefix(temporary) }) {
                outcome = "old, killed mid-write"
            }
            outcomes[outcome, default: 0] += 1
            #expect(outcome != "TORN")
            if outcome == "new" { try Data(old).write(to: URL(fileURLWithPath: destination)) }
        }
        // Every kill left the old pack or the new one, whole.
        #expect(outcomes.values.reduce(0, +) == trials)
        #expect(Set(outcomes.keys).isSubset(of: ["old", "new", "old, killed mid-write"]), "\(outcomes)")
        // Otherwise the kills all fell before or after the writing, and the test proved nothing.
        #expect(outcomes["old, killed mid-write", default: 0] > 0, "\(outcomes)")
        // The next build cleans up whatever the killed ones left.
        #expect(try run(packtool, ["build", sourceOld, "-o", destination, "--name", "p"]).status == 0)
        #expect(try Self.leftovers(folder.url("out"), keep: ["p.pack", ".p.pack.stamp"]) == [])
    }

    @Test("a pack replaced by rename while mapped: the old reader keeps the old bytes, a new open sees the new pack")
    func replacedWhileMapped() throws {
        let folder = try Scratch()
        let path = folder.url("p.pack")
        try buildPack(Self.files(version: 1), at: path)
        let old = try Pack(path: path)
        let oldView = try old.data(forPath: "version.txt")
        try buildPack(Self.files(version: 2), at: path)
        #expect(Array(oldView) == Array("version 1".utf8))
        #expect(try Array(old.data(forPath: "version.txt")) == Array("version 1".utf8))
        for (name, bytes) in Self.files(version: 1) { #expect(try Array(old.data(forPath: name)) == bytes) }
        try old.verify()
        let new = try Pack(path: path)
        #expect(try Array(new.data(forPath: "version.txt")) == Array("version 2".utf8))
        #expect(new.fileIdentity != old.fileIdentity)
    }

    @Test("truncating a mapped pack in place kills the reader with SIGBUS (the documented contract)")
    func truncatedWhileMappedDiesBySIGBUS() async throws {
        await #expect(processExitsWith: .signal(SIGBUS)) {
            let folder = NSTemporaryDirectory() + "sigbus-\(getpid())"
            try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            var random = SeededBytes(state: 1)
            let path = try buildPack(["big.bin": random.bytes(1 << 20)], at: folder + "/p.pack")
            let pack = try Pack(path: path)
            truncate(path, 0)
            let view = try pack.data(forPath: "big.bin")
            let sum = view.withUnsafeBytes { $0.reduce(0) { $0 &+ Int($1) } }  // touches unmapped pages
            print(sum)
        }
    }

    @Test("the pread backend turns the same truncation into an I/O error")
    func truncatedUnderReadBackend() throws {
        let folder = try Scratch()
        var random = SeededBytes(state: 1)
        let path = try buildPack(["big.bin": random.bytes(1 << 20)], at: folder.url("p.pack"))
        let pack = try Pack(path: path, backend: .read)
        truncate(path, 4096)
        let error = try #require(throws: PackError.self) { try pack.data(forPath: "big.bin") }
        #expect(error.code == .io)
        #expect(error.location.entry == "big.bin")
        #expect(error.location.file == path)
        #expect(throws: PackError.self) { try pack.verify() }
    }

    @Test("8 threads × 100,000 random lookups on one pack return the right bytes")
    func eightThreads() async throws {
        let folder = try Scratch()
        var random = SeededBytes(state: 8)
        var files: [String: [UInt8]] = [:]
        for index in 0..<3000 { files["cards/\(index % 50)/\(index).json"] = random.bytes(16 + Int(random.next() % 600)) }
        let pack = try Pack(path: buildPack(files, at: folder.url("t.pack")))
        let names = files.keys.sorted()
        let checksums = names.map { name in files[name]!.withUnsafeBytes { CRC32.checksum($0) } }
        let failures = await withTaskGroup(of: Int.self) { group in
            for worker in 0..<8 {
                group.addTask {
                    var state = SeededBytes(state: UInt64(100 + worker))
                    var failures = 0
                    for _ in 0..<100_000 {
                        let pick = Int(state.next() % UInt64(names.count))
                        guard let view = try? pack.data(forPath: names[pick]) else {
                            failures += 1
                            continue
                        }
                        if view.withUnsafeBytes({ CRC32.checksum($0) }) != checksums[pick] { failures += 1 }
                    }
                    return failures
                }
            }
            return await group.reduce(0, +)
        }
        #expect(failures == 0)
    }
}
