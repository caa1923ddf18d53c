import Foundation
import SystemPackage
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
/// ``record(_:answer:at:duration:scheduler:sessionDay:balance:)`` returns, and a process killed at
/// any moment leaves the database as it was before or after that answer. Two processes on one file
/// wait for each other (a busy timeout), never fail. The schema is versioned with GRDB's migrator;
/// a file from a newer schema, or one that is not a database, is an error and stays untouched.
public final class ProgressStore: Sendable {
    /// The database file.
    public let path: String
    private let pool: DatabasePool

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
        } catch {
            throw Self.wrap(error, path: path)
        }
    }

    /// Brings the schema up to date. GRDB's migrator reads which migrations are applied before it
    /// takes the write lock, so a second process opening a new file at the same moment runs the
    /// same migration after the first committed it, and fails ("table item already exists"). That
    /// failure is harmless exactly when the schema is now complete: the other process did the work.
    static func migrate(_ pool: DatabasePool) throws {
        do {
            try migrator.migrate(pool)
        } catch let error as DatabaseError where error.resultCode != .SQLITE_BUSY {
            guard try pool.read({ db in try migrator.hasCompletedMigrations(db) }) else { throw error }
        }
    }

    /// The schema, one migration per version. Never edit a shipped migration: add one.
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1: items, review log, session days") { db in
            try db.execute(sql: """
                CREATE TABLE item (
                    source TEXT NOT NULL,
                    item TEXT NOT NULL,
                    direction TEXT NOT NULL,
                    scheduler TEXT NOT NULL,
                    state TEXT NOT NULL,
                    due REAL,
                    dueSessionDay INTEGER,
                    stability REAL,
                    introduced REAL NOT NULL,
                    lastReview REAL,
                    reviews INTEGER NOT NULL,
                    lapses INTEGER NOT NULL,
                    orphan INTEGER NOT NULL DEFAULT 0,
                    position INTEGER,
                    PRIMARY KEY (source, item, direction)
                ) WITHOUT ROWID;
                -- Covers the queue's reads: with the primary key (source, item, direction) it holds
                -- every column the due list and the known keys need, so they never read the state.
                -- position: the item's place in the content the last session saw (NULL: unknown).
                CREATE INDEX item_due ON item (source, orphan, due, lastReview, stability, dueSessionDay, position);
                CREATE TABLE review (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    source TEXT NOT NULL,
                    item TEXT NOT NULL,
                    direction TEXT NOT NULL,
                    at REAL NOT NULL,
                    answer TEXT NOT NULL,
                    durationMs INTEGER NOT NULL,
                    recalled INTEGER NOT NULL,
                    before TEXT,
                    after TEXT NOT NULL,
                    sessionDay INTEGER,
                    undone INTEGER NOT NULL DEFAULT 0
                );
                CREATE INDEX review_source_at ON review (source, at);
                CREATE TABLE content (
                    source TEXT PRIMARY KEY NOT NULL,
                    fingerprint TEXT NOT NULL,
                    newFrontier INTEGER NOT NULL DEFAULT 0
                ) WITHOUT ROWID;
                CREATE TABLE sessionDay (
                    source TEXT PRIMARY KEY NOT NULL,
                    day INTEGER NOT NULL,
                    completedOn TEXT
                ) WITHOUT ROWID;
                """)
        }
        return migrator
    }

    // MARK: Reading

    /// Every item of `source` with its progress, orphans included.
    public func items(source: String) throws(ProgressError) -> [ItemKey: ItemProgress] {
        try read { db in
            var result: [ItemKey: ItemProgress] = [:]
            let rows = try Row.fetchCursor(db, sql: "SELECT * FROM item WHERE source = ?", arguments: [source])
            while let row = try rows.next() {
                let progress = try Self.progress(row)
                result[progress.key] = progress
            }
            return result
        }
    }

    /// One item's progress, `nil` if the learner has not seen it.
    public func item(_ key: ItemKey) throws(ProgressError) -> ItemProgress? {
        try read { db in
            try Row.fetchOne(
                db, sql: "SELECT * FROM item WHERE source = ? AND item = ? AND direction = ?",
                arguments: [key.source, key.item, key.direction]
            ).map(Self.progress)
        }
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

    /// What the queue needs of an item due before `limit` (or, with `sessionDay`, due on that
    /// Leitner session day or earlier), not an orphan: its key, due time, last review and FSRS
    /// stability, earliest due first.
    public func dueItems(source: String, before limit: Date, sessionDay: Int? = nil) throws(ProgressError) -> [DueItem] {
        try read { db in
            var items: [DueItem] = []
            let columns = "item, direction, due, lastReview, stability, dueSessionDay, position"
            try Self.dueQueries(db, columns: columns, source: source, before: limit, sessionDay: sessionDay) { row in
                items.append(DueItem(
                    key: ItemKey(source: source, item: Self.text(row, 0), direction: Self.text(row, 1)),
                    due: Self.double(row, 2).map(Date.init(timeIntervalSince1970:)), dueSessionDay: Self.int(row, 5),
                    lastReview: Self.double(row, 3).map(Date.init(timeIntervalSince1970:)), stability: Self.double(row, 4),
                    position: Self.int(row, 6)))
            }
            return items
        }
    }

    /// The due rows as the queue reads them, column by column: tens of thousands of rows, so no
    /// strings for a row whose content position is known (when `keysOnlyWithoutPosition`).
    struct DueColumns {
        /// The content position, −1 when not known.
        var position: [Int] = []
        /// The last review (seconds since 1970), NaN when none.
        var lastReview: [Double] = []
        /// The FSRS stability, NaN when none.
        var stability: [Double] = []
        /// Keys of the rows (by index) that need a lookup.
        var keys: [Int: ItemKey] = [:]
        var count: Int { position.count }
    }

    func dueColumns(source: String, before limit: Date, sessionDay: Int?, keysOnlyWithoutPosition: Bool) throws(ProgressError) -> DueColumns {
        try read { db in
            var columns = DueColumns()
            try Self.dueQueries(db, columns: "position, lastReview, stability, item, direction", source: source, before: limit, sessionDay: sessionDay) { row in
                let position = sqlite3_column_type(row, 0) == SQLITE_NULL ? -1 : Int(sqlite3_column_int64(row, 0))
                if position < 0 || !keysOnlyWithoutPosition {
                    columns.keys[columns.position.count] = ItemKey(source: source, item: Self.text(row, 3), direction: Self.text(row, 4))
                }
                columns.position.append(position)
                columns.lastReview.append(Self.double(row, 1) ?? .nan)
                columns.stability.append(Self.double(row, 2) ?? .nan)
            }
            return columns
        }
    }

    /// Two queries, each on the covering index (rather than one OR that scans the table), read
    /// with sqlite3_column_*: due by date, earliest first, then due by session day.
    static func dueQueries(
        _ db: Database, columns: String, source: String, before limit: Date, sessionDay: Int?, _ body: (OpaquePointer) -> Void
    ) throws {
        try rows(db, "SELECT \(columns) FROM item WHERE source = ? AND orphan = 0 AND due < ? ORDER BY due", [source, limit.timeIntervalSince1970], body)
        if let sessionDay {
            try rows(db, "SELECT \(columns) FROM item WHERE source = ? AND orphan = 0 AND dueSessionDay <= ? ORDER BY dueSessionDay", [source, sessionDay], body)
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
            return try Row.fetchAll(db, sql: sql, arguments: [source, start.timeIntervalSince1970]).map(Self.record)
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
    @discardableResult
    public func record(
        _ key: ItemKey, answer: Answer, at moment: Date, duration: TimeInterval = 0, scheduler: AnyScheduler,
        sessionDay: Int? = nil, balance: LoadBalancer? = nil, position: Int? = nil
    ) throws(ProgressError) -> ReviewRecord {
        let encoder = Self.encoder
        return try write { db in
            let before = try Row.fetchOne(
                db, sql: "SELECT * FROM item WHERE source = ? AND item = ? AND direction = ?",
                arguments: [key.source, key.item, key.direction]
            ).map(Self.progress)
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
            let recalled = answer.recalled(by: scheduler.kind)
            let after = ItemProgress(
                key: key, state: scheduled.state, due: scheduled.due, introduced: before?.introduced ?? moment,
                lastReview: moment, reviews: (before?.reviews ?? 0) + 1,
                lapses: (before?.lapses ?? 0) + (recalled ? 0 : 1))
            try Self.save(after, position: position, db: db)
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
    /// restore); existing rows with the same keys are replaced. The log is not touched.
    public func importItems(_ items: [ItemProgress]) throws(ProgressError) {
        try write { db in
            for item in items { try Self.save(item, db: db) }
        }
    }

    /// Takes back the last answer of `source` that is not yet undone: the item gets exactly the
    /// progress it had before (a new item is unseen again) and the log row is marked undone.
    @discardableResult
    public func undoLast(source: String) throws(ProgressError) -> ReviewRecord {
        try write { db in
            guard let row = try Row.fetchOne(
                db, sql: "SELECT * FROM review WHERE source = ? AND undone = 0 ORDER BY id DESC LIMIT 1", arguments: [source])
            else {
                throw ProgressError(.nothingToUndo, path: nil, item: source, "no answer to take back")
            }
            let record = try Self.record(row)
            if let before = record.before {
                try Self.save(before, db: db)
            } else {
                try db.execute(
                    sql: "DELETE FROM item WHERE source = ? AND item = ? AND direction = ?",
                    arguments: [record.key.source, record.key.item, record.key.direction])
                // The item is unseen again: the new-item frontier may no longer hold.
                try db.execute(sql: "UPDATE content SET newFrontier = 0 WHERE source = ?", arguments: [source])
            }
            try db.execute(sql: "UPDATE review SET undone = 1 WHERE id = ?", arguments: [record.id])
            var undone = record
            undone.undone = true
            return undone
        }
    }

    /// Brings the items of `source` in line with the content: those `position` finds no place for
    /// become orphans (kept, not shown), the others are live again and learn their place in it.
    /// Skipped when the content's `fingerprint` is the one seen last time. Returns how many items
    /// changed.
    @discardableResult
    public func syncContent(source: String, fingerprint: String, position: (ItemKey) -> Int?) throws(ProgressError) -> Int {
        // The usual case, content unchanged: one read, no write lock.
        if try contentFingerprint(source: source) == fingerprint { return 0 }
        return try write { db in
            let stored = try String.fetchOne(db, sql: "SELECT fingerprint FROM content WHERE source = ?", arguments: [source])
            guard stored != fingerprint else { return 0 }
            var changes = 0
            var updates: [(String, String, Int?)] = []
            try Self.rows(db, "SELECT item, direction, orphan, position FROM item INDEXED BY item_due WHERE source = ?", [source]) { row in
                let key = ItemKey(source: source, item: Self.text(row, 0), direction: Self.text(row, 1))
                let place = position(key)
                if (Self.int(row, 2) == 1) != (place == nil) || Self.int(row, 3) != place { updates.append((key.item, key.direction, place)) }
            }
            let update = try db.cachedStatement(sql: "UPDATE item SET orphan = ?, position = ? WHERE source = ? AND item = ? AND direction = ?")
            for (item, direction, place) in updates {
                try update.execute(arguments: [place == nil, place, source, item, direction])
                changes += 1
            }
            // A new fingerprint: the new-item frontier starts again from the top.
            try db.execute(
                sql: "INSERT OR REPLACE INTO content (source, fingerprint, newFrontier) VALUES (?, ?, 0)",
                arguments: [source, fingerprint])
            return changes
        }
    }

    /// The fingerprint of the content ``syncContent(source:fingerprint:position:)`` last saw.
    public func contentFingerprint(source: String) throws(ProgressError) -> String? {
        try read { db in try String.fetchOne(db, sql: "SELECT fingerprint FROM content WHERE source = ?", arguments: [source]) }
    }

    /// The position in the content (of this `fingerprint`) before which every item has been seen.
    public func newFrontier(source: String, fingerprint: String) throws(ProgressError) -> Int {
        try read { db in
            try Int.fetchOne(
                db, sql: "SELECT newFrontier FROM content WHERE source = ? AND fingerprint = ?", arguments: [source, fingerprint]) ?? 0
        }
    }

    /// Records that every item before `position` of the content with `fingerprint` has been seen.
    public func setNewFrontier(source: String, fingerprint: String, to position: Int) throws(ProgressError) {
        try write { db in
            try db.execute(
                sql: "UPDATE content SET newFrontier = ? WHERE source = ? AND fingerprint = ?",
                arguments: [position, source, fingerprint])
        }
    }

    /// Of `candidates`, the indices of those the learner has not seen, in order, at most `limit`.
    public func unseen(_ candidates: some Collection<ItemKey>, limit: Int) throws(ProgressError) -> [Int] {
        try read { db in
            var result: [Int] = []
            let statement = try db.cachedStatement(sql: "SELECT 1 FROM item WHERE source = ? AND item = ? AND direction = ?")
            for (index, key) in candidates.enumerated() {
                guard result.count < limit else { break }
                if try Int.fetchOne(statement, arguments: [key.source, key.item, key.direction]) == nil { result.append(index) }
            }
            return result
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

/// What the queue needs to know of a due item.
public struct DueItem: Sendable, Hashable {
    /// Which item.
    public var key: ItemKey
    /// When it is due (`nil` for a session-day due).
    public var due: Date?
    /// The Leitner session day it is due on.
    public var dueSessionDay: Int?
    /// Its last answer.
    public var lastReview: Date?
    /// The FSRS stability, for ordering by predicted recall.
    public var stability: Double?
    /// Its place in the content the last session saw (`nil`: not known yet).
    public var position: Int?
}

// MARK: - Rows, JSON and errors

extension ProgressStore {
    static var encoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        encoder.dateEncodingStrategy = .secondsSince1970
        return encoder
    }

    static var decoder: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        return decoder
    }

    static func json<T: Encodable>(_ value: T, _ encoder: JSONEncoder) throws -> String {
        String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    /// Steps a statement, handing each row to `body` as the raw sqlite3_stmt.
    static func rows(_ db: Database, _ sql: String, _ arguments: StatementArguments, _ body: (OpaquePointer) -> Void) throws {
        let statement = try db.cachedStatement(sql: sql)
        try statement.setArguments(arguments)
        let raw = statement.sqliteStatement
        sqlite3_reset(raw)
        while true {
            let code = sqlite3_step(raw)
            if code == SQLITE_DONE { break }
            guard code == SQLITE_ROW else {
                throw DatabaseError(resultCode: ResultCode(rawValue: code), message: String(cString: sqlite3_errmsg(db.sqliteConnection)), sql: sql)
            }
            body(raw)
        }
        sqlite3_reset(raw)
    }

    static func text(_ row: OpaquePointer, _ column: Int32) -> String {
        guard let bytes = sqlite3_column_text(row, column) else { return "" }
        return String(cString: bytes)
    }

    static func double(_ row: OpaquePointer, _ column: Int32) -> Double? {
        sqlite3_column_type(row, column) == SQLITE_NULL ? nil : sqlite3_column_double(row, column)
    }

    static func int(_ row: OpaquePointer, _ column: Int32) -> Int? {
        sqlite3_column_type(row, column) == SQLITE_NULL ? nil : Int(sqlite3_column_int64(row, column))
    }

    static func save(_ progress: ItemProgress, position: Int? = nil, db: Database) throws {
        var due: Double?
        var dueDay: Int?
        switch progress.due {
        case .date(let date): due = date.timeIntervalSince1970
        case .sessionDay(let day): dueDay = day
        case .never: break
        }
        try db.execute(
            sql: """
                INSERT INTO item
                (source, item, direction, scheduler, state, due, dueSessionDay, stability, introduced, lastReview, reviews, lapses, orphan, position)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT (source, item, direction) DO UPDATE SET
                    scheduler = excluded.scheduler, state = excluded.state, due = excluded.due,
                    dueSessionDay = excluded.dueSessionDay, stability = excluded.stability,
                    introduced = excluded.introduced, lastReview = excluded.lastReview, reviews = excluded.reviews,
                    lapses = excluded.lapses, orphan = excluded.orphan, position = coalesce(excluded.position, item.position)
                """,
            arguments: [
                progress.key.source, progress.key.item, progress.key.direction, progress.state.kind.rawValue,
                try json(progress.state, encoder), due, dueDay, progress.stability,
                progress.introduced.timeIntervalSince1970, progress.lastReview?.timeIntervalSince1970,
                progress.reviews, progress.lapses, progress.orphan, position,
            ])
    }

    static func progress(_ row: Row) throws -> ItemProgress {
        let key = ItemKey(source: row["source"], item: row["item"], direction: row["direction"])
        let stateText: String = row["state"]
        let state: CardState
        do {
            state = try decoder.decode(CardState.self, from: Data(stateText.utf8))
        } catch {
            throw ProgressError(.damagedDatabase, item: key.description, "the stored state does not decode: \(error)")
        }
        let due: Due
        if let date: Double = row["due"] {
            due = .date(Date(timeIntervalSince1970: date))
        } else if let day: Int = row["dueSessionDay"] {
            due = .sessionDay(day)
        } else {
            due = .never
        }
        let last: Double? = row["lastReview"]
        return ItemProgress(
            key: key, state: state, due: due, introduced: Date(timeIntervalSince1970: row["introduced"]),
            lastReview: last.map(Date.init(timeIntervalSince1970:)), reviews: row["reviews"], lapses: row["lapses"],
            orphan: row["orphan"])
    }

    static func record(_ row: Row) throws -> ReviewRecord {
        let key = ItemKey(source: row["source"], item: row["item"], direction: row["direction"])
        func decode<T: Decodable>(_ type: T.Type, _ column: String) throws -> T {
            let text: String = row[column]
            do {
                return try decoder.decode(T.self, from: Data(text.utf8))
            } catch {
                throw ProgressError(.damagedDatabase, item: key.description, "review \(column) does not decode: \(error)")
            }
        }
        let beforeText: String? = row["before"]
        return ReviewRecord(
            id: row["id"], key: key, at: Date(timeIntervalSince1970: row["at"]), answer: try decode(Answer.self, "answer"),
            duration: Double(row["durationMs"] as Int) / 1000,
            before: beforeText == nil ? nil : try decode(ItemProgress.self, "before"),
            after: try decode(ItemProgress.self, "after"), recalled: row["recalled"], undone: row["undone"])
    }

    private func read<T>(_ body: (Database) throws -> T) throws(ProgressError) -> T {
        do {
            return try pool.read(body)
        } catch {
            throw Self.wrap(error, path: path)
        }
    }

    /// One IMMEDIATE transaction: the write lock is taken first (waiting on the busy timeout for
    /// another process), so a read inside it never meets a newer snapshot.
    private func write<T>(_ body: (Database) throws -> T) throws(ProgressError) -> T {
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

    static func retryingBusy<T>(_ body: () throws -> T) throws -> T {
        let deadline = Date().addingTimeInterval(30)
        while true {
            do {
                return try body()
            } catch let error as DatabaseError where error.resultCode == .SQLITE_BUSY && Date() < deadline {
                usleep(20_000)
            }
        }
    }

    static func wrap(_ error: any Error, path: String) -> ProgressError {
        if var error = error as? ProgressError {
            error.path = error.path ?? path
            return error
        }
        guard let error = error as? DatabaseError else {
            return ProgressError(.database, path: path, "\(error)")
        }
        switch error.resultCode {
        case .SQLITE_NOTADB, .SQLITE_CORRUPT:
            return ProgressError(.damagedDatabase, path: path, "not a sound SQLite database (\(error.message ?? "\(error.resultCode)"))")
        case .SQLITE_READONLY, .SQLITE_CANTOPEN, .SQLITE_PERM:
            return ProgressError(.notWritable, path: path, error.message ?? "\(error.resultCode)")
        default:
            return ProgressError(.database, path: path, error.message ?? "\(error)")
        }
    }

    /// The 16 bytes every SQLite database file starts with.
    static let sqliteHeader = Data("SQLite format 3\0".utf8)

    /// The file's first 16 bytes: empty for an empty file, nil if it cannot be opened.
    ///
    /// Another process may be creating the database at this moment: its file can be seen longer
    /// than what has been written into it, so the header reads as zeros, or as a prefix of SQLite's
    /// header followed by zeros. Such a header is read again for up to a second before it is
    /// believed; text or any other byte is final at once.
    static func readHeader(_ path: String) -> Data? {
        /// Up to `count` bytes from the start of the file, or `nil` if it cannot be opened.
        func readPrefix(of path: String, count: Int) -> Data? {
            guard let file = try? FileDescriptor.open(path, .readOnly) else { return nil }
            defer { _ = try? file.close() }
            var bytes = [UInt8](repeating: 0, count: count)
            var filled = 0
            while filled < count {
                let read = bytes.withUnsafeMutableBytes { buffer in
                    try? file.read(fromAbsoluteOffset: Int64(filled), into: UnsafeMutableRawBufferPointer(rebasing: buffer[filled...]))
                }
                guard let read, read > 0 else { break }
                filled += read
            }
            return Data(bytes[..<filled])
        }

        let deadline = Date().addingTimeInterval(1)
        while true {
            guard let header = readPrefix(of: path, count: 16) else { return nil }
            let beingWritten = header != sqliteHeader && !header.isEmpty
                && zip(header, sqliteHeader).allSatisfy { read, expected in read == expected || read == 0 }
            guard beingWritten, Date() < deadline else { return header }
            usleep(5_000)
        }
    }

    /// Refuses, before SQLite touches anything, a folder, a file or folder that cannot be written,
    /// a file that is not a database, and a database from a newer schema.
    static func checkBeforeOpening(_ path: String) throws(ProgressError) {
        let files = FileManager.default
        var isFolder: ObjCBool = false
        if files.fileExists(atPath: path, isDirectory: &isFolder) {
            if isFolder.boolValue {
                throw ProgressError(.isFolder, path: path, "is a folder; give the database file's path")
            }
            guard files.isWritableFile(atPath: path) else {
                throw ProgressError(.notWritable, path: path, "the database file is read-only")
            }
            guard let header = readHeader(path) else {
                throw ProgressError(.notWritable, path: path, "cannot be opened")
            }
            if header.isEmpty { return }
            guard header == sqliteHeader else {
                throw ProgressError(.damagedDatabase, path: path, "not an SQLite database (its first bytes are not SQLite's header)")
            }
            do {
                var configuration = Configuration()
                configuration.readonly = true
                configuration.busyMode = .timeout(30)
                let queue = try DatabaseQueue(path: path, configuration: configuration)
                // Another process may be creating this file right now. Tables are only ever added,
                // so once grdb_migrations is seen its SELECT cannot fail; asked the other way round
                // (GRDB's order), the table can appear between the failed SELECT and the check.
                let superseded = try queue.read { db in
                    try db.tableExists("grdb_migrations") && migrator.hasBeenSuperseded(db)
                }
                try queue.close()
                if superseded {
                    throw ProgressError(.newerSchema, path: path, "written by a newer version of this library; open it with that version")
                }
            } catch let error as DatabaseError where ![.SQLITE_BUSY, .SQLITE_LOCKED, .SQLITE_NOMEM].contains(error.resultCode) {
                // The file is there and SQLite cannot read its schema: damaged, whatever the code.
                throw ProgressError(.damagedDatabase, path: path, "SQLite cannot read it (\(error.message ?? "\(error.resultCode)"))")
            } catch {
                throw wrap(error, path: path)
            }
        } else {
            let folder = (path as NSString).deletingLastPathComponent
            let parent = folder.isEmpty ? "." : folder
            guard files.fileExists(atPath: parent, isDirectory: &isFolder), isFolder.boolValue else {
                throw ProgressError(.notWritable, path: path, "its folder \(parent) does not exist")
            }
            guard files.isWritableFile(atPath: parent) else {
                throw ProgressError(.notWritable, path: path, "its folder \(parent) is read-only")
            }
        }
    }
}
