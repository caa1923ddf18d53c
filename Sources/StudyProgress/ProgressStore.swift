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
    /// undone answer's as if it had counted).
    public func reviews(source: String, since start: Date = .distantPast, includingUndone: Bool = false) throws(ProgressError) -> [ReviewRecord] {
        try read { db in
            var answers = try Self.loggedEvents(
                db, "SELECT \(Self.eventColumns) FROM event WHERE source = ? AND kind = ? AND wall >= ? ORDER BY ord",
                [source, Int(ProgressEvent.Kind.answer.rawValue), Self.milliseconds(start)])
            if !includingUndone { answers.removeAll { $0.cancelled } }
            var records: [Int64: ReviewRecord] = [:]
            var replayer = Replayer()
            var done = Set<ItemKey>()
            for answer in answers where done.insert(answer.event.key).inserted {
                _ = replayer.replay(try Self.itemEvents(db, answer.event.key)) { logged, before, after, recalled in
                    records[logged.seq] = Self.reviewRecord(logged, before: before, after: after, recalled: recalled)
                }
            }
            return answers.compactMap { records[$0.seq] }
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
            let row = try Self.itemRow(db, key)
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
                mode = .recorded(recalled: recalled, after: Array(try Self.encoder.encode(after)))
            }
            let payload = AnswerPayload(
                answer: answer, durationMilliseconds: Int64((duration * 1000).rounded()), sessionDay: sessionDay, mode: mode)
            let logged = try Self.appendLocal(db, .answer, key, payload.bytes, wall: wall)
            var replayer = Replayer()
            guard let result = replayer.answer(logged.event, to: before) else {
                throw ProgressError(.database, item: key.description, "the answer's event does not replay")
            }
            if let applied = row?.applied, !applied.lexicographicallyPrecedes(logged.event.orderKey) {
                // The row reflects an event after this one (merged from a device whose clock is far
                // ahead): the item is replayed in log order.
                let all = try Self.itemEvents(db, key)
                var progress = replayer.replay(all)
                progress?.orphan = before?.orphan ?? false
                try Self.writeItem(db, key, progress, applied: all.last?.event.orderKey)
            } else {
                try Self.save(result.after, db: db, place: position, applied: logged.event.orderKey)
            }
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
        let encoder = Self.encoder
        let wall = Self.milliseconds(Date())
        try write { db in
            for item in items {
                var shared = item
                shared.orphan = false
                let logged = try Self.appendLocal(db, .setProgress, item.key, Array(try encoder.encode(shared)), wall: wall)
                try Self.save(item, db: db, place: content?.position(of: item.key), applied: logged.event.orderKey)
            }
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
            guard let target = try Self.loggedEvents(
                db, "SELECT \(Self.eventColumns) FROM event WHERE source = ? AND kind = ? AND cancelled = 0 AND device = ? ORDER BY seq DESC LIMIT 1",
                [source, Int(ProgressEvent.Kind.answer.rawValue), Int64(bitPattern: device.rawValue)]
            ).first else {
                throw ProgressError(.nothingToUndo, path: nil, item: source, "no answer to take back")
            }
            return try Self.undo(target, db: db, place: place)
        }
    }

    /// Takes back the answer recorded as `record` (its ``ReviewRecord/id``), as ``undoLast(source:)`` does.
    @discardableResult
    func undo(_ record: ReviewRecord, place: (ItemKey) -> Int?) throws(ProgressError) -> ReviewRecord {
        try write { db in
            guard let target = try Self.loggedEvents(
                db, "SELECT \(Self.eventColumns) FROM event WHERE seq = ? AND kind = ? AND cancelled = 0",
                [record.id, Int(ProgressEvent.Kind.answer.rawValue)]
            ).first else {
                throw ProgressError(.nothingToUndo, path: nil, item: record.key.description, "that answer is already taken back")
            }
            return try Self.undo(target, db: db, place: place)
        }
    }

    /// Appends an undo of `target`, cancels it and replays its item without it.
    static func undo(_ target: LoggedEvent, db: Database, place: (ItemKey) -> Int?) throws -> ReviewRecord {
        let key = target.event.key
        let orphan = try itemRow(db, key)?.progress.orphan ?? false
        var replayer = Replayer()
        var undone: ReviewRecord?
        _ = replayer.replay(try itemEvents(db, key)) { logged, before, after, recalled in
            if logged.seq == target.seq { undone = reviewRecord(logged, before: before, after: after, recalled: recalled) }
        }
        guard var undone else { throw ProgressError(.nothingToUndo, item: key.description, "the answer does not replay") }
        _ = try appendLocal(db, .undo, key, target.event.id.bytes, wall: milliseconds(Date()))
        try db.execute(sql: "UPDATE event SET cancelled = 1 WHERE seq = ?", arguments: [target.seq])
        let all = try itemEvents(db, key)
        var progress = replayer.replay(all)
        progress?.orphan = orphan
        try writeItem(db, key, progress, applied: all.last?.event.orderKey)
        if progress == nil {
            // The item is unseen again: the new-item frontier goes back to its place (to the
            // top when its place is not known).
            try db.execute(
                sql: "UPDATE content SET newFrontier = min(newFrontier, ?) WHERE source = ?", arguments: [place(key) ?? 0, key.source])
        }
        undone.undone = true
        return undone
    }

    /// Resets an item: unseen again, as if never answered (the answers stay in the log).
    public func reset(_ key: ItemKey) throws(ProgressError) {
        try write { db in
            let logged = try Self.appendLocal(db, .reset, key, [], wall: Self.milliseconds(Date()))
            let all = try Self.itemEvents(db, key)
            var replayer = Replayer()
            let progress = replayer.replay(all)
            try Self.writeItem(db, key, progress, applied: all.last?.event.orderKey ?? logged.event.orderKey)
            try db.execute(sql: "UPDATE content SET newFrontier = 0 WHERE source = ?", arguments: [key.source])
        }
    }

    /// Counts a completed session day for `source` (the Leitner calendar's clock), once per
    /// learner date.
    public func completeSessionDay(source: String, on date: String) throws(ProgressError) {
        try write { db in
            let completedOn = try String.fetchOne(db, sql: "SELECT completedOn FROM sessionDay WHERE source = ?", arguments: [source])
            guard completedOn != date else { return }
            _ = try Self.appendLocal(db, .sessionDayCompleted, ItemKey(source: source, item: ""), Array(date.utf8), wall: Self.milliseconds(Date()))
            try Self.replaySessionDay(db, source: source)
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
