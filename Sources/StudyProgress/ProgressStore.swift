import Foundation
import GRDB
// SQLite's C API, as GRDB itself imports it: its module under SwiftPM, the system's otherwise.
#if canImport(GRDBSQLite)
import GRDBSQLite
#else
import SQLite3
#endif
import StudyEngine

/// The learner's progress in one SQLite file: per item the scheduler's state and its next due
/// time, and an append-only log of every answer.
///
/// The file is in WAL mode with `synchronous = FULL`: each answer is one transaction, on disk when
/// ``record(_:answer:at:duration:scheduler:sessionDay:balance:position:)`` returns, and a process killed at
/// any moment leaves the database as it was before or after that answer. Two processes on one file
/// wait for each other (a busy timeout), never fail. The schema is versioned with GRDB's migrator;
/// a file from a newer schema, or one that is not a database, is an error and stays untouched.
public final class ProgressStore: Sendable {
    /// The database file.
    public let path: String
    /// The learner's own random seed: drawn once, when the database is made (or first opened by a
    /// version that keeps one), and never changed. It fixes the order a question's choices are
    /// shown in (StudyEngine's `ChoiceOrder`), the same in every session, language and app that
    /// opens this file.
    public let learnerSeed: UInt64
    let pool: DatabasePool

    /// Opens (or creates) the progress database at `path`.
    ///
    /// Throws ``ProgressError/Code/isFolder``, ``ProgressError/Code/notWritable``,
    /// ``ProgressError/Code/damagedDatabase`` or ``ProgressError/Code/newerSchema``; in every
    /// case the file is left as it was.
    public init(path: String) throws(ProgressError) {
        self.path = path
        try Self.checkBeforeOpening(path)
        var configuration = Configuration()
        configuration.busyMode = .timeout(30)
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = FULL")
            // Reads through a memory map rather than pread: the queue reads thousands of rows.
            try db.execute(sql: "PRAGMA mmap_size = 268435456")
        }
        do {
            // Two processes creating or migrating the file at once: SQLite answers one of them
            // SQLITE_BUSY without waiting (switching to WAL, upgrading a read to a write), so the
            // open is retried for up to 30 s.
            let pool = try Self.retryingBusy { try DatabasePool(path: path, configuration: configuration) }
            self.pool = pool
            try Self.retryingBusy { try Self.migrate(pool) }
            learnerSeed = try pool.read { db in try Self.learnerSeed(db) }
        } catch {
            throw Self.wrap(error, path: path)
        }
    }


    // MARK: Reading

    /// The seed the `learner` table keeps (a missing row is a damaged database).
    static func learnerSeed(_ db: Database) throws -> UInt64 {
        guard let seed = try Int64.fetchOne(db, sql: "SELECT seed FROM learner WHERE id = 1") else {
            throw ProgressError(.damagedDatabase, "the learner's seed is missing")
        }
        return UInt64(bitPattern: seed)
    }

    /// Every item of `source` with its progress, orphans included.
    public func items(source: String) throws(ProgressError) -> [ItemKey: ItemProgress] {
        try read { db in
            var result: [ItemKey: ItemProgress] = [:]
            let rows = try ItemRow.fetchCursor(db, sql: "SELECT * FROM item WHERE source = ?", arguments: [source])
            while let row = try rows.next() { result[row.progress.key] = row.progress }
            return result
        }
    }

    /// One item's progress, `nil` if the learner has not seen it.
    public func item(_ key: ItemKey) throws(ProgressError) -> ItemProgress? {
        try read { db in try Self.itemProgress(db, key) }
    }

    /// The keys of every item of `source` the learner has seen (orphans included).
    public func knownKeys(source: String) throws(ProgressError) -> Set<ItemKey> {
        try read { db in
            var keys = Set<ItemKey>()
            try Self.rows(db, "SELECT item, direction FROM item INDEXED BY item_due WHERE source = ?", [source]) { row in
                keys.insert(ItemKey(source: source, item: Self.text(row, 0), direction: Self.text(row, 1)))
            }
            return keys
        }
    }

    /// How many items of `source` fall due on each calendar day from `start`'s day, for `days`
    /// days (index 0 is that day, overdue items included).
    public func dueCounts(source: String, from start: Date, days: Int, calendar: LearnerCalendar) throws(ProgressError) -> [Int] {
        let end = calendar.adding(days: days, to: calendar.startOfDay(start))
        return try read { db in
            var counts = Array(repeating: 0, count: max(days, 0))
            let rows = try Double.fetchCursor(
                db, sql: "SELECT due FROM item WHERE source = ? AND orphan = 0 AND due < ?",
                arguments: [source, end.timeIntervalSince1970])
            while let due = try rows.next() {
                let day = max(0, calendar.days(from: start, to: Date(timeIntervalSince1970: due)))
                if day < counts.count { counts[day] += 1 }
            }
            return counts
        }
    }

    /// The answers of `source` at or after `start`, oldest first; undone ones only if asked.
    public func reviews(source: String, since start: Date = .distantPast, includingUndone: Bool = false) throws(ProgressError) -> [ReviewRecord] {
        try read { db in
            let sql = "SELECT * FROM review WHERE source = ? AND at >= ?" + (includingUndone ? "" : " AND undone = 0") + " ORDER BY id"
            return try ReviewRow.fetchAll(db, sql: sql, arguments: [source, start.timeIntervalSince1970]).map(\.record)
        }
    }

    /// The deck's session-day counter (1 before the first completed day) and the learner's date
    /// of the last completed session, `yyyy-MM-dd`.
    public func sessionDay(source: String) throws(ProgressError) -> (day: Int, completedOn: String?) {
        try read { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT day, completedOn FROM sessionDay WHERE source = ?", arguments: [source]) else {
                return (1, nil)
            }
            return (row[0], row[1])
        }
    }

    // MARK: Writing

    /// Records an answer in one transaction: reads the item's state (new if unseen), asks the
    /// scheduler, moves the due day inside the fuzz range to a lighter day if `balance` says so,
    /// writes the item and appends the answer to the log. Returns the log record.
    ///
    /// `position` is the item's place in the content the last ``syncContent(source:fingerprint:position:)``
    /// saw; a new item answered at the new-item frontier moves the frontier past it.
    @discardableResult
    public func record(
        _ key: ItemKey, answer: Answer, at moment: Date, duration: TimeInterval = 0, scheduler: AnyScheduler,
        sessionDay: Int? = nil, balance: LoadBalancer? = nil, position: Int? = nil
    ) throws(ProgressError) -> ReviewRecord {
        try record(
            key, at: moment, duration: duration, sessionDay: sessionDay, balance: balance, position: position,
            scheduler: { _ in scheduler }, answer: { _ in answer })
    }

    /// ``record(_:answer:at:duration:scheduler:sessionDay:balance:position:)`` with the scheduler
    /// and the answer chosen from the stored state, read once inside the transaction: `scheduler`
    /// gets the item's state (`nil` for a new item), `answer` the scheduler it chose.
    func record(
        _ key: ItemKey, at moment: Date, duration: TimeInterval, sessionDay: Int?, balance: LoadBalancer?, position: Int?,
        scheduler choose: (CardState?) -> AnyScheduler, answer makeAnswer: (AnyScheduler) throws(ProgressError) -> Answer
    ) throws(ProgressError) -> ReviewRecord {
        let encoder = Self.encoder
        return try write { db in
            let before = try Self.itemProgress(db, key)
            let scheduler = choose(before?.state)
            let answer = try makeAnswer(scheduler)
            let studyMoment = StudyMoment(moment, sessionDay: sessionDay)
            let state = before?.state ?? scheduler.newState(at: studyMoment)
            var random = SplitMix64(seed: UInt64(truncatingIfNeeded: Int64(moment.timeIntervalSince1970 * 1000)))
            var scheduled: Scheduled<CardState>
            do {
                scheduled = try scheduler.review(state, answer: answer, at: studyMoment, random: &random)
            } catch let error as StudyEngineError {
                throw ProgressError(error, item: key.description)
            }
            if let balance {
                scheduled = try balance.balance(scheduled, source: key.source, at: moment, db: db)
            }
            let recalled = scheduler.recalled(answer)
            let after = ItemProgress(
                key: key, state: scheduled.state, due: scheduled.due, introduced: before?.introduced ?? moment,
                lastReview: moment, reviews: (before?.reviews ?? 0) + 1,
                lapses: (before?.lapses ?? 0) + (recalled ? 0 : 1))
            try Self.save(after, db: db, place: position)
            if before == nil, let position {
                // Answered at the frontier: every item before the next place has been seen.
                try db.execute(
                    sql: "UPDATE content SET newFrontier = ? WHERE source = ? AND newFrontier = ?",
                    arguments: [position + 1, key.source, position])
            }
            try db.execute(
                sql: """
                    INSERT INTO review (source, item, direction, at, answer, durationMs, recalled, before, after, sessionDay)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    key.source, key.item, key.direction, moment.timeIntervalSince1970,
                    try Self.json(answer, encoder), Int((duration * 1000).rounded()), recalled,
                    try before.map { try Self.json($0, encoder) }, try Self.json(after, encoder), sessionDay,
                ])
            return ReviewRecord(
                id: db.lastInsertedRowID, key: key, at: moment, answer: answer, duration: duration, before: before,
                after: after, recalled: recalled, undone: false)
        }
    }

    /// Writes many items' progress in one transaction (an import from another app or device, a
    /// restore); existing rows with the same keys are replaced. The log is not touched. Given the
    /// content the items belong to, each row also keeps its item's place there, as an answer
    /// does, so the first queue finds it at once.
    public func importItems(_ items: [ItemProgress], content: StudyMaterial? = nil) throws(ProgressError) {
        try write { db in
            for item in items { try Self.save(item, db: db, place: content?.position(of: item.key)) }
        }
    }

    /// Takes back the last answer of `source` that is not yet undone: the item gets exactly the
    /// progress it had before (a new item is unseen again) and the log row is marked undone.
    @discardableResult
    public func undoLast(source: String) throws(ProgressError) -> ReviewRecord {
        try undoLast(source: source) { _ in nil }
    }

    /// ``undoLast(source:)``, with `place` giving an item's place in the content: an undone first
    /// answer moves the new-item frontier back to that place (to the top when it is not known).
    @discardableResult
    func undoLast(source: String, place: (ItemKey) -> Int?) throws(ProgressError) -> ReviewRecord {
        try write { db in
            guard let record = try ReviewRow.fetchOne(
                db, sql: "SELECT * FROM review WHERE source = ? AND undone = 0 ORDER BY id DESC LIMIT 1", arguments: [source]
            )?.record else {
                throw ProgressError(.nothingToUndo, path: nil, item: source, "no answer to take back")
            }
            if let before = record.before {
                try Self.save(before, db: db)
            } else {
                try db.execute(
                    sql: "DELETE FROM item WHERE source = ? AND item = ? AND direction = ?",
                    arguments: [record.key.source, record.key.item, record.key.direction])
                // The item is unseen again: the new-item frontier goes back to its place (to the
                // top when its place is not known).
                try db.execute(
                    sql: "UPDATE content SET newFrontier = min(newFrontier, ?) WHERE source = ?", arguments: [place(record.key) ?? 0, source])
            }
            try db.execute(sql: "UPDATE review SET undone = 1 WHERE id = ?", arguments: [record.id])
            var undone = record
            undone.undone = true
            return undone
        }
    }

    /// Counts a completed session day for `source` (the Leitner calendar's clock), once per
    /// learner date.
    public func completeSessionDay(source: String, on date: String) throws(ProgressError) {
        try write { db in
            let row = try Row.fetchOne(db, sql: "SELECT day, completedOn FROM sessionDay WHERE source = ?", arguments: [source])
            let day: Int = row?[0] ?? 1
            let completedOn: String? = row?[1]
            guard completedOn != date else { return }
            try db.execute(
                sql: "INSERT OR REPLACE INTO sessionDay (source, day, completedOn) VALUES (?, ?, ?)",
                arguments: [source, day + 1, date])
        }
    }

    /// SQLite's own check of the file (`PRAGMA integrity_check`): `["ok"]` when sound.
    public func integrityCheck() throws(ProgressError) -> [String] {
        try read { db in try String.fetchAll(db, sql: "PRAGMA integrity_check") }
    }
}

extension ProgressStore {
    func read<T>(_ body: (Database) throws -> T) throws(ProgressError) -> T {
        do {
            return try pool.read(body)
        } catch {
            throw Self.wrap(error, path: path)
        }
    }

    /// One IMMEDIATE transaction: the write lock is taken first (waiting on the busy timeout for
    /// another process), so a read inside it never meets a newer snapshot.
    func write<T>(_ body: (Database) throws -> T) throws(ProgressError) -> T {
        do {
            return try pool.writeWithoutTransaction { db in
                var result: T?
                try db.inTransaction(.immediate) {
                    result = try body(db)
                    return .commit
                }
                guard let result else { throw ProgressError(.database, path: path, "the transaction returned nothing") }
                return result
            }
        } catch {
            throw Self.wrap(error, path: path)
        }
    }
}
