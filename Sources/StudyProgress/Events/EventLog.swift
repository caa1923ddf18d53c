import Foundation
import GRDB
import StudyEngine

// The event log: the truth of a progress file since schema v3. Every change a learner makes is
// appended here first; the item, session-day and learner tables are computed from it. A merge
// adds events by id and recomputes what they touch, from the earliest event they touch.

/// What a merge did.
package struct MergeSummary: Sendable, Hashable {
    /// Events that were new here.
    package var added = 0
    /// Items whose progress was computed again.
    package var itemsReplayed = 0
    /// Items replayed from their first event (an event arrived before ones already applied).
    package var itemsReplayedFromStart = 0
}

extension ProgressStore {
    // MARK: The schema

    /// Schema v3: the event log, this file's device and clock, and the record of what sync sent
    /// and saw. The history an older version kept (answers, imported items, the seed) becomes
    /// events, so what the tables hold is what replaying the log gives.
    static func registerEventLog(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("v3: the event log") { db in
            try db.execute(sql: """
                CREATE TABLE event (
                    seq INTEGER PRIMARY KEY AUTOINCREMENT,
                    id BLOB NOT NULL UNIQUE,
                    ord BLOB NOT NULL,
                    device INTEGER NOT NULL,
                    clock INTEGER NOT NULL,
                    wall INTEGER NOT NULL,
                    kind INTEGER NOT NULL,
                    source TEXT NOT NULL,
                    item TEXT NOT NULL,
                    direction TEXT NOT NULL,
                    payload BLOB NOT NULL,
                    target BLOB,
                    cancelled INTEGER NOT NULL DEFAULT 0,
                    sent TEXT
                );
                CREATE INDEX event_item ON event (source, item, direction, ord);
                CREATE INDEX event_wall ON event (source, wall);
                CREATE INDEX event_target ON event (target) WHERE target IS NOT NULL;
                CREATE INDEX event_unsent ON event (seq) WHERE sent IS NULL;
                CREATE TABLE device (
                    id INTEGER PRIMARY KEY CHECK (id = 1),
                    device INTEGER NOT NULL,
                    clock INTEGER NOT NULL
                );
                -- The last event (its ord) an item's row reflects: a merged event after it applies on
                -- top of the row; one before it replays the item from its first event.
                ALTER TABLE item ADD COLUMN applied BLOB;
                -- Sync's record of the remote: each object this file wrote or merged.
                CREATE TABLE syncObject (
                    name TEXT PRIMARY KEY NOT NULL,
                    device INTEGER NOT NULL,
                    kind INTEGER NOT NULL,
                    sealedAt INTEGER NOT NULL,
                    state INTEGER NOT NULL,
                    events INTEGER NOT NULL
                ) WITHOUT ROWID;
                CREATE TABLE syncRemote (
                    id INTEGER PRIMARY KEY CHECK (id = 1),
                    remote TEXT NOT NULL,
                    lastSync INTEGER
                );
                """)
            try migrateHistory(db)
        }
    }

    /// Turns an older file's history into events: the seed, each answer (with the progress it
    /// recorded, so replay gives exactly the rows there were) and its undo, and a setProgress
    /// event for each item whose row is not what its last answer left (an import).
    private static func migrateHistory(_ db: Database) throws {
        let device = DeviceID.random()
        let now = Int64((Date().timeIntervalSince1970 * 1000).rounded(.down))
        let first = try Double.fetchOne(db, sql: "SELECT min(at) FROM review").map { Int64(($0 * 1000).rounded(.down)) }
        var clock = HybridClock(milliseconds: 0)
        try db.execute(sql: "INSERT INTO device (id, device, clock) VALUES (1, ?, 0)", arguments: [Int64(bitPattern: device.rawValue)])
        func append(_ kind: ProgressEvent.Kind, _ key: ItemKey, _ payload: [UInt8], wall: Int64, cancelled: Bool = false, target: EventID? = nil) throws -> ProgressEvent {
            clock = clock.next(wallMilliseconds: wall)
            let event = ProgressEvent(id: .random(), device: device, clock: clock, wall: wall, kind: kind, key: key, payload: payload)
            _ = try insert(event, db: db, cancelled: cancelled)
            return event
        }
        // The seed, dated before the first answer: of two files' seeds, the older history's wins.
        let seed = try learnerSeed(db)
        _ = try append(.learnerSeed, ItemKey(source: "", item: ""), bigEndianBytes(seed), wall: (first ?? now) - 1)
        var last: [ItemKey: ItemProgress] = [:]
        let rows = try Row.fetchCursor(db, sql: "SELECT * FROM review ORDER BY id")
        let encoder = Self.encoder
        while let row = try rows.next() {
            let review = try ReviewRow(row: row).record
            let after = try encoder.encode(review.after)
            let payload = AnswerPayload(
                answer: review.answer, durationMilliseconds: Int64((review.duration * 1000).rounded()), sessionDay: row["sessionDay"],
                mode: .recorded(recalled: review.recalled, after: Array(after)))
            let wall = Int64((review.at.timeIntervalSince1970 * 1000).rounded(.down))
            let answer = try append(.answer, review.key, payload.bytes, wall: wall, cancelled: review.undone)
            if review.undone {
                _ = try append(.undo, review.key, answer.id.bytes, wall: wall)
            } else {
                last[review.key] = review.after
            }
        }
        // Rows that are not what their last answer left (imported items, rows an undo restored).
        var rowKeys: [ItemKey] = []
        let items = try ItemRow.fetchCursor(db, sql: "SELECT * FROM item")
        while let row = try items.next() {
            var progress = row.progress
            var recorded = last[progress.key]
            recorded?.orphan = false
            progress.orphan = false
            if recorded != progress {
                _ = try append(.setProgress, progress.key, Array(try encoder.encode(progress)), wall: max(now, clock.milliseconds))
            }
            rowKeys.append(progress.key)
        }
        let withRows = Set(rowKeys)
        for (key, _) in last where !withRows.contains(key) {
            // An answer's item whose row is gone (an older undo): reset, as the row says.
            _ = try append(.reset, key, [], wall: max(now, clock.milliseconds))
        }
        for key in rowKeys {
            let latest = try Data.fetchOne(
                db, sql: "SELECT ord FROM event WHERE source = ? AND item = ? AND direction = ? ORDER BY ord DESC LIMIT 1",
                arguments: [key.source, key.item, key.direction])
            try db.execute(
                sql: "UPDATE item SET applied = ? WHERE source = ? AND item = ? AND direction = ?",
                arguments: [latest, key.source, key.item, key.direction])
        }
        // Completed session days: one event per deck for the last date (the counter's value is
        // carried by as many events as it counted).
        let days = try Row.fetchAll(db, sql: "SELECT source, day, completedOn FROM sessionDay")
        for row in days {
            let source: String = row["source"]
            let day: Int = row["day"]
            let completedOn: String? = row["completedOn"]
            for step in stride(from: 1, to: day, by: 1) {
                let date = step == day - 1 ? (completedOn ?? "0000-00-00") : "0000-00-\(step)"
                _ = try append(.sessionDayCompleted, ItemKey(source: source, item: ""), Array(date.utf8), wall: max(now, clock.milliseconds))
            }
        }
        try db.execute(sql: "UPDATE device SET clock = ?", arguments: [Int64(bitPattern: clock.rawValue)])
    }

    // MARK: Rows

    /// Inserts `event` unless its id is there; returns its row, `nil` when it was there.
    static func insert(_ event: ProgressEvent, db: Database, cancelled: Bool = false, sent: String? = nil) throws -> Int64? {
        let statement = try db.cachedStatement(sql: """
            INSERT OR IGNORE INTO event (id, ord, device, clock, wall, kind, source, item, direction, payload, target, cancelled, sent)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """)
        let target: Data? = event.kind == .undo && event.payload.count == 16 ? Data(event.payload) : nil
        try statement.execute(arguments: [
            Data(event.id.bytes), Data(event.orderKey), Int64(bitPattern: event.device.rawValue), Int64(bitPattern: event.clock.rawValue),
            event.wall, Int(event.kind.rawValue), event.key.source, event.key.item, event.key.direction, Data(event.payload), target,
            cancelled, sent,
        ])
        return db.changesCount == 1 ? db.lastInsertedRowID : nil
    }

    static let eventColumns = "seq, id, device, clock, wall, kind, source, item, direction, payload, cancelled"

    /// Events read with ``eventColumns``; a row whose id is not 16 bytes is a damaged database.
    static func loggedEvents(_ db: Database, _ sql: String, _ arguments: StatementArguments = []) throws -> [LoggedEvent] {
        var result: [LoggedEvent] = []
        let rows = try Row.fetchCursor(db, sql: sql, arguments: arguments)
        while let row = try rows.next() {
            let idData: Data = row["id"]
            guard let id = EventID(bytes: idData) else { throw ProgressError(.damagedDatabase, "an event id is not 16 bytes") }
            let device: Int64 = row["device"]
            let clock: Int64 = row["clock"]
            let kind: Int = row["kind"]
            let payload: Data = row["payload"]
            result.append(LoggedEvent(
                event: ProgressEvent(
                    id: id, device: DeviceID(rawValue: UInt64(bitPattern: device)), clock: HybridClock(rawValue: UInt64(bitPattern: clock)),
                    wall: row["wall"], kind: ProgressEvent.Kind(rawValue: UInt8(truncatingIfNeeded: kind)),
                    key: ItemKey(source: row["source"], item: row["item"], direction: row["direction"]), payload: Array(payload)),
                seq: row["seq"], cancelled: row["cancelled"]))
        }
        return result
    }

    /// One item's events in log order.
    static func itemEvents(_ db: Database, _ key: ItemKey) throws -> [LoggedEvent] {
        try loggedEvents(
            db, "SELECT \(eventColumns) FROM event WHERE source = ? AND item = ? AND direction = ? ORDER BY ord",
            [key.source, key.item, key.direction])
    }

    /// Writes an item's row as replay left it (`nil`: no row), with the last event it reflects.
    static func writeItem(_ db: Database, _ key: ItemKey, _ progress: ItemProgress?, applied: [UInt8]?) throws {
        guard let progress else {
            try db.execute(
                sql: "DELETE FROM item WHERE source = ? AND item = ? AND direction = ?", arguments: [key.source, key.item, key.direction])
            return
        }
        try save(progress, db: db, applied: applied)
    }

    // MARK: This device

    /// This file's device and the last clock it made or saw.
    static func deviceState(_ db: Database) throws -> (device: DeviceID, clock: HybridClock) {
        guard let row = try Row.fetchOne(db, sql: "SELECT device, clock FROM device WHERE id = 1") else {
            throw ProgressError(.damagedDatabase, "the device row is missing")
        }
        let device: Int64 = row[0]
        let clock: Int64 = row[1]
        return (DeviceID(rawValue: UInt64(bitPattern: device)), HybridClock(rawValue: UInt64(bitPattern: clock)))
    }

    /// Appends an event this device makes now: the next clock, a new id.
    static func appendLocal(_ db: Database, _ kind: ProgressEvent.Kind, _ key: ItemKey, _ payload: [UInt8], wall: Int64) throws -> LoggedEvent {
        let state = try deviceState(db)
        let clock = state.clock.next(wallMilliseconds: wall)
        try db.execute(sql: "UPDATE device SET clock = ? WHERE id = 1", arguments: [Int64(bitPattern: clock.rawValue)])
        let event = ProgressEvent(id: .random(), device: state.device, clock: clock, wall: wall, kind: kind, key: key, payload: payload)
        guard let seq = try insert(event, db: db) else { throw ProgressError(.database, "a new event id was already in the log") }
        return LoggedEvent(event: event, seq: seq, cancelled: false)
    }

    /// Milliseconds since 1970 of `date`, rounded down: the precision of an event's time.
    static func milliseconds(_ date: Date) -> Int64 {
        let value = (date.timeIntervalSince1970 * 1000).rounded(.down)
        guard value.isFinite else { return 0 }
        return Int64(max(-9e15, min(9e15, value)))
    }

    // MARK: Merging

    /// How far ahead of this device's wall clock a merged clock may move this device's own: a
    /// device a day fast still orders after what it saw, one years fast cannot drag every
    /// device's clock with it (its events still merge, in their place).
    static let clockAdvanceLimit: Int64 = 48 * 3_600_000

    /// Adds `events` to the log (those whose id is there already are skipped) and recomputes what
    /// they touch: each item from the earliest event that changes it, the session days of the
    /// decks they touch, the learner's seed. One transaction. `sent` names the remote object they
    /// came in (so sync never sends them back); `nil` for a backup.
    package func merge(_ events: [ProgressEvent], sent: String?) throws(ProgressError) -> MergeSummary {
        try write { db in try Self.merge(events, sent: sent, db: db) }
    }

    static func merge(_ events: [ProgressEvent], sent: String?, db: Database) throws -> MergeSummary {
        var summary = MergeSummary()
        var added: [ProgressEvent] = []
        var maxClock = HybridClock(rawValue: 0)
        let cancelledByUndo = try db.cachedStatement(sql: "SELECT 1 FROM event WHERE target = ? LIMIT 1")
        for event in events {
            let cancelled = try Bool.fetchOne(cancelledByUndo, arguments: [Data(event.id.bytes)]) ?? false
            guard try insert(event, db: db, cancelled: cancelled, sent: sent) != nil else { continue }
            added.append(event)
            maxClock = max(maxClock, event.clock)
        }
        summary.added = added.count
        guard !added.isEmpty else { return summary }
        // Causality: this device's next events come after what it has seen (within a bound).
        let state = try deviceState(db)
        let limit = HybridClock(milliseconds: milliseconds(Date()) + clockAdvanceLimit)
        let advanced = max(state.clock, min(maxClock, limit))
        try db.execute(sql: "UPDATE device SET clock = ? WHERE id = 1", arguments: [Int64(bitPattern: advanced.rawValue)])

        // What the new events touch: items (from the earliest new event or cancelled answer),
        // decks' session days, the seed.
        var earliest: [ItemKey: [UInt8]] = [:]
        var decks = Set<String>()
        var seed = false
        func touch(_ key: ItemKey, _ ord: [UInt8]) {
            if let known = earliest[key], known.lexicographicallyPrecedes(ord) || known == ord { return }
            earliest[key] = ord
        }
        for event in added {
            switch event.kind {
            case .answer, .setProgress, .reset: touch(event.key, event.orderKey)
            case .sessionDayCompleted: decks.insert(event.key.source)
            case .learnerSeed: seed = true
            case .undo:
                guard event.payload.count == 16 else { continue }
                try db.execute(sql: "UPDATE event SET cancelled = 1 WHERE id = ?", arguments: [Data(event.payload)])
                if let row = try Row.fetchOne(db, sql: "SELECT ord, kind, source, item, direction FROM event WHERE id = ?", arguments: [Data(event.payload)]) {
                    let key = ItemKey(source: row["source"], item: row["item"], direction: row["direction"])
                    let kind: Int = row["kind"]
                    let ord: Data = row["ord"]
                    switch ProgressEvent.Kind(rawValue: UInt8(truncatingIfNeeded: kind)) {
                    case .sessionDayCompleted: decks.insert(key.source)
                    case .learnerSeed: seed = true
                    case .answer, .setProgress, .reset: touch(key, Array(ord))
                    default: break
                    }
                }
            default: break
            }
        }
        var replayer = Replayer()
        for (key, from) in earliest {
            let row = try itemRow(db, key)
            if let row, let applied = row.applied, applied.lexicographicallyPrecedes(from) {
                // Every event before `from` is in the row: apply the item's events from there on.
                let later = try loggedEvents(
                    db, "SELECT \(eventColumns) FROM event WHERE source = ? AND item = ? AND direction = ? AND ord >= ? ORDER BY ord",
                    [key.source, key.item, key.direction, Data(from)])
                var progress: ItemProgress? = row.progress
                for logged in later where !logged.cancelled { progress = replayer.apply(logged.event, to: progress) }
                try writeItem(db, key, progress, applied: later.last?.event.orderKey ?? applied)
            } else {
                let all = try itemEvents(db, key)
                var progress = replayer.replay(all)
                if let orphan = row?.progress.orphan { progress?.orphan = orphan }
                try writeItem(db, key, progress, applied: all.last?.event.orderKey)
                summary.itemsReplayedFromStart += 1
            }
            summary.itemsReplayed += 1
        }
        for source in decks { try replaySessionDay(db, source: source) }
        if seed { try replaySeed(db) }
        // The content sync runs again at the next session: new rows may be items the content no
        // longer has, and the new-item frontier may have moved either way.
        for source in Set(earliest.keys.map(\.source)) {
            try db.execute(sql: "DELETE FROM content WHERE source = ?", arguments: [source])
        }
        return summary
    }

    /// An item row with the last event it reflects.
    static func itemRow(_ db: Database, _ key: ItemKey) throws -> (progress: ItemProgress, applied: [UInt8]?)? {
        guard let row = try Row.fetchOne(
            db, sql: "SELECT * FROM item WHERE source = ? AND item = ? AND direction = ?", arguments: [key.source, key.item, key.direction])
        else { return nil }
        let applied: Data? = row["applied"]
        return (try ItemRow(row: row).progress, applied.map(Array.init))
    }

    /// A deck's session-day row from its completion events.
    static func replaySessionDay(_ db: Database, source: String) throws {
        let events = try loggedEvents(
            db, "SELECT \(eventColumns) FROM event WHERE source = ? AND item = '' AND kind = ? ORDER BY ord",
            [source, Int(ProgressEvent.Kind.sessionDayCompleted.rawValue)])
        if let counter = sessionDayCounter(from: events) {
            try db.execute(
                sql: "INSERT OR REPLACE INTO sessionDay (source, day, completedOn) VALUES (?, ?, ?)",
                arguments: [source, counter.day, counter.completedOn])
        } else {
            try db.execute(sql: "DELETE FROM sessionDay WHERE source = ?", arguments: [source])
        }
    }

    /// The learner's seed: the earliest seed event's.
    static func replaySeed(_ db: Database) throws {
        guard let payload = try Data.fetchOne(
            db, sql: "SELECT payload FROM event WHERE kind = ? AND cancelled = 0 AND length(payload) = 8 ORDER BY ord LIMIT 1",
            arguments: [Int(ProgressEvent.Kind.learnerSeed.rawValue)])
        else { return }
        let seed = payload.reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        try db.execute(sql: "INSERT OR REPLACE INTO learner (id, seed) VALUES (1, ?)", arguments: [Int64(bitPattern: seed)])
    }
}
