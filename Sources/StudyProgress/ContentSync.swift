import Foundation
import GRDB
// SQLite's C API, as GRDB itself imports it: its module under SwiftPM, the system's otherwise.
#if canImport(GRDBSQLite)
import GRDBSQLite
#else
import SQLite3
#endif
import StudyEngine

// Content sync: which items are in the mounted content, where, and the new-item frontier.

extension ProgressStore {
    /// What this version writes before a content fingerprint. The item table's `position` column
    /// is no longer kept up to date by the sync (the queue places rows by key instead); versions
    /// before this one trust that column when the stored fingerprint equals the content's, so the
    /// prefix makes them sync again rather than trust stale places. Both forms read as synced here.
    static let fingerprintPrefix = "places-by-key:"

    /// Brings the items of `source` in line with the content: those `position` finds no place for
    /// become orphans (kept, not shown), the others are live again. The new-item frontier is set to
    /// the first place of the content no item holds. Skipped when the content's `fingerprint` is
    /// the one seen last time. Returns how many items changed.
    ///
    /// One transaction; only rows whose orphan flag changes are written (a content update that
    /// moves every item writes nothing per item).
    @discardableResult
    public func syncContent(source: String, fingerprint: String, position: (ItemKey) -> Int?) throws(ProgressError) -> Int {
        try syncContent(source: source, fingerprint: fingerprint) { row in
            position(ItemKey(source: source, item: Self.text(row, 3), direction: Self.text(row, 4)))
        }
    }

    /// ``syncContent(source:fingerprint:position:)`` with the places of a material's index, found
    /// from the rows' bytes.
    @discardableResult
    func syncContent(source: String, fingerprint: String, places: PositionIndex) throws(ProgressError) -> Int {
        try syncContent(source: source, fingerprint: fingerprint) { row in Self.place(row, places) }
    }

    /// The sync, with `place` reading a row of `position, orphan, -, item, direction`.
    private func syncContent(source: String, fingerprint: String, place: (OpaquePointer) -> Int?) throws(ProgressError) -> Int {
        // The usual case, content unchanged: one read, no write lock.
        if try contentFingerprint(source: source) == fingerprint { return 0 }
        return try write { db in
            guard try Self.storedFingerprint(db, source: source) != fingerprint else { return 0 }
            var held: [Bool] = []
            var flips: [(item: String, direction: String, orphan: Bool)] = []
            try Self.rows(db, "SELECT position, orphan, NULL, item, direction FROM item INDEXED BY item_due WHERE source = ?", [source]) { row in
                let at = place(row)
                if let at, at >= 0 {
                    if at >= held.count { held.append(contentsOf: repeatElement(false, count: at + 1 - held.count)) }
                    held[at] = true
                }
                if (Self.int(row, 1) == 1) != (at == nil) { flips.append((Self.text(row, 3), Self.text(row, 4), at == nil)) }
            }
            let update = try db.cachedStatement(sql: "UPDATE item SET orphan = ? WHERE source = ? AND item = ? AND direction = ?")
            for flip in flips { try update.execute(arguments: [flip.orphan, source, flip.item, flip.direction]) }
            // A new fingerprint: new items are looked for from the content's first unseen place.
            try db.execute(
                sql: "INSERT OR REPLACE INTO content (source, fingerprint, newFrontier) VALUES (?, ?, ?)",
                arguments: [source, Self.fingerprintPrefix + fingerprint, held.firstIndex(of: false) ?? held.count])
            return flips.count
        }
    }

    /// The fingerprint the last sync stored, without this version's prefix.
    static func storedFingerprint(_ db: Database, source: String) throws -> String? {
        try String.fetchOne(db, sql: "SELECT fingerprint FROM content WHERE source = ?", arguments: [source]).map { stored in
            stored.hasPrefix(fingerprintPrefix) ? String(stored.dropFirst(fingerprintPrefix.count)) : stored
        }
    }

    /// The fingerprint of the content ``syncContent(source:fingerprint:position:)`` last saw.
    public func contentFingerprint(source: String) throws(ProgressError) -> String? {
        try read { db in try Self.storedFingerprint(db, source: source) }
    }

    /// The position in the content (of this `fingerprint`) before which every item has been seen.
    public func newFrontier(source: String, fingerprint: String) throws(ProgressError) -> Int {
        try read { db in
            try Int.fetchOne(
                db, sql: "SELECT newFrontier FROM content WHERE source = ? AND fingerprint IN (?, ?)",
                arguments: [source, fingerprint, Self.fingerprintPrefix + fingerprint]) ?? 0
        }
    }

    /// Records that every item before `position` of the content with `fingerprint` has been seen.
    public func setNewFrontier(source: String, fingerprint: String, to position: Int) throws(ProgressError) {
        try write { db in
            try db.execute(
                sql: "UPDATE content SET newFrontier = ? WHERE source = ? AND fingerprint IN (?, ?)",
                arguments: [position, source, fingerprint, Self.fingerprintPrefix + fingerprint])
        }
    }

    /// Which of the content's `count` places hold an item the learner has seen (orphans aside):
    /// one read of the source's rows on the covering index, each placed by its key's tag.
    func seenPlaces(source: String, places: PositionIndex, count: Int) throws(ProgressError) -> [Bool] {
        try read { db in
            var held = Array(repeating: false, count: count)
            try Self.rows(db, "SELECT position, orphan, NULL, item, direction FROM item INDEXED BY item_due WHERE source = ?", [source]) { row in
                if let at = Self.place(row, places), at >= 0, at < count { held[at] = true }
            }
            return held
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
}
