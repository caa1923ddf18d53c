import Foundation
import GRDB
// SQLite's C API, as GRDB itself imports it: its module under SwiftPM, the system's otherwise.
#if canImport(GRDBSQLite)
import GRDBSQLite
#else
import SQLite3
#endif
import StudyEngine

// The queue's fast path: the due rows read on the covering index, column by column with
// sqlite3_column_*, no Row and no strings: each row is placed by the bytes of its key.

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
    /// The place in the content an older version of this library stored with the row (`nil` for
    /// rows written since): a content update may have moved the item; ``StudyMaterial/position(of:)``
    /// says where it is now.
    public var position: Int?
}

extension ProgressStore {
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
                    position: Self.int(row, 6).flatMap { PositionIndex.isTag(Int64($0)) ? nil : $0 }))
            }
            return items
        }
    }

    /// The due rows as the queue reads them, column by column: tens of thousands of rows, each
    /// placed in the content by the bytes of its id and direction (no strings); rows the content
    /// does not have are left out.
    struct DueColumns {
        /// The place in the content.
        var position: [Int] = []
        /// The last review (seconds since 1970), NaN when none.
        var lastReview: [Double] = []
        /// The FSRS stability, NaN when none.
        var stability: [Double] = []
        var count: Int { position.count }
    }

    func dueColumns(source: String, before limit: Date, sessionDay: Int?, places: PositionIndex) throws(ProgressError) -> DueColumns {
        try read { db in
            // Rows with a tag are placed after the query, in one tight loop of independent probes
            // (the processor overlaps their cache misses); the others by their bytes at once.
            var columns = DueColumns()
            var tagged: [(row: Int, tag: Int64)] = []
            try Self.dueQueries(db, columns: "position, lastReview, stability, item, direction", source: source, before: limit, sessionDay: sessionDay) { row in
                let stored = sqlite3_column_type(row, 0) == SQLITE_INTEGER ? sqlite3_column_int64(row, 0) : -1
                if PositionIndex.isTag(stored) {
                    tagged.append((columns.position.count, stored))
                    columns.position.append(-1)
                } else {
                    columns.position.append(places.position(item: Self.bytes(row, 3), direction: Self.bytes(row, 4)) ?? -1)
                }
                columns.lastReview.append(Self.double(row, 1) ?? .nan)
                columns.stability.append(Self.double(row, 2) ?? .nan)
            }
            var ambiguous: [Int] = []
            for (row, tag) in tagged {
                if let known = places.position(tag: tag) { columns.position[row] = known ?? -1 } else { ambiguous.append(row) }
            }
            if !ambiguous.isEmpty {
                // Keys sharing a tag (never seen in practice): read those rows' keys again, in the
                // same read transaction, so the same rows in the same order.
                var index = 0
                var wanted = Set(ambiguous)
                try Self.dueQueries(db, columns: "item, direction", source: source, before: limit, sessionDay: sessionDay) { row in
                    if wanted.remove(index) != nil {
                        columns.position[index] = places.position(item: Self.bytes(row, 0), direction: Self.bytes(row, 1)) ?? -1
                    }
                    index += 1
                }
            }
            // Rows the content does not have are left out.
            if columns.position.contains(-1) {
                var kept = DueColumns()
                for index in columns.position.indices where columns.position[index] >= 0 {
                    kept.position.append(columns.position[index])
                    kept.lastReview.append(columns.lastReview[index])
                    kept.stability.append(columns.stability[index])
                }
                columns = kept
            }
            return columns
        }
    }

    /// The place in the content of a row read as `position, …, item, direction` (columns 0, 3
    /// and 4): by its key's tag, or, for a row written before tags or a shared tag, by its bytes.
    static func place(_ row: OpaquePointer, _ places: PositionIndex) -> Int? {
        if sqlite3_column_type(row, 0) == SQLITE_INTEGER {
            let stored = sqlite3_column_int64(row, 0)
            if PositionIndex.isTag(stored), let known = places.position(tag: stored) { return known }
        }
        return places.position(item: bytes(row, 3), direction: bytes(row, 4))
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

    /// A text column's UTF-8 bytes, valid until the statement steps again. Read as a blob: SQLite
    /// hands over the bytes where they lie, where `sqlite3_column_text` may copy them to add a NUL.
    static func bytes(_ row: OpaquePointer, _ column: Int32) -> UnsafeRawBufferPointer {
        guard let text = sqlite3_column_blob(row, column) else { return UnsafeRawBufferPointer(start: nil, count: 0) }
        return UnsafeRawBufferPointer(start: text, count: Int(sqlite3_column_bytes(row, column)))
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
}
