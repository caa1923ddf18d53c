import CBenchSQLite
import Foundation
import StudySync

struct Failure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Seconds since an arbitrary start, from the monotonic clock.
func monotonicSeconds() -> Double { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 }

/// CPU seconds this process has used, on every thread (user and system).
func processCPUSeconds() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}

/// Wall-clock and CPU seconds of one run of something: on a machine shared with other work the
/// CPU time says what the run needed, the wall time what it got.
struct Timing {
    var wall: Double
    var cpu: Double
    static let none = Timing(wall: .infinity, cpu: .infinity)

    /// `wall (cpu)` in milliseconds.
    var text: String { String(format: "%.0f ms (%.0f)", wall * 1000, cpu * 1000) }
}

/// How long `body` took. With `phase`, its window on the monotonic clock goes to standard error
/// (`phase NAME START END`), so a profile recorded with that clock (`perf record -k mono`) can be
/// cut to it.
func timed(_ phase: String? = nil, isolation: isolated (any Actor)? = #isolation, _ body: () async throws -> Void) async rethrows -> Timing {
    let start = monotonicSeconds()
    let cpu = processCPUSeconds()
    try await body()
    let end = monotonicSeconds()
    if let phase { FileHandle.standardError.write(Data(("phase \(phase) " + String(format: "%.6f %.6f\n", start, end)).utf8)) }
    return Timing(wall: end - start, cpu: processCPUSeconds() - cpu)
}

/// A remote that counts what crosses it: requests, bytes read and written.
final class CountingRemote: SyncRemote, @unchecked Sendable {
    // @unchecked: the counters are behind `lock`.
    let base: any SyncRemote
    private let lock = NSLock()
    private var counts = (requests: 0, read: 0, written: 0)

    init(_ base: any SyncRemote) { self.base = base }

    var identity: String { base.identity }

    /// Requests, bytes read and bytes written since the last reset.
    var figures: (requests: Int, read: Int, written: Int) { locked { counts } }

    func reset() { locked { counts = (0, 0, 0) } }

    private func locked<T>(_ body: () -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        return body()
    }

    func list(prefix: String) async throws(SyncError) -> [RemoteObject] {
        locked { counts.requests += 1 }
        return try await base.list(prefix: prefix)
    }

    func get(_ name: String, limit: Int) async throws(SyncError) -> [UInt8] {
        let bytes = try await base.get(name, limit: limit)
        locked {
            counts.requests += 1
            counts.read += bytes.count
        }
        return bytes
    }

    func put(_ name: String, _ bytes: [UInt8]) async throws(SyncError) {
        locked {
            counts.requests += 1
            counts.written += bytes.count
        }
        try await base.put(name, bytes)
    }

    func delete(_ name: String) async throws(SyncError) {
        locked { counts.requests += 1 }
        try await base.delete(name)
    }
}

/// Bytes of every regular file under `folder`, and how many there are.
func folderSize(_ folder: String) -> (bytes: Int, files: Int) {
    var bytes = 0
    var files = 0
    guard let walker = FileManager.default.enumerator(atPath: folder) else { return (0, 0) }
    while let relative = walker.nextObject() as? String {
        var status = stat()
        guard lstat(folder + "/" + relative, &status) == 0, status.st_mode & S_IFMT == S_IFREG else { continue }
        bytes += Int(status.st_size)
        files += 1
    }
    return (bytes, files)
}

/// A SQLite connection through the C API, for the peers and for copying progress files.
final class SQLite {
    let handle: OpaquePointer

    init(_ path: String) throws {
        var db: OpaquePointer?
        guard sqlite3_open(path, &db) == SQLITE_OK, let db else { throw Failure("sqlite3_open \(path) failed") }
        handle = db
        sqlite3_busy_timeout(db, 5_000)
    }

    deinit { sqlite3_close(handle) }

    func exec(_ sql: String) throws {
        guard sqlite3_exec(handle, sql, nil, nil, nil) == SQLITE_OK else {
            throw Failure("sqlite: \(String(cString: sqlite3_errmsg(handle))) in \(sql.prefix(80))")
        }
    }

    func integer(_ sql: String) throws -> Int {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(handle, sql, -1, &statement, nil) == SQLITE_OK else {
            throw Failure("sqlite: \(String(cString: sqlite3_errmsg(handle)))")
        }
        defer { sqlite3_finalize(statement) }
        guard sqlite3_step(statement) == SQLITE_ROW else { throw Failure("sqlite: no row for \(sql)") }
        return Int(sqlite3_column_int64(statement, 0))
    }

    /// A consistent copy of the database at `path` (its WAL included): what a device that copied
    /// the file would have.
    static func copy(_ path: String, to target: String) throws {
        try? FileManager.default.removeItem(atPath: target)
        let source = try SQLite(path)
        try source.exec("VACUUM INTO '\(target)'")
    }
}
