import Foundation
import GRDB
import StudyEngine

extension ProgressStore {
    /// Schema v3: the event log, this file's device and clock, and the record of what sync sent
    /// and saw. The history an older version kept (answers, imported items, the seed) becomes
    /// events, so what the tables hold is what replaying the log gives.
    static func registerEventLog(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("v3: the event log") { db in
            try db.execute(sql: """
                -- Every key an event names, numbered: the log holds the number. An item's key; a deck's
                -- session days (the item empty); the learner's own (all empty).
                CREATE TABLE eventKey (
                    key INTEGER PRIMARY KEY,
                    source TEXT NOT NULL,
                    item TEXT NOT NULL,
                    direction TEXT NOT NULL,
                    UNIQUE (source, item, direction)
                );
                -- The log, in replay order per key (clock and device with the top bit flipped, so
                -- SQLite's signed order is their unsigned one): a key's events are one range of the
                -- table. An event's id fixes its key, clock and device, so an event is there once.
                CREATE TABLE event (
                    key INTEGER NOT NULL,
                    clock INTEGER NOT NULL,
                    device INTEGER NOT NULL,
                    id BLOB NOT NULL,
                    seq INTEGER NOT NULL,
                    wall INTEGER NOT NULL,
                    kind INTEGER NOT NULL,
                    payload BLOB NOT NULL,
                    sent INTEGER,
                    PRIMARY KEY (key, clock, device, id)
                ) WITHOUT ROWID;
                -- Events no object of the remote carries yet (this device's, a backup's), in the order
                -- they arrived; merged events are never in it.
                CREATE INDEX event_unsent ON event (seq) WHERE sent IS NULL;
                -- The events this device made, by arrival: undo takes back the last answer.
                CREATE TABLE ownEvent (
                    seq INTEGER PRIMARY KEY,
                    key INTEGER NOT NULL
                );
                -- This file's device, the last clock it made or saw, the last arrival number.
                CREATE TABLE device (
                    id INTEGER PRIMARY KEY CHECK (id = 1),
                    device INTEGER NOT NULL,
                    clock INTEGER NOT NULL,
                    seq INTEGER NOT NULL
                );
                -- The last event (its order key) an item's row reflects: a merged event after it applies
                -- on top of the row; one before it replays the item from its first event. And the
                -- latest wall time among the item's answers: today's answers are found by it.
                ALTER TABLE item ADD COLUMN applied BLOB;
                ALTER TABLE item ADD COLUMN latestAnswer INTEGER;
                CREATE INDEX item_recent ON item (source, latestAnswer);
                -- Sync's record of the remote: each object this file wrote or merged; an object planned
                -- but not known to be uploaded keeps its content, so a retry seals the same bytes.
                CREATE TABLE syncObject (
                    name TEXT NOT NULL UNIQUE,
                    device INTEGER NOT NULL,
                    kind INTEGER NOT NULL,
                    sealedAt INTEGER NOT NULL,
                    state INTEGER NOT NULL,
                    events INTEGER NOT NULL,
                    content BLOB
                );
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
        let now = milliseconds(Date())
        let first = try Double.fetchOne(db, sql: "SELECT min(at) FROM review").map { Int64(($0 * 1000).rounded(.down)) }
        try db.execute(
            sql: "INSERT INTO device (id, device, clock, seq) VALUES (1, ?, 0, 0)", arguments: [Int64(bitPattern: DeviceID.random().rawValue)])
        var log = try LogTransaction(db)
        // The seed, dated before the first answer: of two files' seeds, the older history's wins.
        let seed = try learnerSeed(db)
        _ = try log.appendLocal(.learnerSeed, ItemKey(source: "", item: ""), bigEndianBytes(seed), wall: (first ?? now) - 1)
        var last: [ItemKey: ItemProgress] = [:]
        let rows = try Row.fetchCursor(db, sql: "SELECT * FROM review ORDER BY id")
        let encoder = log.encoder
        while let row = try rows.next() {
            let review = try ReviewRow(row: row).record
            let after = try encoder.encode(review.after)
            let payload = AnswerPayload(
                answer: review.answer, durationMilliseconds: Int64((review.duration * 1000).rounded()), sessionDay: row["sessionDay"],
                mode: .recorded(recalled: review.recalled, after: Array(after)))
            let answer = try log.appendLocal(.answer, review.key, payload.bytes, wall: milliseconds(review.at))
            if review.undone {
                _ = try log.appendLocal(.undo, review.key, answer.event.id.bytes, wall: milliseconds(review.at))
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
                _ = try log.appendLocal(.setProgress, progress.key, Array(try encoder.encode(progress)), wall: max(now, log.clock.milliseconds))
            }
            rowKeys.append(progress.key)
        }
        let withRows = Set(rowKeys)
        for key in last.keys.sorted() where !withRows.contains(key) {
            // An answer's item whose row is gone (an older undo): reset, as the row says.
            _ = try log.appendLocal(.reset, key, [], wall: max(now, log.clock.milliseconds))
        }
        // Each row reflects its item's whole log, as it was: only the bookkeeping is added.
        for key in rowKeys {
            let events = try log.events(of: key)
            try db.execute(
                sql: "UPDATE item SET applied = ?, latestAnswer = ? WHERE source = ? AND item = ? AND direction = ?",
                arguments: [events.last.map { Data($0.event.orderKey) }, latestAnswer(events), key.source, key.item, key.direction])
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
                _ = try log.appendLocal(.sessionDayCompleted, ItemKey(source: source, item: ""), Array(date.utf8), wall: max(now, log.clock.milliseconds))
            }
        }
        try log.finish()
    }
}
