import Foundation
import GRDB
// SQLite's C API, as GRDB itself imports it: its module under SwiftPM, the system's otherwise.
#if canImport(GRDBSQLite)
import GRDBSQLite
#else
import SQLite3
#endif

/// One of GRDB's cached statements driven through SQLite's C API: bound, stepped and read
/// without GRDB's per-call bookkeeping (arguments as existentials, regions, authorizer). The
/// event log's loops (a merge writes 100,000 rows) use it; everything else goes through GRDB.
///
/// The statement stays GRDB's (`db.cachedStatement`): compiled once per connection, finalized
/// by GRDB. A `RawStatement` lives inside one transaction closure and is reset before each use.
struct RawStatement {
    /// GRDB's statement, kept so it is not finalized while in use.
    private let statement: Statement
    /// The `sqlite3_stmt`.
    let handle: OpaquePointer
    /// The connection, for error messages.
    private let connection: OpaquePointer?
    /// The SQL, for error messages.
    private let sql: String

    /// The cached statement for `sql` on `db`, reset and unbound.
    init(_ db: Database, _ sql: String) throws {
        statement = try db.cachedStatement(sql: sql)
        handle = statement.sqliteStatement
        connection = db.sqliteConnection
        self.sql = sql
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }

    /// SQLite copies what is bound (`SQLITE_TRANSIENT`): the Swift buffer may go away at once.
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    /// Binds an integer to parameter `index` (1-based).
    func bind(_ index: Int32, _ value: Int64) { sqlite3_bind_int64(handle, index, value) }

    /// Binds bytes as a blob (an empty array is an empty blob, not NULL).
    func bind(_ index: Int32, _ bytes: [UInt8]) {
        bytes.withUnsafeBytes { buffer in
            if let base = buffer.baseAddress {
                sqlite3_bind_blob(handle, index, base, Int32(buffer.count), Self.transient)
            } else {
                sqlite3_bind_zeroblob(handle, index, 0)
            }
        }
    }

    /// Binds an event id as its 16 big-endian bytes (``EventID/bytes``), from the stack: the
    /// array that property makes costs three allocations, once per event a merge inserts.
    func bind(_ index: Int32, _ id: EventID) {
        let raw = (id.high.bigEndian, id.low.bigEndian)
        withUnsafeBytes(of: raw) { buffer in
            _ = sqlite3_bind_blob(handle, index, buffer.baseAddress, Int32(buffer.count), Self.transient)
        }
    }

    /// Binds text.
    func bind(_ index: Int32, _ text: String) { sqlite3_bind_text(handle, index, text, -1, Self.transient) }

    /// Binds NULL.
    func bindNull(_ index: Int32) { sqlite3_bind_null(handle, index) }

    /// Binds a number.
    func bind(_ index: Int32, _ value: Double) { sqlite3_bind_double(handle, index, value) }

    /// Binds an optional integer (NULL for `nil`).
    func bind(_ index: Int32, _ value: Int64?) {
        if let value { bind(index, value) } else { bindNull(index) }
    }

    /// Binds an optional number (NULL for `nil`).
    func bind(_ index: Int32, _ value: Double?) {
        if let value { bind(index, value) } else { bindNull(index) }
    }

    /// Binds optional bytes (NULL for `nil`).
    func bind(_ index: Int32, _ bytes: [UInt8]?) {
        if let bytes { bind(index, bytes) } else { bindNull(index) }
    }

    /// Steps once: `true` for a row, `false` when done; an error is a `DatabaseError`.
    func step() throws -> Bool {
        let code = sqlite3_step(handle)
        if code == SQLITE_ROW { return true }
        if code == SQLITE_DONE { return false }
        let message = connection.map { String(cString: sqlite3_errmsg($0)) } ?? "SQLite error \(code)"
        sqlite3_reset(handle)
        throw DatabaseError(resultCode: ResultCode(rawValue: code), message: message, sql: sql)
    }

    /// Runs a statement that returns no rows, then resets it for the next use.
    func run() throws {
        _ = try step()
        reset()
    }

    /// Resets the statement (its bindings stay) for the next use.
    func reset() { sqlite3_reset(handle) }

    /// Rows the last run changed.
    var changes: Int { connection.map { Int(sqlite3_changes($0)) } ?? 0 }

    // MARK: Columns of the current row

    /// Column `index` (0-based) as an integer (0 for NULL).
    func int64(_ index: Int32) -> Int64 { sqlite3_column_int64(handle, index) }

    /// Column `index` as a number (0 for NULL).
    func double(_ index: Int32) -> Double { sqlite3_column_double(handle, index) }

    /// Whether column `index` holds a blob (not text).
    func isBlob(_ index: Int32) -> Bool { sqlite3_column_type(handle, index) == SQLITE_BLOB }

    /// Whether column `index` is NULL.
    func isNull(_ index: Int32) -> Bool { sqlite3_column_type(handle, index) == SQLITE_NULL }

    /// Column `index` as bytes (a copy).
    func bytes(_ index: Int32) -> [UInt8] {
        // The pointer first, then the size (SQLite's documented order).
        guard let base = sqlite3_column_blob(handle, index) else { return [] }
        let count = Int(sqlite3_column_bytes(handle, index))
        return count > 0 ? Array(UnsafeRawBufferPointer(start: base, count: count)) : []
    }

    /// Column `index` as text (invalid UTF-8 repaired, NULL as empty).
    func text(_ index: Int32) -> String {
        guard let base = sqlite3_column_text(handle, index) else { return "" }
        let count = Int(sqlite3_column_bytes(handle, index))
        return String(decoding: UnsafeBufferPointer(start: base, count: count), as: UTF8.self)
    }
}
