import Foundation
import StudyEngine
import StudyProgress
@testable import StudySync
import TestSupport
import Testing

@Suite("Devices converge: the same segments give byte-identical progress, whatever the order")
struct ConvergenceTests {
    @Test("offline reviews on three devices, synced in every order: one state everywhere, equal to replaying the union, no review lost or counted twice")
    func threeDevicesEveryOrder() async throws {
        for order in [[0, 1, 2], [0, 2, 1], [1, 0, 2], [1, 2, 0], [2, 0, 1], [2, 1, 0]] {
            let scratch = try Scratch()
            let remote = FolderRemote(root: scratch.url("remote"))
            let key = LearnerKey.generate()
            let devices = try (0..<3).map { try Device("d\($0)", scratch: scratch, remote: remote, key: key) }
            // Each device studies offline on its own days; items overlap (q1 on all three).
            for (index, device) in devices.enumerated() {
                for step in 0..<6 {
                    let moment = day0.addingTimeInterval(Double(index) * 3_600 + Double(step) * 86_400)
                    try device.answer("q\(1 + (step + index) % 4)", grade: 1 + (step + index) % 4, at: moment)
                }
            }
            for index in order + order { _ = try await devices[index].sync.sync() }
            let hashes = try devices.map { try $0.hash() }
            #expect(Set(hashes).count == 1, "order \(order): \(hashes)")
            #expect(try await freshReplay(scratch: scratch, remote: remote, key: key) == hashes[0], "order \(order)")
            // Every answer once: 3 × 6 answers, 3 seeds.
            for device in devices {
                let answers = try device.store.reviews(source: "bank/b")
                #expect(answers.count == 18, "order \(order)")
                #expect(Set(answers.map(\.at)).count == 18)
            }
        }
    }

    @Test("randomised, quick: events spread over devices, syncs in random orders; devices with the same events have the same hash, equal to a fresh replay")
    func randomPartitions() async throws {
        try await Self.randomised(seed: 2026, rounds: 3, steps: 30, devices: 2...4, snapshotAfter: 3)
    }

    @Test(
        "randomised, many rounds: more devices, more steps, compaction every two segments; the same property",
        .fullTierOnly)
    func randomPartitionsManyRounds() async throws {
        try await Self.randomised(seed: 30, rounds: 40, steps: 60, devices: 2...5, snapshotAfter: 2)
    }

    /// The convergence property over `rounds` learners: `steps` random actions each (answers,
    /// undos, completed session days, syncs) on a random number of devices; after every step,
    /// devices holding the same events hold the same progress; at the end, after two rounds of
    /// syncs, one state everywhere, equal to a fresh device's replay of the remote.
    static func randomised(seed: UInt64, rounds: Int, steps: Int, devices range: ClosedRange<Int>, snapshotAfter: Int) async throws {
        var random = SplitMix64(seed: seed)
        for round in 0..<rounds {
            let scratch = try Scratch()
            let remote = FolderRemote(root: scratch.url("remote"))
            let key = LearnerKey.generate()
            let count = range.lowerBound + Int(random.next() % UInt64(range.count))
            let devices = try (0..<count).map { try Device("d\($0)", scratch: scratch, remote: remote, key: key, snapshotAfter: snapshotAfter) }
            for step in 0..<steps {
                let device = devices[Int(random.next() % UInt64(count))]
                let moment = day0.addingTimeInterval(Double(step) * 7_200 + Double(random.next() % 3_600))
                switch random.next() % 10 {
                case 0: _ = try? device.store.undoLast(source: "bank/b")
                case 1: _ = try await device.sync.sync()
                case 2: try device.store.completeSessionDay(source: "bank/b", on: LearnerCalendar.utc.dateString(moment))
                default: try device.answer("q\(random.next() % 6)", grade: 1 + Int(random.next() % 4), at: moment)
                }
                // Devices holding the same events hold the same progress.
                var byEvents: [Set<EventID>: String] = [:]
                for device in devices {
                    let ids = try device.eventIDs()
                    let hash = try device.hash()
                    if let other = byEvents[ids] { #expect(other == hash, "round \(round), step \(step)") }
                    byEvents[ids] = hash
                }
            }
            for device in devices + devices { _ = try await device.sync.sync() }
            let hashes = try devices.map { try $0.hash() }
            let counts = try devices.map { try $0.eventIDs().count }
            let objects = try scratch.tree("remote").keys.sorted()
            #expect(Set(hashes).count == 1, "round \(round): \(hashes) \(counts) \(objects)")
            #expect(try await freshReplay(scratch: scratch, remote: remote, key: key) == hashes[0], "round \(round)")
        }
    }

    @Test("a device clock a day fast, one a day slow, one jumping back: converged, every answer kept, no interval negative")
    func skewedClocks() async throws {
        let scratch = try Scratch()
        let remote = FolderRemote(root: scratch.url("remote"))
        let key = LearnerKey.generate()
        let fast = try Device("fast", scratch: scratch, remote: remote, key: key)
        let slow = try Device("slow", scratch: scratch, remote: remote, key: key)
        let jumpy = try Device("jumpy", scratch: scratch, remote: remote, key: key)
        for step in 0..<5 {
            let now = day0.addingTimeInterval(Double(step) * 86_400)
            try fast.answer("q1", grade: 3, at: now.addingTimeInterval(86_400))
            _ = try await fast.sync.sync()
            try slow.answer("q1", grade: 2, at: now.addingTimeInterval(-86_400))
            _ = try await slow.sync.sync()
            // Forward, then back an hour, then forward again.
            try jumpy.answer("q1", grade: 4, at: now.addingTimeInterval(step % 2 == 0 ? 0 : -3_600))
            _ = try await jumpy.sync.sync()
        }
        for device in [fast, slow, jumpy, fast, slow] { _ = try await device.sync.sync() }
        let hashes = try [fast, slow, jumpy].map { try $0.hash() }
        #expect(Set(hashes).count == 1)
        let log = try jumpy.store.reviews(source: "bank/b")
        #expect(log.count == 15)
        for record in log {
            guard case .date(let due) = record.after.due else { continue }
            #expect(due >= record.at, "\(record)")
        }
        // The slow device's clock follows what it saw: its later events order after the fast one's.
        let events = try slow.store.allEvents()
        #expect(events.map(\.clock) == events.map(\.clock).sorted())
    }

    @Test("a write that reached the store but timed out is written again, the same bytes under the same name; nothing counted twice")
    func duplicateUploadAfterTimeout() async throws {
        let scratch = try Scratch()
        let folder = FolderRemote(root: scratch.url("remote"))
        let remote = RecordingRemote(folder)
        let key = LearnerKey.generate()
        let device = try Device("a", scratch: scratch, remote: remote, key: key)
        try device.answer("q0", grade: 3, at: day0)
        _ = try await device.sync.sync()
        for step in 1..<3 { try device.answer("q\(step)", grade: 3, at: day0.addingTimeInterval(Double(step) * 60)) }
        remote.failPutsAfterWriting(1)
        await #expect(throws: SyncError.self) { try await device.sync.sync() }
        let first = try scratch.tree("remote")
        try device.answer("q9", grade: 3, at: day0.addingTimeInterval(600))
        _ = try await device.sync.sync()
        let after = try scratch.tree("remote")
        // The planned segment is the same file, byte for byte; the new answer went into a second one.
        for (name, bytes) in first where name.contains("/segments/") { #expect(after[name] == bytes) }
        #expect(after.keys.filter { $0.contains("/segments/") }.count == 3)
        let other = try Device("b", scratch: scratch, remote: folder, key: key)
        _ = try await other.sync.sync()
        #expect(try other.store.reviews(source: "bank/b").count == 4)
        #expect(try other.hash() == device.hash())
    }

    @Test("a listing without the newest segment (eventual consistency): merged at the next sync")
    func eventuallyConsistentListing() async throws {
        let scratch = try Scratch()
        let folder = FolderRemote(root: scratch.url("remote"))
        let key = LearnerKey.generate()
        let a = try Device("a", scratch: scratch, remote: folder, key: key)
        let lagging = RecordingRemote(folder)
        let b = try Device("b", scratch: scratch, remote: lagging, key: key)
        try a.answer("q1", grade: 3, at: day0)
        _ = try await a.sync.sync()
        try a.answer("q2", grade: 3, at: day0.addingTimeInterval(60))
        _ = try await a.sync.sync()
        lagging.hideNewest(true)
        _ = try await b.sync.sync()
        #expect(try b.store.reviews(source: "bank/b").count == 1)
        lagging.hideNewest(false)
        _ = try await b.sync.sync()
        #expect(try b.store.reviews(source: "bank/b").count == 2)
        #expect(try b.hash() == a.hash())
    }

    @Test("a sync with nothing new is one request; compaction writes a snapshot, reads it back, and only then deletes what it covers; a new device starts from it")
    func requestsAndSnapshots() async throws {
        let scratch = try Scratch()
        let folder = FolderRemote(root: scratch.url("remote"))
        let remote = RecordingRemote(folder)
        let key = LearnerKey.generate()
        let a = try Device("a", scratch: scratch, remote: remote, key: key, snapshotAfter: 4)
        for step in 0..<6 {
            try a.answer("q\(step % 3)", grade: 3, at: day0.addingTimeInterval(Double(step) * 86_400))
            _ = try await a.sync.sync()
        }
        let idle = try await a.sync.sync()
        #expect(idle.requests <= 2 && idle.eventsSent == 0 && idle.eventsReceived == 0, "\(idle)")
        let tree = try scratch.tree("remote").keys
        #expect(tree.contains { $0.contains("/snapshots/") })
        #expect(tree.filter { $0.contains("/segments/") }.count < 6)
        let fresh = try Device("fresh", scratch: scratch, remote: folder, key: key)
        let report = try await fresh.sync.sync()
        #expect(report.objectsMerged <= 3, "\(report)")
        #expect(try fresh.hash() == a.hash())
        #expect(fresh.store.learnerSeed == a.store.learnerSeed)
    }

    @Test("events of a kind this version does not know are kept, sent on and skipped in replay")
    func unknownKindsTravel() async throws {
        let scratch = try Scratch()
        let remote = FolderRemote(root: scratch.url("remote"))
        let key = LearnerKey.generate()
        let a = try Device("a", scratch: scratch, remote: remote, key: key)
        let b = try Device("b", scratch: scratch, remote: remote, key: key)
        let future = ProgressEvent(
            id: .random(), device: DeviceID(rawValue: 42), clock: HybridClock(milliseconds: 1_795_338_000_000), wall: 1_795_338_000_000,
            kind: .init(rawValue: 200), key: ItemKey(source: "bank/b", item: "q1"), payload: [1, 2, 3])
        let before = try a.hash()
        _ = try a.store.merge([future], sent: false)
        #expect(try a.hash() == before)
        _ = try await a.sync.sync()
        _ = try await b.sync.sync()
        #expect(try b.store.allEvents().contains(future))
        #expect(try b.hash() == a.hash())
    }

    @Test("backup and restore: the same union; restoring twice changes nothing")
    func backupRestore() async throws {
        let scratch = try Scratch()
        let key = LearnerKey.generate()
        let remote = FolderRemote(root: scratch.url("unused"))
        let a = try Device("a", scratch: scratch, remote: remote, key: key)
        let b = try Device("b", scratch: scratch, remote: remote, key: key)
        try a.answer("q1", grade: 3, at: day0)
        try b.answer("q2", grade: 1, at: day0.addingTimeInterval(60))
        try await ProgressBackup.write(a.store, key: key, to: scratch.url("a.backup"))
        #expect(try await ProgressBackup.restore(b.store, key: key, from: scratch.url("a.backup")) == 2)
        #expect(try await ProgressBackup.restore(b.store, key: key, from: scratch.url("a.backup")) == 0)
        try await ProgressBackup.write(b.store, key: key, to: scratch.url("b.backup"))
        try await ProgressBackup.restore(a.store, key: key, from: scratch.url("b.backup"))
        #expect(try a.hash() == b.hash())
        await #expect(throws: SyncError.self) { try await ProgressBackup.restore(a.store, key: LearnerKey.generate(), from: scratch.url("b.backup")) }
    }
}
