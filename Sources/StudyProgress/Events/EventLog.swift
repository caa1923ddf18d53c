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
    // MARK: This device

    /// This file's device, the last clock it made or saw, and the last arrival number.
    static func deviceState(_ db: Database) throws -> (device: DeviceID, clock: HybridClock, seq: Int64) {
        guard let row = try Row.fetchOne(db, sql: "SELECT device, clock, seq FROM device WHERE id = 1") else {
            throw ProgressError(.damagedDatabase, "the device row is missing")
        }
        let device: Int64 = row[0]
        let clock: Int64 = row[1]
        return (DeviceID(rawValue: UInt64(bitPattern: device)), HybridClock(rawValue: UInt64(bitPattern: clock)), row[2])
    }

    /// Milliseconds since 1970 of `date`, rounded down: the precision of an event's time, within
    /// the range a hybrid clock holds (1970 to the year 10889; a clock before 1970 reads 1970), so
    /// every time an event carries is one every device reads back and can compute with.
    package static func milliseconds(_ date: Date) -> Int64 {
        let value = (date.timeIntervalSince1970 * 1000).rounded(.down)
        guard value.isFinite else { return 0 }
        return Int64(max(0, min(Double(HybridClock.maximumMilliseconds), value)))
    }

    // MARK: Item rows

    /// An item row as the log sees it: the progress, the last event it reflects (its order key)
    /// and the latest wall time among the item's answers.
    struct LoggedRow {
        var progress: ItemProgress
        var applied: [UInt8]?
        var latestAnswer: Int64?
    }

    /// What a merge first needs of an item's row, without decoding its state: the last event it
    /// reflects, the latest wall time, the orphan flag. `nil` if there is no row.
    static func rowBookkeeping(_ db: Database, _ key: ItemKey) throws -> (applied: [UInt8]?, latestAnswer: Int64?, orphan: Bool)? {
        let select = try RawStatement(db, "SELECT applied, latestAnswer, orphan FROM item WHERE source = ? AND item = ? AND direction = ?")
        select.bind(1, key.source)
        select.bind(2, key.item)
        select.bind(3, key.direction)
        defer { select.reset() }
        guard try select.step() else { return nil }
        return (select.isNull(0) ? nil : select.bytes(0), select.isNull(1) ? nil : select.int64(1), select.int64(2) != 0)
    }

    /// The row of `key`, `nil` if there is none: read through a prepared statement by column
    /// number (a merge reads one per item it applies events to).
    static func loggedRow(_ db: Database, _ key: ItemKey) throws -> LoggedRow? {
        let select = try RawStatement(
            db,
            """
            SELECT state, due, dueSessionDay, introduced, lastReview, reviews, lapses, orphan, applied, latestAnswer
            FROM item WHERE source = ? AND item = ? AND direction = ?
            """)
        select.bind(1, key.source)
        select.bind(2, key.item)
        select.bind(3, key.direction)
        defer { select.reset() }
        guard try select.step() else { return nil }
        let state: CardState
        do {
            state = select.isBlob(0)
                ? try CompactCoder.decode(CardState.self, from: select.bytes(0))
                : try decoder.decode(CardState.self, from: Data(select.text(0).utf8))
        } catch {
            throw ProgressError(.damagedDatabase, "the stored state does not decode: \(error)", at: .item(key.description))
        }
        let due: Due = !select.isNull(1) ? .date(Date(timeIntervalSince1970: select.double(1))) : !select.isNull(2) ? .sessionDay(Int(select.int64(2))) : .never
        let progress = ItemProgress(
            key: key, state: state, due: due, introduced: Date(timeIntervalSince1970: select.double(3)),
            lastReview: select.isNull(4) ? nil : Date(timeIntervalSince1970: select.double(4)), reviews: Int(select.int64(5)),
            lapses: Int(select.int64(6)), orphan: select.int64(7) != 0)
        return LoggedRow(progress: progress, applied: select.isNull(8) ? nil : select.bytes(8), latestAnswer: select.isNull(9) ? nil : select.int64(9))
    }

    /// Writes an item's row as replay left it (`nil`: no row), with the last event it reflects and
    /// the latest wall time among its answers (what finds today's answers).
    static func writeItem(
        _ db: Database, _ key: ItemKey, _ progress: ItemProgress?, applied: [UInt8]?, latestAnswer: Int64?, place: Int? = nil,
        encoder: JSONEncoder = ProgressStore.encoder
    ) throws {
        guard let progress else {
            try db.cachedStatement(sql: "DELETE FROM item WHERE source = ? AND item = ? AND direction = ?")
                .execute(arguments: [key.source, key.item, key.direction])
            return
        }
        try save(progress, db: db, place: place, logged: (applied, latestAnswer), encoder: encoder)
    }

    /// The latest wall time among the answers of `events` (`nil` without one).
    static func latestAnswer(_ events: some Sequence<LoggedEvent>) -> Int64? {
        events.lazy.filter { $0.event.kind == .answer }.map(\.event.wall).max()
    }

    /// Replays `key`'s events from its first and writes its row (keeping the row's orphan flag);
    /// returns the progress. What any change that is not an append at the end does.
    static func replayItem(
        _ log: inout LogTransaction, _ key: ItemKey, replayer: inout Replayer, orphan: Bool?, place: Int? = nil
    ) throws -> ItemProgress? {
        let all = try log.events(of: key)
        var progress = replayer.replay(all)
        if let orphan { progress?.orphan = orphan }
        try writeItem(
            log.db, key, progress, applied: all.last?.event.orderKey, latestAnswer: latestAnswer(all), place: place, encoder: log.encoder)
        return progress
    }

    // MARK: Merging

    /// How far ahead of this device's wall clock a merged clock may move this device's own: a
    /// device a day fast still orders after what it saw, one years fast cannot drag every
    /// device's clock with it (its events still merge, in their place).
    static let clockAdvanceLimit: Int64 = 48 * 3_600_000

    /// Adds `events` to the log (those whose id is there already are skipped) and recomputes what
    /// they touch, in one transaction. `sent`: a remote object carries them already (so sync
    /// never sends them back); `false` for a backup, whose events this device then sends on.
    package func merge(_ events: [ProgressEvent], sent: Bool) throws(ProgressError) -> MergeSummary {
        try write { db in try Self.merge(events, sent: sent, db: db) }
    }

    /// The merge, inside a write transaction.
    ///
    /// Per key touched: an item whose row reflects every event before the earliest new one (its
    /// `applied` order key is smaller, and no new event is an undo) gets the new events applied
    /// on top of its row: none of them can be in the log already, since the row's `applied` is the
    /// largest order key of the item's events. Any other item is replayed from its first event,
    /// the log's and the new ones together. Then the new events are inserted in key order, and the
    /// session days of the decks and the learner's seed they touch are computed again.
    static func merge(_ events: [ProgressEvent], sent: Bool, db: Database) throws -> MergeSummary {
        guard !events.isEmpty else { return MergeSummary() }
        // Read in place: an element of a buffer is borrowed, where one of an array passed on to a
        // mutating call is copied (a retain of its payload and strings per use).
        return try events.withUnsafeBufferPointer { buffer in try merge(buffer, sent: sent, db: db) }
    }

    private static func merge(_ events: UnsafeBufferPointer<ProgressEvent>, sent: Bool, db: Database) throws -> MergeSummary {
        var summary = MergeSummary()
        // Events are handed on by address: passing `events[index]` to a call copied it (its key's
        // strings and payload retained and released) for every event.
        guard let base = events.baseAddress else { return summary }
        var log = try LogTransaction(db)
        var replayer = Replayer()
        // The events by key, as indices (no event is copied), and each event's place as integers.
        var groupOf: [ItemKey: Int] = [:]
        var groups: [[Int]] = []
        for index in events.indices {
            if let group = groupOf[events[index].key] {
                groups[group].append(index)
            } else {
                groupOf[events[index].key] = groups.count
                groups.append([index])
            }
        }
        // A loop, not `map(\.order)`: the key path copied each event (its key's strings, payload).
        var order: [EventOrder] = []
        order.reserveCapacity(events.count)
        for index in events.indices { order.append(events[index].order) }
        var inserts: [(number: Int64, indices: [Int])] = []
        var sources = Set<String>()
        var decks = Set<String>()
        var seed = false
        for (key, group) in groupOf {
            var incoming = groups[group]
            incoming.sort { order[$0] < order[$1] }
            // The same event twice in what arrived (a snapshot and a segment): once.
            var previous: EventOrder?
            incoming.removeAll { index in
                defer { previous = order[index] }
                return order[index] == previous
            }
            let known = try log.number(of: key, create: false)
            guard let number = try known ?? log.number(of: key, create: true) else { continue }
            var new = incoming
            if !key.item.isEmpty {
                let bookkeeping = known == nil ? nil : try rowBookkeeping(db, key)
                let first = order[incoming[0]]
                if let applied = bookkeeping?.applied.flatMap(EventOrder.init(bytes:)), applied < first,
                    !incoming.contains(where: { events[$0].kind == .undo }), let row = try loggedRow(db, key)
                {
                    // Every new event comes after what the row reflects: applied on top of it.
                    var progress: ItemProgress? = row.progress
                    var latest = row.latestAnswer
                    for index in incoming {
                        replayer.apply(base + index, to: &progress)
                        if events[index].kind == .answer { latest = max(latest ?? .min, events[index].wall) }
                    }
                    try writeItem(db, key, progress, applied: order[incoming[incoming.count - 1]].bytes, latestAnswer: latest, encoder: log.encoder)
                } else {
                    // From the item's first event: the log's and the new ones, in order.
                    let existing = known == nil ? [] : try log.events(number, key: key)
                    if !existing.isEmpty {
                        let ids = Set(existing.map(\.event.id))
                        new = incoming.filter { !ids.contains(events[$0].id) }
                    }
                    guard !new.isEmpty else { continue }
                    var cancelled = Set<EventID>()
                    for logged in existing where logged.event.kind == .undo {
                        if let target = EventID(bytes: logged.event.payload) { cancelled.insert(target) }
                    }
                    for index in new where events[index].kind == .undo {
                        if let target = EventID(bytes: events[index].payload) { cancelled.insert(target) }
                    }
                    var progress: ItemProgress?
                    var latest: Int64?
                    var last = first
                    var a = 0
                    var b = 0
                    while a < existing.count || b < new.count {
                        if b == new.count || (a < existing.count && existing[a].event.order < order[new[b]]) {
                            if !cancelled.contains(existing[a].event.id) { replayer.apply(existing[a].event, to: &progress) }
                            if existing[a].event.kind == .answer { latest = max(latest ?? .min, existing[a].event.wall) }
                            last = existing[a].event.order
                            a += 1
                        } else {
                            if !cancelled.contains(events[new[b]].id) { replayer.apply(base + new[b], to: &progress) }
                            if events[new[b]].kind == .answer { latest = max(latest ?? .min, events[new[b]].wall) }
                            last = order[new[b]]
                            b += 1
                        }
                    }
                    if let orphan = bookkeeping?.orphan { progress?.orphan = orphan }
                    try writeItem(db, key, progress, applied: last.bytes, latestAnswer: latest, encoder: log.encoder)
                    summary.itemsReplayedFromStart += 1
                }
                summary.itemsReplayed += 1
                sources.insert(key.source)
            } else if known != nil {
                let ids = Set(try log.events(number, key: key).map(\.event.id))
                new = incoming.filter { !ids.contains(events[$0].id) }
            }
            if key.item.isEmpty, !new.isEmpty {
                if key.source.isEmpty { seed = true } else { decks.insert(key.source) }
            }
            if !new.isEmpty { inserts.append((number, new)) }
        }
        // In key order: each key's range of the table is written once, in order.
        inserts.sort { $0.number < $1.number }
        var latest = HybridClock(rawValue: 0)
        for (number, indices) in inserts {
            for index in indices where try log.insert(base + index, number: number, sent: sent) != nil {
                summary.added += 1
                latest = max(latest, events[index].clock)
            }
        }
        // Causality: this device's next events come after what it has seen (within a bound).
        log.observe(min(latest, HybridClock(milliseconds: milliseconds(Date()) + clockAdvanceLimit)))
        try log.finish()
        for source in decks { try replaySessionDay(&log, source: source) }
        if seed { try replaySeed(&log) }
        // The content sync runs again at the next session: new rows may be items the content no
        // longer has, and the new-item frontier may have moved either way.
        for source in sources { try db.cachedStatement(sql: "DELETE FROM content WHERE source = ?").execute(arguments: [source]) }
        return summary
    }

    /// A deck's session-day row from its completion events.
    static func replaySessionDay(_ log: inout LogTransaction, source: String) throws {
        let events = try log.events(of: ItemKey(source: source, item: ""))
        if let counter = sessionDayCounter(from: events) {
            try log.db.execute(
                sql: "INSERT OR REPLACE INTO sessionDay (source, day, completedOn) VALUES (?, ?, ?)",
                arguments: [source, counter.day, counter.completedOn])
        } else {
            try log.db.execute(sql: "DELETE FROM sessionDay WHERE source = ?", arguments: [source])
        }
    }

    /// The learner's seed: the earliest seed event's (the learner's own key, all empty).
    static func replaySeed(_ log: inout LogTransaction) throws {
        let events = try log.events(of: ItemKey(source: "", item: ""))
        guard let first = events.first(where: { !$0.cancelled && $0.event.kind == .learnerSeed && $0.event.payload.count == 8 }) else { return }
        let seed = first.event.payload.reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        try log.db.execute(sql: "INSERT OR REPLACE INTO learner (id, seed) VALUES (1, ?)", arguments: [Int64(bitPattern: seed)])
    }
}
