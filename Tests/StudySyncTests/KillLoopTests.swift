import Foundation
import StudyEngine
import StudyProgress
@testable import StudySync
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

@Suite("A sync killed at random moments", .tags(.killLoop), .fullTierOnly, .serialized)
struct KillLoopTests {
    @Test("study sync killed (SIGKILL) at 20 random moments, then one that finishes: every answer once, the same state as a fresh device's")
    func killedSyncs() async throws {
        let scratch = try Scratch()
        let key = LearnerKey.generate()
        try scratch.write("learner.key", key.printable + "\n")
        let remote = FolderRemote(root: scratch.url("remote"))
        let a = try Device("a", scratch: scratch, remote: remote, key: key, snapshotAfter: 4)
        let b = try Device("b", scratch: scratch, remote: remote, key: key)
        var random = SplitMix64(seed: 20)
        let binary = BuiltProducts.path("study")
        for round in 0..<20 {
            // New answers on both devices each round, so every kill finds work to do.
            for step in 0..<40 {
                let moment = day0.addingTimeInterval(Double(round * 100 + step) * 600)
                try a.answer("q\(random.next() % 50)", grade: 1 + Int(random.next() % 4), at: moment)
            }
            try b.answer("q\(round)", grade: 3, at: day0.addingTimeInterval(Double(round) * 3_600))
            let process = Process()
            process.executableURL = URL(fileURLWithPath: binary)
            let target = round % 2 == 0 ? a.path : b.path
            process.arguments = ["sync", "--db", target, "--remote", scratch.url("remote"), "--key", scratch.url("learner.key")]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            try await Task.sleep(nanoseconds: (random.next() % 1000) * 120_000)
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        for device in [a, b, a] { _ = try await device.sync.sync() }
        #expect(try a.hash() == b.hash())
        #expect(try await freshReplay(scratch: scratch, remote: remote, key: key) == a.hash())
        #expect(try b.store.reviews(source: "bank/b").count == 20 * 40 + 20)
        for device in [a, b] { #expect(try device.store.integrityCheck() == ["ok"]) }
    }
}
