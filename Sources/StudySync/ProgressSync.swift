import Foundation
import StudyProgress

/// What one sync did.
public struct SyncReport: Sendable, Hashable, Codable {
    /// Events this device sent (in new segments).
    public var eventsSent = 0
    /// Events new to this device, merged from the remote.
    public var eventsReceived = 0
    /// Bytes written to the remote.
    public var bytesSent = 0
    /// Bytes read from the remote.
    public var bytesReceived = 0
    /// Requests to the remote (a list, a read, a write, a delete each count one).
    public var requests = 0
    /// Objects read and merged.
    public var objectsMerged = 0
    /// Objects written.
    public var objectsWritten = 0
    /// Objects of this device deleted because a verified snapshot covers them.
    public var objectsDeleted = 0
    /// Objects refused, with why: nothing of them was merged; the next sync tries them again.
    public var refused: [Refusal] = []
    /// Other devices' objects the store does not have and no snapshot covers, as
    /// `DEVICE: COUNT of FIRST…LAST` (the store lost or withholds them; merged if they come back).
    public var missing: [String] = []
    /// Seconds the sync took.
    public var seconds = 0.0

    /// An object sync refused.
    public struct Refusal: Sendable, Hashable, Codable {
        /// The object's name.
        public var object: String
        /// The refusal's code (``SyncError/Code``'s raw value).
        public var code: String
        /// The refusal as one line.
        public var message: String
    }

    /// A report of nothing yet.
    public init() {}
}

/// A step of a sync, for a progress display.
public enum SyncProgress: Sendable, Hashable {
    /// The remote listed `objects` objects of this learner.
    case listed(objects: Int)
    /// Objects were read and merged (in one transaction): their names and the events new here.
    case merged(objects: [String], newEvents: Int)
    /// An object was refused.
    case refused(object: String, code: String)
    /// An object was written: its name and the events it carries.
    case written(object: String, events: Int)
    /// The sync finished.
    case finished(SyncReport)
}

/// Syncs one progress file with a remote that a learner's devices share, end-to-end encrypted
/// with the learner's key.
///
/// Each device writes its new events to the remote as segments, written once under new names,
/// and merges what the other devices wrote: a union of events by id, then a deterministic replay
/// of what changed. Devices that have merged the same segments have byte-identical progress,
/// whatever the order of syncs. A session keeps answering while a sync runs: the network is
/// never used inside a database transaction, and each merge is one short transaction.
///
/// ```swift
/// let sync = ProgressSync(store: progress, remote: FolderRemote(root: folder), key: key)
/// let report = try await sync.sync()
/// ```
public actor ProgressSync {
    /// The progress file.
    public nonisolated let store: ProgressStore
    /// The remote.
    public nonisolated let remote: any SyncRemote
    /// The learner's key.
    public nonisolated let key: LearnerKey
    /// Every step of every sync of this value, as it happens.
    public nonisolated let progress: AsyncStream<SyncProgress>
    private let continuation: AsyncStream<SyncProgress>.Continuation
    /// Events per segment at most.
    public nonisolated let segmentEvents: Int
    /// After this many of its own segments on the remote, a device writes a snapshot and deletes them.
    public nonisolated let snapshotAfterSegments: Int

    /// The largest segment sync reads (bytes).
    public static let maximumSegmentSize = 16 << 20
    /// The largest snapshot sync reads (bytes): held in memory before it is authenticated, so
    /// bounded (about two million events).
    public static let maximumSnapshotSize = 64 << 20

    /// Syncs `store` with `remote` under `key`.
    public init(store: ProgressStore, remote: any SyncRemote, key: LearnerKey, segmentEvents: Int = 50_000, snapshotAfterSegments: Int = 32) {
        self.store = store
        self.remote = remote
        self.key = key
        self.segmentEvents = max(1, segmentEvents)
        self.snapshotAfterSegments = max(2, snapshotAfterSegments)
        (progress, continuation) = AsyncStream.makeStream(of: SyncProgress.self, bufferingPolicy: .bufferingNewest(256))
    }

    /// Sends this file's new events, merges the other devices', and compacts this device's own
    /// segments into a snapshot when there are many.
    ///
    /// Throws ``SyncError``: ``SyncError/Code/wrongKey`` before anything is written when the key
    /// does not open the learner's objects; a store or network failure (what was merged stays
    /// merged; the next sync goes on from there). Objects that fail authentication are not
    /// thrown: they are refused, listed in the report, and never merged.
    public func sync() async throws(SyncError) -> SyncReport {
        var run = Run(sync: self)
        let started = Date()
        try await run.go()
        run.report.seconds = Date().timeIntervalSince(started)
        continuation.yield(.finished(run.report))
        return run.report
    }

    fileprivate func emit(_ step: SyncProgress) { continuation.yield(step) }

    /// The name this file keeps the remote under: the remote and the learner.
    nonisolated var remoteIdentity: String { remote.identity + " learner " + key.learnerID }
}

/// One sync's state.
private struct Run {
    let sync: ProgressSync
    var report = SyncReport()
    var store: ProgressStore { sync.store }
    var key: LearnerKey { sync.key }
    var device: UInt64 { sync.store.device.rawValue }

    init(sync: ProgressSync) { self.sync = sync }

    mutating func go() async throws(SyncError) {
        let identity = sync.remoteIdentity
        let known = try progress { try store.syncRemote() }
        let verified = known?.remote == identity + " key " + key.fingerprint
        if let known, !verified, known.remote.hasPrefix(sync.remote.identity + " learner ") {
            throw SyncError(.wrongKey, "this progress file syncs there with another learner key", at: .file(sync.remote.identity))
        }
        let listed = try await list()
        if !verified { try await checkKey(listed) }
        try progress { try store.useRemote(identity + " key " + key.fingerprint) }
        try await merge(listed)
        let ownMissing = try checkMissing(listed)
        try await upload(listed)
        try await compact(force: ownMissing)
        try progress { try store.recordSync(at: Int64(Date().timeIntervalSince1970 * 1000)) }
    }

    // MARK: Listing

    struct Listed {
        var objects: [ObjectName: Int] = [:]
        var keyCheck: Int?
    }

    mutating func list() async throws(SyncError) -> Listed {
        let folder = ObjectName.learnerFolder(key.learner)
        report.requests += 1
        var listed = Listed()
        for object in try await sync.remote.list(prefix: folder) {
            guard let name = ObjectName(parsing: object.name), name.learner == key.learner, name.description == object.name else { continue }
            if name.kind == .keyCheck { listed.keyCheck = object.size } else { listed.objects[name] = object.size }
        }
        await sync.emit(.listed(objects: listed.objects.count))
        return listed
    }

    // MARK: The key

    /// Opens the key-check object (or, without one, the smallest object) with the key: a key that
    /// does not open it is the wrong key, and nothing is written.
    mutating func checkKey(_ listed: Listed) async throws(SyncError) {
        let name: String
        let kind: ObjectName.Kind
        let size: Int
        if let check = listed.keyCheck {
            name = ObjectName(kind: .keyCheck, learner: key.learner, device: 0, sequence: 0, tag: "").description
            kind = .keyCheck
            size = check
        } else if let smallest = listed.objects.min(by: { $0.value < $1.value }) {
            name = smallest.key.description
            kind = smallest.key.kind
            size = smallest.value
        } else {
            // A learner's first device: the check object is written with the first segment.
            return
        }
        let bytes = try await get(name, size: size, limit: ProgressSync.maximumSnapshotSize)
        do {
            _ = try SealedObject.open(bytes, kind: kind, name: name, key: key)
        } catch {
            throw SyncError(
                .wrongKey, "the learner key does not open this learner's objects (another key, or the object was changed); nothing was written", at: .file(name))
        }
    }

    // MARK: Merging

    mutating func merge(_ listed: Listed) async throws(SyncError) {
        let records = try progress { try store.syncObjects() }
        var known = Set(records.map(\.name))
        // Segments deleted since this file last looked (a gap in a device's numbers) are in a
        // snapshot: then the newest snapshot of each device is merged first.
        var numbers: [UInt64: Set<Int>] = [:]
        // Segments and snapshots share a device's numbers; deleted objects stay in the records.
        for record in records {
            if let name = ObjectName(parsing: record.name) { numbers[name.device, default: []].insert(name.sequence) }
        }
        for name in listed.objects.keys { numbers[name.device, default: []].insert(name.sequence) }
        let gap = numbers.values.contains { seen in (1...(seen.max() ?? 1)).contains { !seen.contains($0) } }
        let snapshots = listed.objects.keys.filter { $0.kind == .snapshot && !known.contains($0.description) }
        var newest: [UInt64: ObjectName] = [:]
        for name in snapshots where newest[name.device].map({ $0.sequence < name.sequence }) ?? true { newest[name.device] = name }
        let nothingMerged = !records.contains { $0.state == 0 }
        var batch = Batch()
        if gap || (nothingMerged && !newest.isEmpty) {
            for name in newest.values.sorted() {
                try await fetch(name, size: listed.objects[name] ?? 0, into: &batch, known: &known)
            }
        }
        // This device's own snapshots it has no record of (an older copy of its file, or names
        // planted in the store) are read, never taken on trust: their numbers decide its next one.
        let tried = Set(report.refused.map(\.object))
        for name in snapshots.sorted() where name.device == device && !known.contains(name.description) && !tried.contains(name.description) {
            try await fetch(name, size: listed.objects[name] ?? 0, into: &batch, known: &known)
        }
        for name in listed.objects.keys.sorted() where name.kind == .segment && !known.contains(name.description) {
            try await fetch(name, size: listed.objects[name] ?? 0, into: &batch, known: &known)
        }
        // Snapshots not needed: known from now on, never read. One that was read and refused is
        // not one of them: the next sync reads it again (it may hold events nothing else has).
        let refused = Set(report.refused.map(\.object))
        for name in snapshots where !known.contains(name.description) && !refused.contains(name.description) {
            batch.objects.append(
                ProgressStore.OpenedObject(
                    events: [], record: SyncObjectRecord(name: name.description, device: DeviceID(rawValue: name.device), kind: 2, sealedAt: 0, state: 0, events: 0)))
        }
        try await flush(&batch)
    }

    /// Reports the objects of other devices that neither the listing nor this file's records know
    /// (a device's numbers have a hole no snapshot covers: the store lost or withheld them; they
    /// are not merged until they come back), and says whether segments or snapshots this device
    /// uploaded more than an hour ago (a listing lags by seconds) are gone: then it writes a
    /// snapshot at once, so their events reach every device again.
    mutating func checkMissing(_ listed: Listed) throws(SyncError) -> Bool {
        let records = try progress { try store.syncObjects() }
        var numbers: [UInt64: Set<Int>] = [:]
        for record in records {
            if let name = ObjectName(parsing: record.name) { numbers[name.device, default: []].insert(name.sequence) }
        }
        for name in listed.objects.keys { numbers[name.device, default: []].insert(name.sequence) }
        for (other, seen) in numbers.sorted(by: { $0.key < $1.key }) where other != device {
            // Counted from the numbers seen, never number by number: a name anyone can put in the
            // store may carry any sequence up to 9,999,999,999.
            let top = max(1, seen.max() ?? 1)
            let holes = top - seen.count(where: { $0 >= 1 })
            guard holes > 0 else { continue }
            var first = 1
            while seen.contains(first) { first += 1 }
            var last = top
            while seen.contains(last) { last -= 1 }
            report.missing.append("\(DeviceID(rawValue: other)): \(holes) of \(first)…\(last)")
        }
        let listedNames = Set(listed.objects.keys.map(\.description))
        let hourAgo = Int64(Date().timeIntervalSince1970 * 1000) - 3_600_000
        return records.contains { record in
            // A segment or a snapshot: once a snapshot is verified its segments are deleted, so one
            // the store lost later takes their events with it unless it is written again.
            record.device == store.device && (record.kind == 1 || record.kind == 2) && record.state == 2 && record.sealedAt < hourAgo
                && !listedNames.contains(record.name)
        }
    }

    /// Objects read and opened, merged together in one transaction (an item they all touch is
    /// replayed once, and the file is flushed once).
    struct Batch {
        var objects: [ProgressStore.OpenedObject] = []
        /// The objects read (the rest are records only: snapshots not needed).
        var read: [String] = []
        var events = 0
    }

    /// The most events held in memory before they are merged (about 40 MB).
    static let batchEvents = 200_000

    /// Reads and opens one object into `batch` (merging the batch when it is full); a refusal is
    /// reported and the sync goes on.
    mutating func fetch(_ name: ObjectName, size: Int, into batch: inout Batch, known: inout Set<String>) async throws(SyncError) {
        let text = name.description
        let limit = name.kind == .snapshot ? ProgressSync.maximumSnapshotSize : ProgressSync.maximumSegmentSize
        do throws(SyncError) {
            guard size <= limit else { throw SyncError(.tooLarge, "listed at \(size) bytes, more than the \(limit) sync reads", at: .file(text)) }
            let bytes = try await get(text, size: size, limit: limit)
            let body = try Self.open(bytes, name: name, key: key)
            // A snapshot vouches only for its own device's objects: one that claims another device's
            // segments (a key holder's bug) must not make this device skip them.
            let covering = body.covered.compactMap { covered -> SyncObjectRecord? in
                guard let object = ObjectName(parsing: covered), object.learner == key.learner, object.device == name.device,
                    object.sequence < name.sequence, object.kind == .segment || object.kind == .snapshot
                else { return nil }
                return SyncObjectRecord(
                    name: covered, device: DeviceID(rawValue: object.device), kind: Int(object.kind.rawValue), sealedAt: 0, state: 0, events: 0)
            }
            let record = SyncObjectRecord(
                name: text, device: DeviceID(rawValue: name.device), kind: Int(name.kind.rawValue), sealedAt: body.sealedAt, state: 0, events: body.events.count)
            known.insert(text)
            for covered in covering { known.insert(covered.name) }
            batch.objects.append(ProgressStore.OpenedObject(events: body.events, record: record, covering: covering))
            batch.read.append(text)
            batch.events += body.events.count
        } catch where [.notAuthentic, .malformedObject, .tooLarge].contains(error.code) {
            report.refused.append(SyncReport.Refusal(object: text, code: error.code.rawValue, message: error.description))
            await sync.emit(.refused(object: text, code: error.code.rawValue))
        } catch where error.code == .notFound {
            // Deleted since it was listed (its writer compacted): the next listing says what is there.
        }
        if batch.events >= Self.batchEvents { try await flush(&batch) }
    }

    /// Merges what `batch` holds, in one transaction, and empties it.
    mutating func flush(_ batch: inout Batch) async throws(SyncError) {
        guard !batch.objects.isEmpty else { return }
        let objects = batch.objects
        let merged = batch.read
        batch = Batch()
        let summary = try progress { try store.merge(objects) }
        report.objectsMerged += merged.count
        report.eventsReceived += summary.added
        if !merged.isEmpty { await sync.emit(.merged(objects: merged, newEvents: summary.added)) }
    }

    /// Opens an object and checks that what is inside agrees with its name.
    static func open(_ bytes: [UInt8], name: ObjectName, key: LearnerKey) throws(SyncError) -> ObjectBody {
        let text = name.description
        let content = try SealedObject.open(bytes, kind: name.kind, name: text, key: key)
        guard SealedObject.tag(for: content, key: key) == name.tag else {
            throw SyncError(.notAuthentic, "the content is not the one its name was made for", at: .file(text))
        }
        let body: ObjectBody
        switch ObjectBody.decode(content) {
        case .success(let decoded): body = decoded
        case .failure(let malformed): throw SyncError(.malformedObject, malformed.reason, at: .file(text))
        }
        guard body.learner == key.learner, body.device == name.device, body.sequence == name.sequence else {
            throw SyncError(.notAuthentic, "sealed for another learner, device or sequence number than its name says", at: .file(text))
        }
        return body
    }

    // MARK: Uploading

    mutating func upload(_ listed: Listed) async throws(SyncError) {
        let records = try progress { try store.syncObjects() }
        var next = 1
        for record in records {
            if let name = ObjectName(parsing: record.name), name.device == device { next = max(next, name.sequence + 1) }
        }
        // A listed name of this device counts unless it was refused: anyone who can write to the
        // store can plant one with any number, and next must stay within what a name holds.
        let refused = Set(report.refused.map(\.object))
        for name in listed.objects.keys where name.device == device && !refused.contains(name.description) {
            next = max(next, name.sequence + 1)
        }
        var wroteCheck = listed.keyCheck != nil
        // Objects planned before a kill or a failure: their content sealed again, the same bytes
        // under the same name.
        for record in records where record.state == 1 {
            guard let name = ObjectName(parsing: record.name), let content = try progress({ try store.plannedContent(record.name) }) else { continue }
            try await writeCheck(&wroteCheck)
            try await write(name, content: content, events: record.events, record: record)
        }
        while true {
            let unsent = try progress { try store.unsentEvents(limit: sync.segmentEvents) }
            if unsent.isEmpty { break }
            try Self.checkCancellation()
            try Self.checkSequence(next)
            let events = unsent.map(\.event).sorted { $0.precedes($1) }
            let sealedAt = Int64(Date().timeIntervalSince1970 * 1000)
            let body = ObjectBody(learner: key.learner, device: device, sequence: next, sealedAt: sealedAt, covered: [], events: events)
            let content = body.encoded()
            let name = ObjectName(kind: .segment, learner: key.learner, device: device, sequence: next, tag: SealedObject.tag(for: content, key: key))
            let record = SyncObjectRecord(
                name: name.description, device: store.device, kind: 1, sealedAt: sealedAt, state: 1, events: events.count)
            try progress { try store.plan(record, carrying: unsent.map(\.seq), content: content) }
            try await writeCheck(&wroteCheck)
            try await write(name, content: content, events: events.count, record: record)
            next += 1
        }
    }

    /// Writes the key-check object if the learner's folder has none yet.
    mutating func writeCheck(_ written: inout Bool) async throws(SyncError) {
        guard !written else { return }
        let name = ObjectName(kind: .keyCheck, learner: key.learner, device: 0, sequence: 0, tag: "").description
        let content = ObjectBody(learner: key.learner, device: device, sequence: 0, sealedAt: 0, covered: [], events: []).encoded()
        let sealed = try SealedObject.seal(content, kind: .keyCheck, name: name, key: key)
        report.requests += 1
        try await sync.remote.put(name, sealed)
        report.bytesSent += sealed.count
        written = true
    }

    mutating func write(_ name: ObjectName, content: [UInt8], events: Int, record: SyncObjectRecord) async throws(SyncError) {
        let sealed = try SealedObject.seal(content, kind: name.kind, name: name.description, key: key)
        report.requests += 1
        try await sync.remote.put(name.description, sealed)
        var uploaded = record
        uploaded.state = 2
        try progress { try store.recordObject(uploaded) }
        report.objectsWritten += 1
        report.bytesSent += sealed.count
        report.eventsSent += events
        await sync.emit(.written(object: name.description, events: events))
    }

    // MARK: Compacting

    /// With many segments of its own on the remote (or, `force`d, when the store lost some of
    /// them), a device writes a snapshot of the whole log, reads it back and opens it, and only
    /// then deletes its own segments and older snapshots the snapshot covers. Other devices'
    /// objects are theirs to delete.
    mutating func compact(force: Bool = false) async throws(SyncError) {
        let records = try progress { try store.syncObjects() }
        let own = records.filter { $0.state != 3 }.compactMap { ObjectName(parsing: $0.name) }.filter { $0.device == device }
        let segments = own.filter { $0.kind == .segment }
        guard force || segments.count >= sync.snapshotAfterSegments, !records.contains(where: { $0.state == 1 }) else { return }
        try Self.checkCancellation()
        let events = try progress { try store.allEvents() }
        // Every segment it holds, and this device's own earlier snapshots (so a reader knows their
        // numbers are accounted for; it trusts a snapshot only for its own device's objects).
        let covered = records.filter { $0.kind == 1 || ($0.kind == 2 && $0.device == store.device) }.map(\.name).sorted()
        let sequence = (own.map(\.sequence).max() ?? 0) + 1
        try Self.checkSequence(sequence)
        let body = ObjectBody(
            learner: key.learner, device: device, sequence: sequence, sealedAt: Int64(Date().timeIntervalSince1970 * 1000), covered: covered, events: events)
        let content = body.encoded()
        let name = ObjectName(kind: .snapshot, learner: key.learner, device: device, sequence: sequence, tag: SealedObject.tag(for: content, key: key))
        let sealed = try SealedObject.seal(content, kind: .snapshot, name: name.description, key: key)
        guard sealed.count <= ProgressSync.maximumSnapshotSize else { return }
        report.requests += 1
        try await sync.remote.put(name.description, sealed)
        report.bytesSent += sealed.count
        report.objectsWritten += 1
        try progress {
            try store.recordObject(SyncObjectRecord(name: name.description, device: store.device, kind: 2, sealedAt: body.sealedAt, state: 2, events: events.count))
        }
        await sync.emit(.written(object: name.description, events: events.count))
        // Verified: read back as any device would, and opened.
        let back = try await get(name.description, size: sealed.count, limit: ProgressSync.maximumSnapshotSize)
        guard back == sealed, (try? Self.open(back, name: name, key: key))?.events.count == events.count else { return }
        var deleted: [String] = []
        for old in own where (old.kind == .segment && covered.contains(old.description)) || (old.kind == .snapshot && old.sequence < sequence) {
            report.requests += 1
            try await sync.remote.delete(old.description)
            deleted.append(old.description)
        }
        try progress { try store.markDeleted(deleted) }
        report.objectsDeleted += deleted.count
    }

    // MARK: Helpers

    mutating func get(_ name: String, size: Int, limit: Int) async throws(SyncError) -> [UInt8] {
        try Self.checkCancellation()
        report.requests += 1
        let bytes = try await sync.remote.get(name, limit: min(limit, max(size, 0)))
        report.bytesReceived += bytes.count
        return bytes
    }

    /// Refuses to name an object past ``ObjectName/maximumSequence``: such a name would not
    /// parse, and no device (this one included) would ever read what went there.
    static func checkSequence(_ sequence: Int) throws(SyncError) {
        guard sequence <= ObjectName.maximumSequence else {
            throw SyncError(.tooLarge, "this device's objects are numbered up to \(ObjectName.maximumSequence); nothing more is written")
        }
    }

    static func checkCancellation() throws(SyncError) {
        if Task.isCancelled { throw SyncError(.cancelled, "the sync was cancelled") }
    }

    func progress<T>(_ body: () throws -> T) throws(SyncError) -> T {
        do {
            return try body()
        } catch let error as ProgressError {
            throw SyncError(error)
        } catch let error as SyncError {
            throw error
        } catch {
            throw SyncError(.progress, "\(error)")
        }
    }
}
