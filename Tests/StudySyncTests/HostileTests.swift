import Foundation
import ErrorReporting
import StudyProgress
@testable import StudySync
import TestSupport
import Testing

/// Every byte from the remote is hostile: each way an object can be wrong is refused with its
/// code, and nothing of it is merged.
@Suite("A hostile store: each bad object refused, nothing merged")
struct HostileTests {
    /// A learner with one device that synced three answers, and a second, empty device.
    struct Setup {
        let scratch: Scratch
        let key: LearnerKey
        let remote: FolderRemote
        let segment: String
        let bytes: [UInt8]

        init() async throws {
            scratch = try Scratch()
            key = LearnerKey.generate()
            remote = FolderRemote(root: scratch.url("remote"))
            let a = try Device("a", scratch: scratch, remote: remote, key: key)
            for step in 0..<3 { try a.answer("q\(step)", grade: 3, at: day0.addingTimeInterval(Double(step) * 60)) }
            _ = try await a.sync.sync()
            segment = try #require(try scratch.tree("remote").keys.first { $0.contains("/segments/") })
            bytes = try scratch.bytes("remote/" + segment)
        }

        /// Replaces the segment with `bytes` under `name` (the original removed), syncs a new
        /// device, and returns its report and its event count.
        func serve(_ bytes: [UInt8], as name: String? = nil) async throws -> (SyncReport, Int) {
            try FileManager.default.removeItem(atPath: scratch.url("remote/" + segment))
            try scratch.write("remote/" + (name ?? segment), bytes)
            let b = try Device("b-\(UUID().uuidString)", scratch: scratch, remote: remote, key: key)
            let before = try b.store.eventCount()
            let report = try await b.sync.sync()
            return (report, try b.store.eventCount() - before)
        }
    }

    /// Seals `body` as `name` with `key`, as a (compromised or buggy) device holding the key would.
    static func sealed(_ body: ObjectBody, name: ObjectName, key: LearnerKey) throws -> [UInt8] {
        try SealedObject.seal(body.encoded(), kind: name.kind, name: name.description, key: key)
    }

    @Test(
        "damaged bytes: each refused as notAuthentic",
        arguments: ["flip a ciphertext bit", "flip a tag bit", "cut the last byte", "cut to the header", "append a byte", "empty", "another magic", "kind of a snapshot"])
    func damaged(_ damage: String) async throws {
        let setup = try await Setup()
        var bytes = setup.bytes
        switch damage {
        case "flip a ciphertext bit": bytes[20] ^= 0x01
        case "flip a tag bit": bytes[bytes.count - 1] ^= 0x80
        case "cut the last byte": bytes.removeLast()
        case "cut to the header": bytes = Array(bytes.prefix(17))
        case "append a byte": bytes.append(0)
        case "empty": bytes = []
        case "another magic": bytes[0] = UInt8(ascii: "X")
        default: bytes[4] = ObjectName.Kind.snapshot.rawValue
        }
        let (report, merged) = try await setup.serve(bytes)
        #expect(merged == 0)
        #expect(report.refused.map(\.code) == ["notAuthentic"], "\(damage): \(report.refused)")
    }

    @Test("moved: under another sequence number, another device's folder, another tag: refused")
    func moved() async throws {
        for rename in ["sequence", "device", "tag"] {
            let setup = try await Setup()
            var name = try #require(ObjectName(parsing: setup.segment))
            switch rename {
            case "sequence": name.sequence += 1
            case "device": name.device ^= 1
            default: name.tag = String(repeating: "0", count: 16)
            }
            let (report, merged) = try await setup.serve(setup.bytes, as: name.description)
            #expect(merged == 0)
            #expect(report.refused.map(\.code) == ["notAuthentic"], "\(rename): \(report.refused)")
        }
    }

    @Test("sealed by another learner's key and copied in: refused")
    func foreign() async throws {
        let setup = try await Setup()
        let other = LearnerKey.generate()
        let name = try #require(ObjectName(parsing: setup.segment))
        let body = ObjectBody(learner: setup.key.learner, device: name.device, sequence: name.sequence, sealedAt: 0, covered: [], events: [])
        let content = body.encoded()
        var renamed = name
        renamed.tag = SealedObject.tag(for: content, key: other)
        let bytes = try SealedObject.seal(content, kind: .segment, name: renamed.description, key: other)
        let (report, merged) = try await setup.serve(bytes, as: renamed.description)
        #expect(merged == 0)
        #expect(report.refused.map(\.code) == ["notAuthentic"])
    }

    @Test("authentic but malformed bodies (a key holder's bug): refused as malformedObject, nothing merged", arguments: Array(0..<9))
    func malformedBodies(_ index: Int) async throws {
        let setup = try await Setup()
        let name = try #require(ObjectName(parsing: setup.segment))
        let event = ProgressEvent(
            id: .random(), device: DeviceID(rawValue: name.device), clock: HybridClock(milliseconds: 1_795_338_000_000), wall: 1_795_338_000_000,
            kind: .answer, key: ItemKey(source: "bank/b", item: "q1"), payload: [])
        let good = ObjectBody(learner: setup.key.learner, device: name.device, sequence: name.sequence, sealedAt: 0, covered: [], events: [event])
        var body = good.encoded()
        let raw = Array(body.dropFirst(ByteReaderLength.prefix(body)))
        var plain = ObjectBody.inflate(raw, size: ByteReaderLength.size(body)) ?? []
        func repack(_ plain: [UInt8]) -> [UInt8] {
            var writer = ByteWriter()
            writer.varint(UInt64(plain.count))
            writer.raw(ObjectBody.compress(plain))
            return writer.bytes
        }
        switch index {
        case 0: body = repack(plain + [0])  // a trailing byte
        case 1: body = Array(body.prefix(body.count - 3))  // the zlib stream cut short
        case 2: body = [0xFF, 0xFF, 0xFF, 0xFF, 0x7F] + body.dropFirst(1)  // a declared size far over the cap
        case 3: plain[0] = 9; body = repack(plain)  // an unknown version
        case 4: body = repack(Array(plain.prefix(plain.count - 5)))  // events cut short
        case 5:  // an event count larger than the bytes allow
            body = repack(Array(plain.prefix(plain.count - 1 - (22 + 1 + 1 + 1 + 1 + 1 + 1 + 1))) + [0xFF, 0xFF, 0x03])
        case 6:  // a wall time past 2^48 ms
            let far = ProgressEvent(id: .random(), device: event.device, clock: HybridClock(rawValue: .max - 5), wall: Int64.max, kind: .answer, key: event.key, payload: [])
            body = ObjectBody(learner: good.learner, device: good.device, sequence: good.sequence, sealedAt: 0, covered: [], events: [far]).encoded()
        case 7: body = repack(Array(repeating: 0x80, count: 64))  // an endless varint
        default: body = Array(repeating: 0, count: 2)  // no zlib stream at all
        }
        var renamed = name
        renamed.tag = SealedObject.tag(for: body, key: setup.key)
        let bytes = try SealedObject.seal(body, kind: .segment, name: renamed.description, key: setup.key)
        let (report, merged) = try await setup.serve(bytes, as: renamed.description)
        #expect(merged == 0, "case \(index)")
        #expect(report.refused.map(\.code) == ["malformedObject"], "case \(index): \(report.refused)")
    }

    @Test("an object listed larger than sync reads is refused before it is read; names that are not sync's are left alone")
    func sizesAndNames() async throws {
        let setup = try await Setup()
        try setup.scratch.write("remote/learners/\(setup.key.learnerID)/devices/zz/segments/x", "not ours")
        try setup.scratch.write("remote/learners/\(setup.key.learnerID)/devices/../../escape", "not ours")
        var name = try #require(ObjectName(parsing: setup.segment))
        name.sequence = 7
        let path = setup.scratch.url("remote/" + name.description)
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        FileManager.default.createFile(atPath: path, contents: nil)
        let handle = try #require(FileHandle(forWritingAtPath: path))
        handle.truncateFile(atOffset: UInt64(ProgressSync.maximumSegmentSize + 1))
        handle.closeFile()
        let b = try Device("b", scratch: setup.scratch, remote: setup.remote, key: setup.key)
        let report = try await b.sync.sync()
        #expect(report.refused.map(\.code) == ["tooLarge"])
        #expect(try b.store.reviews(source: "bank/b").count == 3)
    }

    @Test("a wrong learner key: one line, nothing written to the remote or the file")
    func wrongKey() async throws {
        let setup = try await Setup()
        let wrong = LearnerKey(learner: setup.key.learner, secret: Array(repeating: 7, count: 32))
        let b = try Device("b", scratch: setup.scratch, remote: setup.remote, key: wrong)
        try b.answer("q5", grade: 3, at: day0)
        let before = try setup.scratch.tree("remote")
        let unsent = try b.store.unsentEvents(limit: 100).count
        let error = await #expect(throws: SyncError.self) { try await b.sync.sync() }
        #expect(error?.code == .wrongKey)
        #expect(error.map { ErrorReport.line(for: $0).contains("\n") } == false)
        #expect(try setup.scratch.tree("remote") == before)
        #expect(try b.store.unsentEvents(limit: 100).count == unsent)
        #expect(try b.store.syncRemote() == nil)
    }

    @Test("a mistyped printable key is refused by its check; a key round-trips through its printable form")
    func printableKeys() throws {
        let key = LearnerKey.generate()
        #expect(try LearnerKey(printable: key.printable) == key)
        #expect(try LearnerKey(printable: key.printable.lowercased().replacingOccurrences(of: "-", with: " ")) == key)
        var typo = Array(key.printable)
        typo[10] = typo[10] == "A" ? "B" : "A"
        #expect(throws: SyncError.self) { try LearnerKey(printable: String(typo)) }
        #expect(throws: SyncError.self) { try LearnerKey(printable: "SYNC-1234") }
    }
}

/// Reads the size prefix of an encoded body (tests only).
enum ByteReaderLength {
    static func size(_ body: [UInt8]) -> Int {
        var reader = ByteReader(body)
        return Int(reader.varint() ?? 0)
    }

    static func prefix(_ body: [UInt8]) -> Int {
        var reader = ByteReader(body)
        _ = reader.varint()
        return reader.offset
    }
}
