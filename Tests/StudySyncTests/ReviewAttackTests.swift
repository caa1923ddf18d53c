import Foundation
import StudyProgress
@testable import StudySync
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The second review of sync as an attacker: the store (or a shared folder's other users) names
/// objects it never had the key to seal, the network cuts a snapshot short, and a store's error
/// text reaches the learner's terminal. Each case failed before its fix.
@Suite("A store in an attacker's hands, second review: forged numbers, refused snapshots, hostile error text")
struct ReviewAttackTests {
    /// A learner whose device `a` synced three answers through a folder.
    struct Folder {
        let scratch: Scratch
        let key = LearnerKey.generate()
        let remote: FolderRemote
        let a: Device

        init(snapshotAfter: Int = 32, syncs: Int = 1) async throws {
            scratch = try Scratch()
            remote = FolderRemote(root: scratch.url("remote"))
            a = try Device("a", scratch: scratch, remote: remote, key: key, snapshotAfter: snapshotAfter)
            for step in 0..<3 {
                try a.answer("q\(step)", grade: 3, at: day0.addingTimeInterval(Double(step) * 60))
                if syncs > 1 { _ = try await a.sync.sync() }
            }
            if syncs <= 1 { _ = try await a.sync.sync() }
        }

        var learnerFolder: String { "remote/learners/\(key.learnerID)" }

        /// Puts `bytes` in the folder under a name of sync's shape: what anyone who can write to
        /// the store can do without the key.
        func plant(_ kind: ObjectName.Kind, device: UInt64, sequence: Int, _ bytes: String = "not sealed") throws -> ObjectName {
            let name = ObjectName(kind: kind, learner: key.learner, device: device, sequence: sequence, tag: "0123456789abcdef")
            try scratch.write("remote/" + name.description, bytes)
            return name
        }
    }

    @Test("a name with the largest sequence number, planted for a device nobody has, is refused and reported at once (the hole count was built number by number)")
    func hugeSequenceForAStranger() async throws {
        let setup = try await Folder()
        let planted = try setup.plant(.segment, device: 0xCC, sequence: ObjectName.maximumSequence)
        let b = try Device("b", scratch: setup.scratch, remote: setup.remote, key: setup.key)
        let started = Date()
        let report = try await b.sync.sync()
        #expect(Date().timeIntervalSince(started) < 30)
        #expect(report.refused.map(\.object) == [planted.description], "\(report.refused)")
        #expect(report.missing == ["00000000000000cc: 9999999998 of 1…9999999998"], "\(report.missing)")
        #expect(try b.hash() == setup.a.hash())
    }

    @Test("a name planted in a device's own folder with the largest sequence does not push its next segments past what a name holds (written where no device reads them)")
    func forgedOwnSequence() async throws {
        let setup = try await Folder()
        let a = setup.a
        // A segment, and two snapshots (the older of two is not read unless it is this device's own).
        for (kind, sequence) in [(ObjectName.Kind.segment, ObjectName.maximumSequence), (.snapshot, ObjectName.maximumSequence), (.snapshot, ObjectName.maximumSequence - 1)] {
            _ = try setup.plant(kind, device: a.store.device.rawValue, sequence: sequence)
        }
        try a.answer("q5", grade: 2, at: day0.addingTimeInterval(3_600))
        let report = try await a.sync.sync()
        #expect(report.refused.count == 3 && report.eventsSent == 1, "\(report)")
        #expect(try a.store.syncObjects().allSatisfy { !$0.name.contains("0123456789abcdef") }, "a planted name is not recorded as known")
        for _ in 0..<2 {
            try a.answer("q6", grade: 3, at: day0.addingTimeInterval(7_200))
            _ = try await a.sync.sync()
        }
        // Every segment a wrote has a name sync reads.
        let written = try setup.scratch.tree("remote").keys.filter { $0.contains("/\(a.store.device)/") && !$0.contains("0123456789abcdef") }
        #expect(written.allSatisfy { ObjectName(parsing: $0) != nil }, "\(written.sorted())")
        let b = try Device("b", scratch: setup.scratch, remote: setup.remote, key: setup.key)
        _ = try await b.sync.sync()
        #expect(try b.store.reviews(source: "bank/b").count == 6)
        #expect(try b.hash() == a.hash())
    }

    @Test("a device never writes a name past the largest sequence number: the sync stops with an error instead of uploading where no device reads")
    func sequenceCeiling() async throws {
        let setup = try await Folder()
        let a = setup.a
        // A record this file keeps (as if a past sync had recorded an object at the ceiling).
        let top = ObjectName(kind: .snapshot, learner: setup.key.learner, device: a.store.device.rawValue, sequence: ObjectName.maximumSequence, tag: "0123456789abcdef")
        try a.store.recordObject(SyncObjectRecord(name: top.description, device: a.store.device, kind: 2, sealedAt: 0, state: 0, events: 0))
        try a.answer("q5", grade: 2, at: day0.addingTimeInterval(3_600))
        let error = await #expect(throws: SyncError.self) { try await a.sync.sync() }
        #expect(error?.code == .tooLarge, "\(String(describing: error))")
        #expect(try setup.scratch.tree("remote").keys.allSatisfy { ObjectName(parsing: $0) != nil || $0.hasSuffix("key-check") })
    }

    @Test("a snapshot refused once (cut short by the network, damaged by the store) is read again at the next sync, not recorded as known and skipped for good")
    func refusedSnapshotIsRetried() async throws {
        let setup = try await Folder(snapshotAfter: 2, syncs: 3)
        let tree = try setup.scratch.tree("remote")
        let snapshot = try #require(tree.keys.first { $0.contains("/snapshots/") }, "\(tree.keys.sorted())")
        #expect(!tree.keys.contains { $0.contains("/segments/0000000001-") })
        let whole = try setup.scratch.bytes("remote/" + snapshot)
        try setup.scratch.write("remote/" + snapshot, Array(whole.prefix(whole.count - 1)))
        let b = try Device("b", scratch: setup.scratch, remote: setup.remote, key: setup.key)
        let first = try await b.sync.sync()
        #expect(first.refused.map(\.object) == [snapshot], "\(first)")
        try setup.scratch.write("remote/" + snapshot, whole)
        let second = try await b.sync.sync()
        #expect(second.refused.isEmpty && second.missing.isEmpty, "\(second)")
        #expect(try b.store.reviews(source: "bank/b").count == 3)
        #expect(try b.hash() == setup.a.hash())
    }

    @Test(
        "a store's error text (or a hostile object name) prints as one line without terminal escapes",
        arguments: ["\u{1B}]0;owned\u{07}", "line\nstudy: fake", "\u{1B}[2J", "\u{202E}txt.exe", "\u{9B}31m"])
    func errorTextIsEscaped(_ hostile: String) throws {
        let body = "<Error><Code>Slow\(hostile)Down</Code><Message>try \(hostile) later</Message></Error>"
        let (code, message) = S3Remote.errorText(Array(body.utf8))
        let error = SyncError(.httpStatus, "GET answered 503 \(code): \(message)", at: .file("s3://b/\(hostile)"))
        let line = error.description
        #expect(!line.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) || (0x202A...0x202E).contains($0.value) }, "\(line)")
        #expect(line.contains("answered 503 Slow"))
    }

    @Test("sync-key new -o never writes through a link planted where the key goes: refused like any file there, nothing written where it points")
    func keyFileThroughALink() throws {
        let scratch = try Scratch()
        let target = scratch.url("elsewhere.key")
        let path = scratch.url("learner.key")
        #expect(symlink(target, path) == 0)
        let result = try SyncCommandTests.study(["sync-key", "new", "-o", path])
        #expect(result.status == 1 && result.output.isEmpty, "\(result.output)")
        #expect(result.stderr == "study: \(path): fileSystem: a file is already there; a key is never written over\n", "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: target))
        #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: path)) == target)
    }

    @Test("a device's own snapshot the store lost (its segments deleted after it was verified) is written again, as a lost segment is, so a new device gets those events")
    func lostSnapshotHeals() async throws {
        let setup = try await Folder(snapshotAfter: 2, syncs: 3)
        let a = setup.a
        let snapshot = try #require(try setup.scratch.tree("remote").keys.first { $0.contains("/snapshots/") })
        try FileManager.default.removeItem(atPath: setup.scratch.url("remote/" + snapshot))
        // Written two hours ago (a listing that lags by seconds cannot explain it).
        for var record in try a.store.syncObjects() where record.name == snapshot {
            record.sealedAt -= 2 * 3_600_000
            try a.store.recordObject(record)
        }
        let healing = try await a.sync.sync()
        #expect(healing.objectsWritten == 1, "\(healing)")
        let fresh = try Device("fresh", scratch: setup.scratch, remote: setup.remote, key: setup.key)
        let report = try await fresh.sync.sync()
        #expect(report.missing.isEmpty && report.refused.isEmpty, "\(report)")
        #expect(try fresh.store.reviews(source: "bank/b").count == 3)
        #expect(try fresh.hash() == a.hash())
    }

    @Test("credentials never print their secret or session token: not in the remote's description, its debug description or a dump")
    func credentialsStayOutOfLogs() throws {
        let credentials = StoreCredentials(accessKeyID: "AKIDEXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY", sessionToken: "FQoGZXIvYXdzEXAMPLETOKEN")
        let remote = try S3Remote(url: "s3://bucket/app", endpoint: "http://127.0.0.1:9", region: nil, credentials: credentials)
        var dumped = ""
        dump(remote, to: &dumped)
        for text in ["\(credentials)", String(reflecting: credentials), "\(remote)", String(reflecting: remote), dumped] {
            #expect(!text.contains("wJalrXUtnFEMI") && !text.contains("EXAMPLETOKEN"), "\(text)")
        }
        #expect("\(credentials)".contains("AKIDEXAMPLE"))
    }
}
