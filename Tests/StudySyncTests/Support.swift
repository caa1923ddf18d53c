import Foundation
import StudyEngine
import StudyProgress
@testable import StudySync
import TestSupport

let day0 = Date(timeIntervalSince1970: 1_795_338_000)  // 2026-11-22 09:00 UTC

/// One of a learner's devices in a test: a progress file and its sync with a shared remote.
struct Device {
    let store: ProgressStore
    let sync: ProgressSync
    let path: String

    init(_ name: String, scratch: Scratch, remote: any SyncRemote, key: LearnerKey, snapshotAfter: Int = 32) throws {
        path = scratch.url(name + ".sqlite")
        store = try ProgressStore(path: path)
        sync = ProgressSync(store: store, remote: remote, key: key, snapshotAfterSegments: snapshotAfter)
    }

    /// Answers `item` of bank `b` with an FSRS grade at `moment` (fuzz on, load balancing on).
    @discardableResult
    func answer(_ item: String, grade: Int, at moment: Date) throws -> ReviewRecord {
        try store.record(
            ItemKey(source: "bank/b", item: item), answer: .grade(grade), at: moment,
            scheduler: .standard(.fsrs6, calendar: .utc, fuzz: true), balance: LoadBalancer(calendar: .utc))
    }

    func hash() throws -> String { try store.stateHash() }

    func eventIDs() throws -> Set<EventID> { Set(try store.allEvents().map(\.id)) }
}

/// A remote that records every request and can fail on purpose.
final class RecordingRemote: SyncRemote, @unchecked Sendable {
    // @unchecked: the counters and switches are behind `lock`.
    let base: any SyncRemote
    private let lock = NSLock()
    private var _requests: [String] = []
    private var _failPutAfterWrite = 0
    private var _hideNewest = false

    init(_ base: any SyncRemote) { self.base = base }

    var identity: String { base.identity }
    var requests: [String] { locked { _requests } }
    /// The next `count` writes reach the store but answer a timeout (a lost response).
    func failPutsAfterWriting(_ count: Int) { locked { _failPutAfterWrite = count } }
    /// Listings leave out the newest segment (an eventually consistent store).
    func hideNewest(_ hide: Bool) { locked { _hideNewest = hide } }

    private func note(_ request: String) { locked { _requests.append(request) } }

    private func locked<T>(_ body: () -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        return body()
    }

    func list(prefix: String) async throws(SyncError) -> [RemoteObject] {
        note("LIST " + prefix)
        var objects = try await base.list(prefix: prefix)
        if locked({ _hideNewest }), let newest = objects.filter({ $0.name.contains("/segments/") }).max(by: { $0.name.suffix(27) < $1.name.suffix(27) }) {
            objects.removeAll { $0 == newest }
        }
        return objects
    }

    func get(_ name: String, limit: Int) async throws(SyncError) -> [UInt8] {
        note("GET " + name)
        return try await base.get(name, limit: limit)
    }

    func put(_ name: String, _ bytes: [UInt8]) async throws(SyncError) {
        note("PUT " + name)
        try await base.put(name, bytes)
        let fail = locked { () -> Bool in
            guard _failPutAfterWrite > 0 else { return false }
            _failPutAfterWrite -= 1
            return true
        }
        if fail { throw SyncError(.timeout, "no answer (the object was written)", at: .file(name)) }
    }

    func delete(_ name: String) async throws(SyncError) {
        note("DELETE " + name)
        try await base.delete(name)
    }
}

/// A fresh device that merges everything on the remote: what replaying the union gives.
func freshReplay(scratch: Scratch, remote: any SyncRemote, key: LearnerKey) async throws -> String {
    let fresh = try Device("fresh-\(UUID().uuidString)", scratch: scratch, remote: remote, key: key)
    _ = try await fresh.sync.sync()
    return try fresh.hash()
}
