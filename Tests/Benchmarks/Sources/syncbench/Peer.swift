import CBenchSQLite
import Foundation

/// The peer: a plain SQLite copy of the same events, one row each, merged between files with
/// INSERT OR IGNORE through SQLite's C API. What a sync built on copying SQLite rows costs at
/// least: it neither seals nor verifies, and replays nothing.
enum Peer {
    static let schema = """
        PRAGMA journal_mode = WAL;
        PRAGMA synchronous = FULL;
        CREATE TABLE IF NOT EXISTS review (id BLOB PRIMARY KEY, device INTEGER NOT NULL, clock INTEGER NOT NULL, wall INTEGER NOT NULL,
          kind INTEGER NOT NULL, source TEXT NOT NULL, item TEXT NOT NULL, direction TEXT NOT NULL, payload BLOB NOT NULL);
        """

    /// Writes the events `device` made (its newest `newest`, or all) from a progress file into a
    /// new plain file, vacuumed.
    static func copyEvents(from progress: String, device: String, to path: String, newest: Int? = nil) throws {
        try? FileManager.default.removeItem(atPath: path)
        let db = try SQLite(path)
        try db.exec(schema)
        try db.exec("ATTACH '\(progress)' AS progress")
        // The progress file keeps devices (and clocks) with the top bit flipped, its keys numbered.
        let deviceNumber = Int64(bitPattern: (UInt64(device, radix: 16) ?? 0) ^ (1 << 63))
        let limit = newest.map { " ORDER BY e.seq DESC LIMIT \($0)" } ?? ""
        try db.exec("""
            INSERT INTO review SELECT e.id, e.device, e.clock, e.wall, e.kind, k.source, k.item, k.direction, e.payload
            FROM progress.event e JOIN progress.eventKey k ON k.key = e.key WHERE e.device = \(deviceNumber)\(limit)
            """)
        try db.exec("DETACH progress")
        try db.exec("PRAGMA wal_checkpoint(TRUNCATE); VACUUM")
    }

    /// Bytes of a database file (after a checkpoint: no WAL).
    static func fileSize(_ path: String) throws -> Int {
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        return (attributes[.size] as? Int) ?? 0
    }

    /// Seconds to merge every row of `other` into `path` in one durable transaction.
    static func merge(_ other: String, into path: String) throws -> Double {
        let db = try SQLite(path)
        try db.exec(schema)
        let start = monotonicSeconds()
        try db.exec("ATTACH '\(other)' AS other")
        try db.exec("BEGIN IMMEDIATE; INSERT OR IGNORE INTO review SELECT * FROM other.review; COMMIT")
        let seconds = monotonicSeconds() - start
        try db.exec("DETACH other")
        return seconds
    }

    /// Seconds to restore a plain file on a new device: read it, write it durably, open it and
    /// count its rows.
    static func restore(_ source: String, to target: String) throws -> Double {
        try? FileManager.default.removeItem(atPath: target)
        let start = monotonicSeconds()
        let bytes = try Data(contentsOf: URL(fileURLWithPath: source))
        guard FileManager.default.createFile(atPath: target, contents: bytes) else { throw Failure("cannot write \(target)") }
        let descriptor = open(target, O_RDONLY)
        fsync(descriptor)
        close(descriptor)
        let db = try SQLite(target)
        guard try db.integer("SELECT count(*) FROM review") > 0 else { throw Failure("\(target) has no rows") }
        return monotonicSeconds() - start
    }

    /// Bytes of the snapshots under a folder remote.
    static func snapshotBytes(_ folder: String) throws -> Int {
        var bytes = 0
        guard let walker = FileManager.default.enumerator(atPath: folder) else { return 0 }
        while let relative = walker.nextObject() as? String {
            if relative.contains("/snapshots/") { bytes += try fileSize(folder + "/" + relative) }
        }
        return bytes
    }
}
