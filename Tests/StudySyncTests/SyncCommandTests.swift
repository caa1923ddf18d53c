import Foundation
import StudyProgress
@testable import StudySync
import TestSupport
import Testing

/// The `study` binary's sync commands, run as a learner runs them: exit status, standard output
/// and standard error compared, the files and the remote checked afterwards.
@Suite("study sync, sync-key, backup, restore and stats, run as a built binary")
struct SyncCommandTests {
    static let binary = BuiltProducts.path("study")

    /// Runs `study`, without the caller's AWS variables unless given.
    static func study(_ arguments: [String], environment: [String: String] = [:]) throws -> ProcessResult {
        try run(binary, arguments, environment: environment, removing: ["AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "STUDY_SYNC_KEY"])
    }

    /// A bank `b` of `count` questions `q1`… in a pack (what stats reads the progress against).
    static func bankPack(_ scratch: Scratch, count: Int = 8) throws -> String {
        let questions = (1...count).map { n in
            #"{"id": "q\#(n)", "prompt": "Question \#(n)?", "choices": [{"text": "a", "correct": false}, {"text": "b", "correct": true}], "explanation": "Because."}"#
        }
        return try scratch.pack(
            "bank", files: [
                "Banks/b/bank.json": #"{"id": "b", "title": "Bank", "language": "en", "categories": ["c"]}"#,
                "Banks/b/c.json": #"{"id": "c", "title": "Category", "lessons": [{"id": "l1", "title": "Lesson", "intro": "Read this first.", "questions": [\#(questions.joined(separator: ", "))]}]}"#,
            ])
    }

    /// `study stats --json`'s sync part.
    static func syncStatus(db: String, pack: String) throws -> SyncStatus {
        let result = try study(["stats", "--packs", pack, "--db", db, "--json", "--now", "2026-11-23", "bank", "b"])
        #expect(result.status == 0, "\(result.stderr)")
        struct Output: Decodable { var sync: SyncStatus }
        return try JSONDecoder().decode(Output.self, from: result.stdout).sync
    }

    // MARK: - Keys

    @Test("sync-key new prints a key that reads back; -o writes one for its owner only, and never over a file (one line, exit 1)")
    func keys() throws {
        let scratch = try Scratch()
        let printed = try Self.study(["sync-key", "new"])
        #expect(printed.status == 0 && printed.stderr.isEmpty)
        #expect(printed.output.hasPrefix("SYNC-") && printed.output.split(separator: "\n").count == 1, "\(printed.output)")
        _ = try LearnerKey(printable: printed.output)
        let file = scratch.url("learner.key")
        let written = try Self.study(["sync-key", "new", "-o", file])
        #expect(written.status == 0, "\(written.stderr)")
        let key = try LearnerKey(contentsOfFile: file)
        #expect(written.output == "learner \(key.learnerID): key written to \(file)\n")
        let mode = try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        let again = try Self.study(["sync-key", "new", "-o", file])
        #expect(again.status == 1 && again.output.isEmpty)
        #expect(again.stderr == "study: \(file): fileSystem: a file is already there; a key is never written over\n", "\(again.stderr)")
        #expect(try LearnerKey(contentsOfFile: file) == key)
    }

    // MARK: - Sync through a folder

    @Test("study sync through a folder: two progress files converge; --json reports what was sent and received; stats --json shows one state hash and when each device last synced")
    func folderSync() throws {
        let scratch = try Scratch()
        let pack = try Self.bankPack(scratch)
        let key = LearnerKey.generate()
        try scratch.write("learner.key", key.printable + "\n")
        let remote = FolderRemote(root: scratch.url("remote"))
        let a = try Device("a", scratch: scratch, remote: remote, key: key)
        let b = try Device("b", scratch: scratch, remote: remote, key: key)
        for step in 0..<4 { try a.answer("q\(step + 1)", grade: 3, at: day0.addingTimeInterval(Double(step) * 60)) }
        try b.answer("q2", grade: 1, at: day0.addingTimeInterval(30))
        let common = ["--remote", scratch.url("remote"), "--key", scratch.url("learner.key"), "--json"]
        struct Output: Decodable {
            var report: SyncReport
            var stateHash: String
            var device: String
        }
        func sync(_ device: Device) throws -> Output {
            let result = try Self.study(["sync", "--db", device.path] + common)
            #expect(result.status == 0 && result.stderr.isEmpty, "\(result.stderr)")
            return try JSONDecoder().decode(Output.self, from: result.stdout)
        }
        let first = try sync(a)
        #expect(first.report.eventsSent == 5 && first.report.eventsReceived == 0, "\(first.report)")  // four answers and the seed
        #expect(first.device == a.store.device.description)
        let second = try sync(b)
        #expect(second.report.eventsReceived == 5 && second.report.eventsSent == 2, "\(second.report)")
        let third = try sync(a)
        #expect(third.report.eventsReceived == 2 && third.report.eventsSent == 0)
        #expect(third.stateHash == second.stateHash)
        let text = try Self.study(["sync", "--db", a.path, "--remote", scratch.url("remote"), "--key", scratch.url("learner.key")])
        #expect(text.status == 0)
        #expect(text.output.hasPrefix("sent 0 events (0 bytes), received 0 (0 bytes); 1 requests,"), "\(text.output)")
        #expect(text.output.hasSuffix("state \(third.stateHash.prefix(16))\n"))
        // stats: the same hash on both, this device's last sync and the other's.
        let statusA = try Self.syncStatus(db: a.path, pack: pack)
        let statusB = try Self.syncStatus(db: b.path, pack: pack)
        #expect(statusA.stateHash == statusB.stateHash && statusA.stateHash == third.stateHash)
        #expect(statusA.events == 7 && statusB.events == 7)
        #expect(Set(statusA.devices.map(\.device)) == [a.store.device.description, b.store.device.description])
        #expect(statusA.devices.allSatisfy { $0.lastSync != nil }, "\(statusA.devices)")
        #expect(statusA.lastSync != nil && statusA.remote?.hasPrefix("file://") == true)
        let plain = try Self.study(["stats", "--packs", pack, "--db", a.path, "--now", "2026-11-23", "bank", "b"])
        #expect(plain.output.contains("sync: this device \(a.store.device) · 7 events · state \(third.stateHash.prefix(16))"), "\(plain.output)")
        #expect(plain.output.contains("  device \(b.store.device): last sync 20"), "\(plain.output)")
    }

    @Test("a wrong learner key is one line on stderr and exit 1, and nothing is written to the remote or the file: a key of the same learner with another secret, and another key on a file that synced before")
    func wrongKey() throws {
        let scratch = try Scratch()
        let key = LearnerKey.generate()
        try scratch.write("learner.key", key.printable + "\n")
        let remote = FolderRemote(root: scratch.url("remote"))
        let a = try Device("a", scratch: scratch, remote: remote, key: key)
        try a.answer("q1", grade: 3, at: day0)
        #expect(try Self.study(["sync", "--db", a.path, "--remote", scratch.url("remote"), "--key", scratch.url("learner.key")]).status == 0)
        let before = try scratch.tree("remote")

        // The same learner, another secret, on a new file.
        let forged = LearnerKey(learner: key.learner, secret: Array(repeating: 7, count: 32))
        try scratch.write("forged.key", forged.printable + "\n")
        let b = try Device("b", scratch: scratch, remote: remote, key: forged)
        try b.answer("q2", grade: 3, at: day0)
        let unsent = try b.store.unsentEvents(limit: 100).count
        let refused = try Self.study(["sync", "--db", b.path, "--remote", scratch.url("remote"), "--key", scratch.url("forged.key")])
        #expect(refused.status == 1 && refused.output.isEmpty)
        #expect(refused.stderr.hasPrefix("study: learners/\(key.learnerID)/key-check: wrongKey: the learner key does not open"), "\(refused.stderr)")
        #expect(refused.stderr.split(separator: "\n").count == 1)
        #expect(try scratch.tree("remote") == before)
        #expect(try b.store.unsentEvents(limit: 100).count == unsent && b.store.syncRemote() == nil)

        // Another learner's key on a file that already syncs there.
        let other = LearnerKey.generate()
        try scratch.write("other.key", other.printable + "\n")
        let hash = try a.hash()
        let mixed = try Self.study(["sync", "--db", a.path, "--remote", scratch.url("remote"), "--key", scratch.url("other.key")])
        #expect(mixed.status == 1 && mixed.stderr.split(separator: "\n").count == 1)
        #expect(mixed.stderr.contains("wrongKey: this progress file syncs there with another learner key"), "\(mixed.stderr)")
        #expect(try scratch.tree("remote") == before)
        #expect(try a.hash() == hash)
    }

    // MARK: - Backup and restore

    @Test("study backup writes the whole log sealed; study restore merges it (the same state), and again adds nothing; a backup the key does not open is one line, exit 1")
    func backupAndRestore() throws {
        let scratch = try Scratch()
        let key = LearnerKey.generate()
        try scratch.write("learner.key", key.printable + "\n")
        let remote = FolderRemote(root: scratch.url("unused"))
        let a = try Device("a", scratch: scratch, remote: remote, key: key)
        for step in 0..<3 { try a.answer("q\(step + 1)", grade: 2 + step % 3, at: day0.addingTimeInterval(Double(step) * 600)) }
        let backup = scratch.url("a.backup")
        let written = try Self.study(["backup", "--db", a.path, "--key", scratch.url("learner.key"), "-o", backup])
        #expect(written.status == 0 && written.output == "4 events written to \(backup)\n", "\(written.output) \(written.stderr)")
        let c = try Device("c", scratch: scratch, remote: remote, key: key)
        let restored = try Self.study(["restore", "--db", c.path, "--key", scratch.url("learner.key"), backup])
        #expect(restored.status == 0, "\(restored.stderr)")
        #expect(restored.output.hasPrefix("4 new events merged from \(backup); state "), "\(restored.output)")
        #expect(try c.hash() == a.hash())
        #expect(try c.store.reviews(source: "bank/b").count == 3)
        let again = try Self.study(["restore", "--db", c.path, "--key", scratch.url("learner.key"), backup])
        #expect(again.output.hasPrefix("0 new events merged"), "\(again.output)")
        try scratch.write("other.key", LearnerKey.generate().printable + "\n")
        let foreign = try Self.study(["restore", "--db", c.path, "--key", scratch.url("other.key"), backup])
        #expect(foreign.status == 1 && foreign.stderr.split(separator: "\n").count == 1)
        #expect(foreign.stderr.contains("\(backup): notAuthentic: not a backup this learner key opens"), "\(foreign.stderr)")
        #expect(try c.store.reviews(source: "bank/b").count == 3)
    }

    // MARK: - Sync through S3

    @Test(
        "study sync with an s3:// remote against SeaweedFS with authentication: two files converge; a wrong secret is one line on stderr, exit 1, nothing written",
        .tags(.server), .fullTierOnly)
    func s3Sync() async throws {
        let scratch = try Scratch()
        let server = try StoreTests.seaweed(scratch)
        defer { server.stop() }
        try await StoreTests.makeBucket(server)
        let key = LearnerKey.generate()
        try scratch.write("learner.key", key.printable + "\n")
        let remote = FolderRemote(root: scratch.url("unused"))
        let a = try Device("a", scratch: scratch, remote: remote, key: key)
        let b = try Device("b", scratch: scratch, remote: remote, key: key)
        try a.answer("q1", grade: 3, at: day0)
        try b.answer("q2", grade: 4, at: day0.addingTimeInterval(60))
        let endpoint = "http://127.0.0.1:\(server.port)"
        let identity = StoreTests.identity
        let environment = ["AWS_ACCESS_KEY_ID": identity.accessKeyID, "AWS_SECRET_ACCESS_KEY": identity.secretAccessKey]
        func sync(_ device: Device, environment: [String: String]) throws -> ProcessResult {
            try Self.study(
                ["sync", "--db", device.path, "--remote", "s3://progress/cli", "--endpoint", endpoint, "--key", scratch.url("learner.key")],
                environment: environment)
        }
        for device in [a, b, a] {
            let result = try sync(device, environment: environment)
            #expect(result.status == 0 && result.stderr.isEmpty, "\(result.stderr)")
        }
        #expect(try a.hash() == b.hash())
        #expect(try a.store.reviews(source: "bank/b").count == 2)

        let c = try Device("c", scratch: scratch, remote: remote, key: key)
        try c.answer("q3", grade: 3, at: day0)
        let wrong = try sync(c, environment: ["AWS_ACCESS_KEY_ID": identity.accessKeyID, "AWS_SECRET_ACCESS_KEY": "not-the-secret"])
        #expect(wrong.status == 1 && wrong.output.isEmpty)
        #expect(wrong.stderr.split(separator: "\n").count == 1, "\(wrong.stderr)")
        #expect(
            wrong.stderr.hasPrefix("study: s3://progress/cli/learners/\(key.learnerID)/: accessDenied: the store refused the credentials (403 SignatureDoesNotMatch"),
            "\(wrong.stderr)")
        #expect(try c.store.syncRemote() == nil)
        let listed = try await S3Remote(url: "s3://progress/cli", endpoint: endpoint, region: nil, credentials: identity).list(prefix: "learners/")
        #expect(listed.count >= 3)
        #expect(!listed.contains { $0.name.contains(c.store.device.description) })
        let missing = try Self.study(["sync", "--db", c.path, "--remote", "s3://progress/cli", "--endpoint", endpoint, "--key", scratch.url("learner.key")])
        #expect(missing.status == 1)
        #expect(missing.stderr == "study: s3://progress/cli: invalidArgument: an s3:// remote needs AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY\n", "\(missing.stderr)")
    }
}
