import Foundation
import GRDB
import StudyEngine

/// The event log as one write transaction sees it: keys numbered, events read per key in replay
/// order, events appended (this device's, or merged), this device's clock and arrival counter
/// kept in memory and written back by ``finish()``.
///
/// The log's layout (schema v3): `event` is clustered by (key number, clock, device, id), so a
/// key's events are one range of the table, read in replay order without a sort, and a merge
/// that inserts its events in that order touches each key's pages once. An event's id fixes its
/// key, clock and device, so the primary key also refuses an event that is already there.
struct LogTransaction {
    let db: Database
    /// This file's device.
    let device: DeviceID
    /// The last clock this device made or saw.
    private(set) var clock: HybridClock
    /// The last arrival number given.
    private(set) var seq: Int64
    /// Key numbers looked up or made in this transaction.
    private var numbers: [ItemKey: Int64] = [:]
    /// One encoder for every item row this transaction writes (JSONEncoder is costly to make).
    let encoder = ProgressStore.encoder
    /// Prepared on the first insert (a reader never compiles a write).
    private var insertEvent: RawStatement?
    private let selectEvents: RawStatement

    /// The log in `db`'s write transaction (a missing device row is a damaged database).
    init(_ db: Database) throws {
        self.db = db
        let state = try ProgressStore.deviceState(db)
        device = state.device
        clock = state.clock
        seq = state.seq
        selectEvents = try RawStatement(
            db, "SELECT clock, device, id, seq, wall, kind, payload FROM event WHERE key = ? ORDER BY clock, device, id")
    }

    // MARK: Keys

    /// The number of `key` in this file; with `create`, a new one if it has none.
    mutating func number(of key: ItemKey, create: Bool) throws -> Int64? {
        if let known = numbers[key] { return known }
        let select = try RawStatement(db, "SELECT key FROM eventKey WHERE source = ? AND item = ? AND direction = ?")
        select.bind(1, key.source)
        select.bind(2, key.item)
        select.bind(3, key.direction)
        var found: Int64?
        if try select.step() { found = select.int64(0) }
        select.reset()
        if found == nil, create {
            let insert = try RawStatement(db, "INSERT INTO eventKey (source, item, direction) VALUES (?, ?, ?)")
            insert.bind(1, key.source)
            insert.bind(2, key.item)
            insert.bind(3, key.direction)
            try insert.run()
            found = db.lastInsertedRowID
        }
        if let found { numbers[key] = found }
        return found
    }

    // MARK: Reading

    /// The log in `db`'s read transaction: reading only.
    init(reading db: Database) throws { try self.init(db) }

    /// The events of the key numbered `number` (whose key is `key`), in replay order, cancellation
    /// marked (``LoggedEvent/markCancelled(_:)``).
    func events(_ number: Int64, key: ItemKey) throws -> [LoggedEvent] {
        selectEvents.reset()
        selectEvents.bind(1, number)
        var result: [LoggedEvent] = []
        while try selectEvents.step() {
            let idBytes = selectEvents.bytes(2)
            guard let id = EventID(bytes: idBytes) else {
                selectEvents.reset()
                throw ProgressError(.damagedDatabase, "an event id is not 16 bytes", at: .item(key.description))
            }
            let event = ProgressEvent(
                id: id, device: DeviceID(rawValue: Self.unsigned(selectEvents.int64(1))),
                clock: HybridClock(rawValue: Self.unsigned(selectEvents.int64(0))), wall: selectEvents.int64(4),
                kind: ProgressEvent.Kind(rawValue: UInt8(truncatingIfNeeded: selectEvents.int64(5))), key: key, payload: selectEvents.bytes(6))
            result.append(LoggedEvent(event: event, seq: selectEvents.int64(3), cancelled: false))
        }
        selectEvents.reset()
        LoggedEvent.markCancelled(&result)
        return result
    }

    /// A clock or device as the `event` table keeps it: SQLite's integers are signed, so the top
    /// bit is flipped and the table's order is the unsigned order replay uses.
    static func stored(_ value: UInt64) -> Int64 { Int64(bitPattern: value ^ (1 << 63)) }

    /// A clock or device from the `event` table.
    static func unsigned(_ value: Int64) -> UInt64 { UInt64(bitPattern: value) ^ (1 << 63) }

    /// Every event of `key` in replay order, cancellation marked (none if the key has no number).
    mutating func events(of key: ItemKey) throws -> [LoggedEvent] {
        guard let number = try number(of: key, create: false) else { return [] }
        return try events(number, key: key)
    }

    // MARK: Writing

    /// Inserts `event` under key number `number` unless it is there; returns its arrival number,
    /// `nil` when it was there. `sent`: a remote object carries it already.
    mutating func insert(_ event: ProgressEvent, number: Int64, sent: Bool) throws -> Int64? {
        try withUnsafePointer(to: event) { try insert($0, number: number, sent: sent) }
    }

    /// ``insert(_:number:sent:)-(ProgressEvent,_,_)`` of the event at `event` (a merge's, read
    /// in place).
    mutating func insert(_ pointer: UnsafePointer<ProgressEvent>, number: Int64, sent: Bool) throws -> Int64? {
        let insertEvent = try insertEvent ?? RawStatement(
            db, "INSERT OR IGNORE INTO event (key, clock, device, id, seq, wall, kind, payload, sent) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)")
        self.insertEvent = insertEvent
        insertEvent.reset()
        insertEvent.bind(1, number)
        insertEvent.bind(2, Self.stored(pointer.pointee.clock.rawValue))
        insertEvent.bind(3, Self.stored(pointer.pointee.device.rawValue))
        insertEvent.bind(4, pointer.pointee.id)
        insertEvent.bind(5, seq + 1)
        insertEvent.bind(6, pointer.pointee.wall)
        insertEvent.bind(7, Int64(pointer.pointee.kind.rawValue))
        insertEvent.bind(8, pointer.pointee.payload)
        if sent { insertEvent.bind(9, Int64(1)) } else { insertEvent.bindNull(9) }
        try insertEvent.run()
        guard insertEvent.changes == 1 else { return nil }
        seq += 1
        return seq
    }

    /// Appends an event this device makes now: the next clock, a new id, recorded as this
    /// device's own (undo finds it there).
    mutating func appendLocal(_ kind: ProgressEvent.Kind, _ key: ItemKey, _ payload: [UInt8], wall: Int64) throws -> LoggedEvent {
        clock = clock.next(wallMilliseconds: wall)
        let event = ProgressEvent(id: .random(), device: device, clock: clock, wall: wall, kind: kind, key: key, payload: payload)
        guard let number = try number(of: key, create: true), let arrived = try insert(event, number: number, sent: false) else {
            throw ProgressError(.database, "a new event id was already in the log")
        }
        let own = try RawStatement(db, "INSERT INTO ownEvent (seq, key) VALUES (?, ?)")
        own.bind(1, arrived)
        own.bind(2, number)
        try own.run()
        return LoggedEvent(event: event, seq: arrived, cancelled: false)
    }

    /// Moves this device's clock on to `seen` (a merged event's), never back.
    mutating func observe(_ seen: HybridClock) { clock = max(clock, seen) }

    /// Writes this device's clock and arrival counter back (before the transaction commits).
    func finish() throws {
        let update = try RawStatement(db, "UPDATE device SET clock = ?, seq = ? WHERE id = 1")
        update.bind(1, Int64(bitPattern: clock.rawValue))
        update.bind(2, seq)
        try update.run()
    }
}
