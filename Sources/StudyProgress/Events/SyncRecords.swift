import Foundation
import GRDB

// What sync (StudySync) reads and writes in a progress file: the events to send, the objects of
// the remote it has seen, the derived state it hashes. Package access: apps use StudySync.

/// An object of the remote as this file knows it.
package struct SyncObjectRecord: Sendable, Hashable {
    /// The object's name under the remote's root (`learners/L/devices/D/…`).
    package var name: String
    /// The device that wrote it.
    package var device: DeviceID
    /// 1: a segment, 2: a snapshot.
    package var kind: Int
    /// When its writer sealed it (its wall clock, milliseconds since 1970).
    package var sealedAt: Int64
    /// 0: merged from the remote; 1: written here, not yet known to be uploaded; 2: uploaded;
    /// 3: deleted from the remote by this device (a verified snapshot covers it).
    package var state: Int
    /// Events it carries.
    package var events: Int

    /// A record with every field.
    package init(name: String, device: DeviceID, kind: Int, sealedAt: Int64, state: Int, events: Int) {
        self.name = name
        self.device = device
        self.kind = kind
        self.sealedAt = sealedAt
        self.state = state
        self.events = events
    }
}

extension ProgressStore {
    /// Events this file has that the remote has not been sent (this device's, and those a backup
    /// brought), in the order they arrived here, at most `limit`.
    package func unsentEvents(limit: Int) throws(ProgressError) -> [LoggedEvent] {
        try read { db in
            try Self.loggedEvents(db, "SELECT \(Self.eventColumns) FROM event WHERE sent IS NULL ORDER BY seq LIMIT ?", [limit])
        }
    }

    /// Events sent in the object `name`, in log order (what a retry of that object seals again).
    package func events(sentIn name: String) throws(ProgressError) -> [ProgressEvent] {
        try read { db in
            try Self.loggedEvents(db, "SELECT \(Self.eventColumns) FROM event WHERE sent = ? ORDER BY ord", [name]).map(\.event)
        }
    }

    /// Every event of the log, in log order (a snapshot, a backup).
    package func allEvents() throws(ProgressError) -> [ProgressEvent] {
        try read { db in try Self.loggedEvents(db, "SELECT \(Self.eventColumns) FROM event ORDER BY ord").map(\.event) }
    }

    /// Events in the log.
    public func eventCount() throws(ProgressError) -> Int {
        try read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM event") ?? 0 }
    }

    /// Records that the object `record` will carry the events of rows `seqs` (one transaction, so
    /// a retry after a kill seals the same events again under the same name).
    package func plan(_ record: SyncObjectRecord, carrying seqs: [Int64]) throws(ProgressError) {
        try write { db in
            let mark = try db.cachedStatement(sql: "UPDATE event SET sent = ? WHERE seq = ? AND sent IS NULL")
            for seq in seqs { try mark.execute(arguments: [record.name, seq]) }
            try Self.saveObject(record, db: db)
        }
    }

    /// Adds or updates the record of a remote object.
    package func recordObject(_ record: SyncObjectRecord) throws(ProgressError) {
        try write { db in try Self.saveObject(record, db: db) }
    }

    /// Records that objects were deleted from the remote (state 3): their numbers stay known, so
    /// their absence from a listing is no gap.
    package func markDeleted(_ names: [String]) throws(ProgressError) {
        try write { db in
            for name in names { try db.execute(sql: "UPDATE syncObject SET state = 3 WHERE name = ?", arguments: [name]) }
        }
    }

    static func saveObject(_ record: SyncObjectRecord, db: Database) throws {
        try db.execute(
            sql: "INSERT OR REPLACE INTO syncObject (name, device, kind, sealedAt, state, events) VALUES (?, ?, ?, ?, ?, ?)",
            arguments: [record.name, Int64(bitPattern: record.device.rawValue), record.kind, record.sealedAt, record.state, record.events])
    }

    /// Every remote object this file has written or merged.
    package func syncObjects() throws(ProgressError) -> [SyncObjectRecord] {
        try read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM syncObject ORDER BY name").map { row in
                let device: Int64 = row["device"]
                return SyncObjectRecord(
                    name: row["name"], device: DeviceID(rawValue: UInt64(bitPattern: device)), kind: row["kind"], sealedAt: row["sealedAt"],
                    state: row["state"], events: row["events"])
            }
        }
    }

    /// Merges events from the remote object `record` and records it as merged, in one
    /// transaction: a kill leaves both done or neither.
    /// `covering` lists the segments a snapshot holds, recorded as merged with it.
    package func merge(_ events: [ProgressEvent], from record: SyncObjectRecord, covering: [SyncObjectRecord] = []) throws(ProgressError) -> MergeSummary {
        try write { db in
            let summary = try Self.merge(events, sent: record.name, db: db)
            try Self.saveObject(record, db: db)
            for covered in covering where try Int.fetchOne(db, sql: "SELECT 1 FROM syncObject WHERE name = ?", arguments: [covered.name]) == nil {
                try Self.saveObject(covered, db: db)
            }
            return summary
        }
    }

    /// The remote this file syncs with and when it last finished a sync (milliseconds since
    /// 1970). A file syncs with one remote: naming another forgets what was sent to the first.
    package func syncRemote() throws(ProgressError) -> (remote: String, lastSync: Int64?)? {
        try read { db in
            try Row.fetchOne(db, sql: "SELECT remote, lastSync FROM syncRemote WHERE id = 1").map { ($0["remote"], $0["lastSync"]) }
        }
    }

    /// Makes `remote` this file's remote; if it was another, everything counts as unsent to it.
    package func useRemote(_ remote: String) throws(ProgressError) {
        try write { db in
            let known = try String.fetchOne(db, sql: "SELECT remote FROM syncRemote WHERE id = 1")
            guard known != remote else { return }
            try db.execute(sql: "UPDATE event SET sent = NULL")
            try db.execute(sql: "DELETE FROM syncObject")
            try db.execute(sql: "INSERT OR REPLACE INTO syncRemote (id, remote, lastSync) VALUES (1, ?, NULL)", arguments: [remote])
        }
    }

    /// Records a finished sync at `milliseconds` since 1970.
    package func recordSync(at milliseconds: Int64) throws(ProgressError) {
        try write { db in try db.execute(sql: "UPDATE syncRemote SET lastSync = ? WHERE id = 1", arguments: [milliseconds]) }
    }

    /// The derived state sync compares between devices, as canonical bytes: every item row's
    /// progress (without the orphan flag and place, which follow the content a device has
    /// mounted), the session days, the learner's seed. Two files with the same events give the
    /// same bytes.
    package func derivedState() throws(ProgressError) -> [UInt8] {
        try read { db in
            var writer = ByteWriter()
            let items = try Row.fetchCursor(
                db,
                sql: """
                    SELECT source, item, direction, scheduler, state, due, dueSessionDay, introduced, lastReview, reviews, lapses
                    FROM item ORDER BY source, item, direction
                    """)
            while let row = try items.next() {
                writer.byte(1)
                for column in 0..<5 { writer.string(row[column] as String? ?? "") }
                for column in [5, 7, 8] { writer.fixed64((row[column] as Double?)?.bitPattern ?? 0x7FF8_DEAD_0000_0000) }
                for column in [6, 9, 10] { writer.signed(Int64(row[column] as Int? ?? -1)) }
            }
            for row in try Row.fetchAll(db, sql: "SELECT source, day, completedOn FROM sessionDay ORDER BY source") {
                writer.byte(2)
                writer.string(row[0] as String)
                writer.signed(Int64(row[1] as Int))
                writer.string(row[2] as String? ?? "")
            }
            writer.byte(3)
            writer.fixed64(try Self.learnerSeed(db))
            return writer.bytes
        }
    }

    /// Runs `body` in one write transaction of this file (sync's compound steps).
    package func inTransaction<T>(_ body: (Database) throws -> T) throws(ProgressError) -> T {
        try write(body)
    }
}
