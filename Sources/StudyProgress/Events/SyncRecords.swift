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
            try Self.joinedEvents(db, from: "event e INDEXED BY event_unsent", "WHERE e.sent IS NULL ORDER BY e.seq LIMIT \(max(0, limit))")
        }
    }

    /// Every event of the log, in log order (a snapshot, a backup).
    package func allEvents() throws(ProgressError) -> [ProgressEvent] {
        try read { db in try Self.joinedEvents(db, from: "event e", "").map(\.event).sorted { $0.precedes($1) } }
    }

    /// Events read with their keys: `SELECT … FROM` `table` `JOIN eventKey k …` `tail` (`e`
    /// names the event table). Cancellation is not marked (that takes a key's whole log).
    static func joinedEvents(_ db: Database, from table: String, _ tail: String) throws -> [LoggedEvent] {
        let select = try RawStatement(
            db,
            """
            SELECT e.clock, e.device, e.id, e.seq, e.wall, e.kind, e.payload, k.source, k.item, k.direction
            FROM \(table) JOIN eventKey k ON k.key = e.key \(tail)
            """)
        var result: [LoggedEvent] = []
        var keys: [String: ItemKey] = [:]
        while try select.step() {
            guard let id = EventID(bytes: select.bytes(2)) else {
                select.reset()
                throw ProgressError(.damagedDatabase, "an event id is not 16 bytes")
            }
            let source = select.text(7)
            let item = select.text(8)
            let direction = select.text(9)
            let name = source + "\u{0}" + item + "\u{0}" + direction
            let key = keys[name] ?? ItemKey(source: source, item: item, direction: direction)
            keys[name] = key
            let event = ProgressEvent(
                id: id, device: DeviceID(rawValue: LogTransaction.unsigned(select.int64(1))),
                clock: HybridClock(rawValue: LogTransaction.unsigned(select.int64(0))), wall: select.int64(4),
                kind: ProgressEvent.Kind(rawValue: UInt8(truncatingIfNeeded: select.int64(5))), key: key, payload: select.bytes(6))
            result.append(LoggedEvent(event: event, seq: select.int64(3), cancelled: false))
        }
        select.reset()
        return result
    }

    /// Events in the log.
    public func eventCount() throws(ProgressError) -> Int {
        try read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM event") ?? 0 }
    }

    /// Records that the object `record` carries the events that arrived as `seqs`, with its
    /// content, in one transaction: after a kill or a failed upload the retry seals the very same
    /// content again under the same name.
    package func plan(_ record: SyncObjectRecord, carrying seqs: [Int64], content: [UInt8]) throws(ProgressError) {
        try write { db in
            let mark = try RawStatement(db, "UPDATE event SET sent = 1 WHERE sent IS NULL AND seq = ?")
            for seq in seqs {
                mark.bind(1, seq)
                try mark.run()
            }
            try Self.saveObject(record, content: content, db: db)
        }
    }

    /// The content of an object planned but not known to be uploaded (``plan(_:carrying:content:)``).
    package func plannedContent(_ name: String) throws(ProgressError) -> [UInt8]? {
        try read { db in try Data.fetchOne(db, sql: "SELECT content FROM syncObject WHERE name = ?", arguments: [name]).map(Array.init) }
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

    /// Writes an object's record; `content` only while it is planned (state 1).
    static func saveObject(_ record: SyncObjectRecord, content: [UInt8]? = nil, db: Database) throws {
        try db.execute(
            sql: "INSERT OR REPLACE INTO syncObject (name, device, kind, sealedAt, state, events, content) VALUES (?, ?, ?, ?, ?, ?, ?)",
            arguments: [
                record.name, Int64(bitPattern: record.device.rawValue), record.kind, record.sealedAt, record.state, record.events,
                content.map { Data($0) },
            ])
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

    /// An object of the remote, read and opened, to merge: its events, its record, and for a
    /// snapshot the segments it covers (recorded as merged with it).
    package struct OpenedObject: Sendable {
        /// The events it carries.
        package var events: [ProgressEvent]
        /// Its record (state 0: merged).
        package var record: SyncObjectRecord
        /// The segments a snapshot covers.
        package var covering: [SyncObjectRecord]

        /// An opened object with every field.
        package init(events: [ProgressEvent], record: SyncObjectRecord, covering: [SyncObjectRecord] = []) {
            self.events = events
            self.record = record
            self.covering = covering
        }
    }

    /// Merges the events of `objects` and records them as merged, in one transaction: a kill
    /// leaves all of it done or none, and an item several of them touch is replayed once.
    package func merge(_ objects: [OpenedObject]) throws(ProgressError) -> MergeSummary {
        try write { db in
            let summary = try Self.merge(objects.flatMap(\.events), sent: true, db: db)
            for object in objects {
                try Self.saveObject(object.record, db: db)
                for covered in object.covering where try Int.fetchOne(db, sql: "SELECT 1 FROM syncObject WHERE name = ?", arguments: [covered.name]) == nil {
                    try Self.saveObject(covered, db: db)
                }
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
        // Mostly it is the same remote: a read, and no write transaction.
        guard try read({ db in try String.fetchOne(db, sql: "SELECT remote FROM syncRemote WHERE id = 1") }) != remote else { return }
        try write { db in
            let known = try String.fetchOne(db, sql: "SELECT remote FROM syncRemote WHERE id = 1")
            guard known != remote else { return }
            try db.execute(sql: "UPDATE event SET sent = NULL")
            try db.execute(sql: "DELETE FROM syncObject")
            try db.execute(sql: "INSERT OR REPLACE INTO syncRemote (id, remote, lastSync) VALUES (1, ?, NULL)", arguments: [remote])
        }
    }

    /// Records a finished sync at `milliseconds` since 1970. The one write of a progress file
    /// that is not flushed at once (`synchronous = NORMAL` for it): it is on disk with the next
    /// write or checkpoint, and a power cut before then loses only this time, which the next sync
    /// writes again. A sync with nothing new thus costs no flush.
    package func recordSync(at milliseconds: Int64) throws(ProgressError) {
        do {
            try pool.writeWithoutTransaction { db in
                try db.execute(sql: "PRAGMA synchronous = NORMAL")
                var failure: (any Error)?
                do {
                    try db.inTransaction(.immediate) {
                        try db.execute(sql: "UPDATE syncRemote SET lastSync = ? WHERE id = 1", arguments: [milliseconds])
                        return .commit
                    }
                } catch {
                    failure = error
                }
                // Every other write of this connection is flushed: back to FULL before anything else.
                try db.execute(sql: "PRAGMA synchronous = FULL")
                if let failure { throw failure }
            }
        } catch {
            throw Self.wrap(error, path: path)
        }
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
                for column in 0..<4 { writer.string(row[column] as String? ?? "") }
                // The state as the compact coder writes it, whichever form the row keeps.
                writer.blob(try CompactCoder.encode(try ItemRow.state(row[4])))
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
