import Foundation
import GRDB
import StudyEngine

// The schema: one migration per version, and the retry that lets two processes create one file.

extension ProgressStore {
    /// Brings the schema up to date. GRDB's migrator reads which migrations are applied before it
    /// takes the write lock, so a second process opening a file at the same moment runs the same
    /// migration after the first committed it, and fails ("table item already exists"). That
    /// failure is harmless when another process applied migrations meanwhile: each migration is
    /// its own transaction, so the other may still be running the next one, and the migrator is
    /// asked again (it then skips what is done) until the schema is complete. A failure while no
    /// one else made progress is a real one.
    static func migrate(_ pool: DatabasePool) throws {
        while true {
            let before = try pool.read { db in try migrator.appliedIdentifiers(db) }
            do {
                try migrator.migrate(pool)
                return
            } catch let error as DatabaseError where error.resultCode != .SQLITE_BUSY {
                let after = try pool.read { db in try migrator.appliedIdentifiers(db) }
                if try pool.read({ db in try migrator.hasCompletedMigrations(db) }) { return }
                guard after.isStrictSuperset(of: before) else { throw error }
            }
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
        migrator.registerMigration("v2: the learner's seed") { db in
            // One row: the learner's own random 64 bits, drawn once (for a new file and for one an
            // older version made) and never changed. They fix the order a question's choices are
            // shown in (ChoiceOrder), so it is the same in every session and on every device the
            // file goes to. SQLite's INTEGER is signed: the bits are kept as an Int64.
            try db.execute(sql: """
                CREATE TABLE learner (
                    id INTEGER PRIMARY KEY CHECK (id = 1),
                    seed INTEGER NOT NULL
                );
                """)
            try db.execute(
                sql: "INSERT INTO learner (id, seed) VALUES (1, ?)",
                arguments: [Int64(bitPattern: UInt64.random(in: .min ... .max))])
        }
        registerEventLog(&migrator)
        return migrator
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
}
