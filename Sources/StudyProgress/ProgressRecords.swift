import Foundation
import GRDB
import StudyEngine

// Records: how an item row and a review row read (GRDB records) and write (JSON states, dates as
// seconds).

extension ProgressStore {
    static var encoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        encoder.dateEncodingStrategy = .secondsSince1970
        return encoder
    }

    static var decoder: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        return decoder
    }

    static func json<T: Encodable>(_ value: T, _ encoder: JSONEncoder) throws -> String {
        String(decoding: try encoder.encode(value), as: UTF8.self)
    }


    /// Writes an item row. Its `position` column holds the key's tag
    /// (``PositionIndex/tag(of:place:)``), which a content update never makes wrong, with the
    /// item's place when the writer knows it as a hint; older versions kept the place there.
    /// `logged` is the log's bookkeeping (schema v3): the last event the row reflects (its order
    /// key) and the latest wall time among the item's answers; without it those columns are not
    /// written (a schema before the event log has none).
    static func save(
        _ progress: ItemProgress, db: Database, place: Int? = nil, logged: (applied: [UInt8]?, latestAnswer: Int64?)? = nil,
        encoder: JSONEncoder = ProgressStore.encoder
    ) throws {
        var due: Double?
        var dueDay: Int?
        switch progress.due {
        case .date(let date): due = date.timeIntervalSince1970
        case .sessionDay(let day): dueDay = day
        case .never: break
        }
        // Through a prepared statement bound by number: a merge writes one row per item it touches.
        let statement = try RawStatement(
            db,
            """
            INSERT INTO item
            (source, item, direction, scheduler, state, due, dueSessionDay, stability, introduced, lastReview, reviews, lapses, orphan, position\(logged != nil ? ", applied, latestAnswer" : ""))
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?\(logged != nil ? ", ?, ?" : ""))
            ON CONFLICT (source, item, direction) DO UPDATE SET
                scheduler = excluded.scheduler, state = excluded.state, due = excluded.due,
                dueSessionDay = excluded.dueSessionDay, stability = excluded.stability,
                introduced = excluded.introduced, lastReview = excluded.lastReview, reviews = excluded.reviews,
                lapses = excluded.lapses, orphan = excluded.orphan, position = excluded.position\(logged != nil ? ", applied = excluded.applied, latestAnswer = excluded.latestAnswer" : "")
            """)
        statement.bind(1, progress.key.source)
        statement.bind(2, progress.key.item)
        statement.bind(3, progress.key.direction)
        statement.bind(4, progress.state.kind.rawValue)
        statement.bind(5, try CompactCoder.encode(progress.state))
        statement.bind(6, due)
        statement.bind(7, dueDay.map(Int64.init))
        statement.bind(8, progress.stability)
        statement.bind(9, progress.introduced.timeIntervalSince1970)
        statement.bind(10, progress.lastReview?.timeIntervalSince1970)
        statement.bind(11, Int64(progress.reviews))
        statement.bind(12, Int64(progress.lapses))
        statement.bind(13, Int64(progress.orphan ? 1 : 0))
        statement.bind(14, PositionIndex.tag(of: progress.key, place: place))
        if let logged {
            statement.bind(15, logged.applied)
            statement.bind(16, logged.latestAnswer)
        }
        try statement.run()
    }
}

/// An `item` row, as GRDB reads it: one item's progress, its state decoded from the compact
/// coder's bytes (schema v3 writes them) or from JSON (what older versions wrote).
struct ItemRow: FetchableRecord, TableRecord {
    /// The table.
    static let databaseTableName = "item"
    /// The progress the row holds.
    var progress: ItemProgress

    /// Reads the row; a state that does not decode is a damaged database.
    init(row: Row) throws {
        let key = ItemKey(source: row["source"], item: row["item"], direction: row["direction"])
        let state: CardState
        do {
            state = try Self.state(row["state"])
        } catch {
            throw ProgressError(.damagedDatabase, "the stored state does not decode: \(error)", at: .item(key.description))
        }
        let due: Due
        if let date: Double = row["due"] {
            due = .date(Date(timeIntervalSince1970: date))
        } else if let day: Int = row["dueSessionDay"] {
            due = .sessionDay(day)
        } else {
            due = .never
        }
        let last: Double? = row["lastReview"]
        progress = ItemProgress(
            key: key, state: state, due: due, introduced: Date(timeIntervalSince1970: row["introduced"]),
            lastReview: last.map(Date.init(timeIntervalSince1970:)), reviews: row["reviews"], lapses: row["lapses"],
            orphan: row["orphan"])
    }

    /// A stored state: compact bytes (a blob) or JSON (text).
    static func state(_ stored: DatabaseValue) throws -> CardState {
        switch stored.storage {
        case .blob(let data): return try CompactCoder.decode(CardState.self, from: Array(data))
        case .string(let text): return try ProgressStore.decoder.decode(CardState.self, from: Data(text.utf8))
        default: throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "the state is neither bytes nor text"))
        }
    }

}

/// A `review` row, as GRDB reads it: one answer in the log, with the progress before and after.
struct ReviewRow: FetchableRecord, TableRecord {
    /// The table.
    static let databaseTableName = "review"
    /// The answer the row holds.
    var record: ReviewRecord

    /// Reads the row; a column that does not decode is a damaged database.
    init(row: Row) throws {
        let decoder = ProgressStore.decoder
        let key = ItemKey(source: row["source"], item: row["item"], direction: row["direction"])
        func decode<T: Decodable>(_ type: T.Type, _ column: String) throws -> T {
            let text: String = row[column]
            do {
                return try decoder.decode(T.self, from: Data(text.utf8))
            } catch {
                throw ProgressError(.damagedDatabase, "review \(column) does not decode: \(error)", at: .item(key.description))
            }
        }
        let beforeText: String? = row["before"]
        record = ReviewRecord(
            id: row["id"], key: key, at: Date(timeIntervalSince1970: row["at"]), answer: try decode(Answer.self, "answer"),
            duration: Double(row["durationMs"] as Int) / 1000,
            before: beforeText == nil ? nil : try decode(ItemProgress.self, "before"),
            after: try decode(ItemProgress.self, "after"), recalled: row["recalled"], undone: row["undone"])
    }
}

extension ProgressStore {
    /// One item's row as progress, `nil` if the learner has not seen it: the one read of the row
    /// an answer makes.
    static func itemProgress(_ db: Database, _ key: ItemKey) throws -> ItemProgress? {
        try ItemRow.fetchOne(
            db, sql: "SELECT * FROM item WHERE source = ? AND item = ? AND direction = ?",
            arguments: [key.source, key.item, key.direction]
        )?.progress
    }
}
