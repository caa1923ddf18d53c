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
    /// version that keeps one). It fixes the order a question's choices are shown in (StudyEngine's
    /// `ChoiceOrder`), the same in every session, language and app that opens this file. Progress
    /// synced from another device brings that device's seed when its log is the older one: the
    /// earliest seed in the merged log is the learner's, on every device.
    public var learnerSeed: UInt64 {
        (try? read { db in try Self.learnerSeed(db) }) ?? openedSeed
    }
    /// The seed when the file was opened (what ``learnerSeed`` answers if the file cannot be read).
    private let openedSeed: UInt64
    /// This file's device in the event log: 64 random bits drawn when the log was made.
    public let device: DeviceID
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
            // GRDB sets `synchronous = NORMAL` on the writer when it turns WAL on, after
            // `prepareDatabase`: every commit must be flushed, so FULL again, on the connection
            // that writes.
            try pool.writeWithoutTransaction { db in
                try db.execute(sql: "PRAGMA synchronous = FULL")
                // A merge writes 100,000 events and thousands of item rows in one transaction:
                // with SQLite's default 2 MB page cache the writer spills dirty pages to the WAL
                // before the commit and reads them back from there. 32 MB (allocated only as
                // pages are used) holds such a transaction.
                try db.execute(sql: "PRAGMA cache_size = -32768")
            }
            self.pool = pool
            try Self.retryingBusy { try Self.migrate(pool) }
            (openedSeed, device) = try pool.read { db in (try Self.learnerSeed(db), try Self.deviceState(db).device) }
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

    /// The answers of `source` at or after `start`, in the log's order; undone ones only if asked.
    /// Each carries the item's progress before and after it, as replaying the log gives them (an
    /// undone answer's as if it had counted). From a given `start`, the items looked at are those
    /// whose row has an answer at or after it (an item reset since then is left out).
    public func reviews(source: String, since start: Date = .distantPast, includingUndone: Bool = false) throws(ProgressError) -> [ReviewRecord] {
        let from = Self.milliseconds(start)
        return try read { db in
            // The items whose events reach `start` (all the source's, from the beginning of time).
            let keys: [ItemKey]
            if start == .distantPast {
                keys = try Row.fetchAll(db, sql: "SELECT item, direction FROM eventKey WHERE source = ? AND item != ''", arguments: [source])
                    .map { ItemKey(source: source, item: $0[0], direction: $0[1]) }
            } else {
                keys = try Row.fetchAll(
                    db, sql: "SELECT item, direction FROM item INDEXED BY item_recent WHERE source = ? AND latestAnswer >= ?", arguments: [source, from]
                ).map { ItemKey(source: source, item: $0[0], direction: $0[1]) }
            }
            var log = try LogTransaction(reading: db)
            var replayer = Replayer()
            var records: [(order: [UInt8], record: ReviewRecord)] = []
            for key in keys {
                _ = replayer.replay(try log.events(of: key)) { logged, before, after, recalled in
                    guard logged.event.wall >= from, includingUndone || !logged.cancelled else { return }
                    records.append((logged.event.orderKey, Self.reviewRecord(logged, before: before, after: after, recalled: recalled)))
                }
            }
            return records.sorted { $0.order.lexicographicallyPrecedes($1.order) }.map(\.record)
        }
    }

    /// An answer event as the log's record of it.
    static func reviewRecord(_ logged: LoggedEvent, before: ItemProgress?, after: ItemProgress, recalled: Bool) -> ReviewRecord {
        let payload = AnswerPayload(bytes: logged.event.payload)
        return ReviewRecord(
            id: logged.seq, key: logged.event.key, at: logged.event.moment, answer: payload?.answer ?? .wrong,
            duration: Double(payload?.durationMilliseconds ?? 0) / 1000, before: before, after: after, recalled: recalled,
            undone: logged.cancelled)
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
        // Events keep whole milliseconds: the answer is scheduled at the time its event carries.
        let wall = Self.milliseconds(moment)
        let at = Date(timeIntervalSince1970: Double(wall) / 1000)
        return try write { db in
            var log = try LogTransaction(db)
            let row = try Self.loggedRow(db, key)
            let before = row?.progress
            let scheduler = choose(before?.state)
            let answer = try makeAnswer(scheduler)
            let studyMoment = StudyMoment(at, sessionDay: sessionDay)
            let state = before?.state ?? scheduler.newState(at: studyMoment)
            var random = SplitMix64(seed: UInt64(bitPattern: wall))
            var scheduled: Scheduled<CardState>
            do {
                scheduled = try scheduler.review(state, answer: answer, at: studyMoment, random: &random)
            } catch let error as StudyEngineError {
                throw ProgressError(error, item: key.description)
            }
            let offset = try balance?.offset(for: scheduled, source: key.source, at: at, db: db) ?? 0
            let mode: AnswerPayload.Mode
            if let settings = scheduler.standardSettings {
                // A standard scheduler travels as its name and settings: every device computes the same.
                mode = .standard(
                    scheduler: scheduler.kind.rawValue, timeZone: Replayer.zoneName(settings.calendar), fuzz: settings.fuzz, balance: offset)
            } else {
                // Any other scheduler's result travels as it is.
                if let balance { scheduled = LoadBalancer.move(scheduled, by: offset, at: at, calendar: balance.calendar) }
                let recalled = scheduler.recalled(answer)
                let after = ItemProgress(
                    key: key, state: scheduled.state, due: scheduled.due, introduced: before?.introduced ?? at, lastReview: at,
                    reviews: (before?.reviews ?? 0) + 1, lapses: (before?.lapses ?? 0) + (recalled ? 0 : 1))
                mode = .recorded(recalled: recalled, after: Array(try log.encoder.encode(after)))
            }
            let payload = AnswerPayload(
                answer: answer, durationMilliseconds: Int64((duration * 1000).rounded()), sessionDay: sessionDay, mode: mode)
            let logged = try log.appendLocal(.answer, key, payload.bytes, wall: wall)
            try log.finish()
            var replayer = Replayer()
            guard let result = replayer.answer(logged.event, to: before) else {
                throw ProgressError(.database, "the answer's event does not replay", at: .item(key.description))
            }
            try Self.saveAppended(&log, logged, result.after, row: row, place: position, replayer: &replayer)
            if before == nil, let position {
                // Answered at the frontier: every item before the next place has been seen.
                try db.execute(
                    sql: "UPDATE content SET newFrontier = ? WHERE source = ? AND newFrontier = ?",
                    arguments: [position + 1, key.source, position])
            }
            return Self.reviewRecord(logged, before: before, after: result.after, recalled: result.recalled)
        }
    }

    /// Writes many items' progress in one transaction (an import from another app or device, a
    /// restore); existing rows with the same keys are replaced. Each item is a `setProgress`
    /// event in the log (so it syncs like an answer). Given the content the items belong to, each
    /// row also keeps its item's place there, as an answer does, so the first queue finds it at once.
    public func importItems(_ items: [ItemProgress], content: StudyMaterial? = nil) throws(ProgressError) {
        let wall = Self.milliseconds(Date())
        try write { db in
            var log = try LogTransaction(db)
            var replayer = Replayer()
            for item in items {
                var shared = item
                shared.orphan = false
                let logged = try log.appendLocal(.setProgress, item.key, Array(try log.encoder.encode(shared)), wall: wall)
                try Self.saveAppended(&log, logged, item, row: try Self.loggedRow(db, item.key), place: content?.position(of: item.key), replayer: &replayer)
            }
            try log.finish()
        }
    }

    /// Writes the row an event this device just appended leaves: `after`, if the event is the
    /// item's last in replay order (as it is unless the log holds events from a device whose
    /// clock is far ahead); otherwise the item replayed from its first event.
    static func saveAppended(
        _ log: inout LogTransaction, _ logged: LoggedEvent, _ after: ItemProgress, row: LoggedRow?, place: Int?, replayer: inout Replayer
    ) throws {
        let key = logged.event.key
        if let applied = row?.applied, !applied.lexicographicallyPrecedes(logged.event.orderKey) {
            _ = try replayItem(&log, key, replayer: &replayer, orphan: row?.progress.orphan ?? false, place: place)
        } else {
            var latest = row?.latestAnswer
            if logged.event.kind == .answer { latest = max(latest ?? .min, logged.event.wall) }
            try save(after, db: log.db, place: place, logged: (logged.event.orderKey, latest), encoder: log.encoder)
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
            var log = try LogTransaction(db)
            // This device's events of the source, newest first: the first answer still counting.
            let own = try Row.fetchAll(
                db,
                sql: """
                    SELECT o.seq, k.item, k.direction FROM ownEvent o JOIN eventKey k ON k.key = o.key
                    WHERE k.source = ? AND k.item != '' ORDER BY o.seq DESC
                    """, arguments: [source])
            for row in own {
                let key = ItemKey(source: source, item: row[1], direction: row[2])
                let seq: Int64 = row[0]
                if let target = try log.events(of: key).first(where: { $0.seq == seq }), target.event.kind == .answer, !target.cancelled {
                    return try Self.undo(target, log: &log, place: place)
                }
            }
            throw ProgressError(.nothingToUndo, "no answer to take back", at: .item(source))
        }
    }

    /// Takes back the answer recorded as `record` (its ``ReviewRecord/id``), as ``undoLast(source:)`` does.
    @discardableResult
    func undo(_ record: ReviewRecord, place: (ItemKey) -> Int?) throws(ProgressError) -> ReviewRecord {
        try write { db in
            var log = try LogTransaction(db)
            guard let target = try log.events(of: record.key).first(where: { $0.seq == record.id }), target.event.kind == .answer, !target.cancelled
            else {
                throw ProgressError(.nothingToUndo, "that answer is already taken back", at: .item(record.key.description))
            }
            return try Self.undo(target, log: &log, place: place)
        }
    }

    /// Appends an undo of `target` and replays its item without it.
    static func undo(_ target: LoggedEvent, log: inout LogTransaction, place: (ItemKey) -> Int?) throws -> ReviewRecord {
        let key = target.event.key
        let orphan = try loggedRow(log.db, key)?.progress.orphan ?? false
        var replayer = Replayer()
        var undone: ReviewRecord?
        _ = replayer.replay(try log.events(of: key)) { logged, before, after, recalled in
            if logged.seq == target.seq { undone = reviewRecord(logged, before: before, after: after, recalled: recalled) }
        }
        guard var undone else { throw ProgressError(.nothingToUndo, "the answer does not replay", at: .item(key.description)) }
        _ = try log.appendLocal(.undo, key, target.event.id.bytes, wall: milliseconds(Date()))
        try log.finish()
        let progress = try replayItem(&log, key, replayer: &replayer, orphan: orphan)
        if progress == nil {
            // The item is unseen again: the new-item frontier goes back to its place (to the
            // top when its place is not known).
            try log.db.execute(
                sql: "UPDATE content SET newFrontier = min(newFrontier, ?) WHERE source = ?", arguments: [place(key) ?? 0, key.source])
        }
        undone.undone = true
        return undone
    }

    /// Resets an item: unseen again, as if never answered (the answers stay in the log).
    public func reset(_ key: ItemKey) throws(ProgressError) {
        try write { db in
            var log = try LogTransaction(db)
            _ = try log.appendLocal(.reset, key, [], wall: Self.milliseconds(Date()))
            try log.finish()
            var replayer = Replayer()
            _ = try Self.replayItem(&log, key, replayer: &replayer, orphan: nil)
            try db.execute(sql: "UPDATE content SET newFrontier = 0 WHERE source = ?", arguments: [key.source])
        }
    }

    /// Counts a completed session day for `source` (the Leitner calendar's clock), once per
    /// learner date.
    public func completeSessionDay(source: String, on date: String) throws(ProgressError) {
        try write { db in
            let completedOn = try String.fetchOne(db, sql: "SELECT completedOn FROM sessionDay WHERE source = ?", arguments: [source])
            guard completedOn != date else { return }
            var log = try LogTransaction(db)
            _ = try log.appendLocal(.sessionDayCompleted, ItemKey(source: source, item: ""), Array(date.utf8), wall: Self.milliseconds(Date()))
            try log.finish()
            try Self.replaySessionDay(&log, source: source)
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
                guard let result else { throw ProgressError(.database, "the transaction returned nothing", at: .file(path)) }
                return result
            }
        } catch {
            throw Self.wrap(error, path: path)
        }
    }
}
