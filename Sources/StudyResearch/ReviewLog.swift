import Foundation
import StudyContent
import ErrorReporting
import StudyEngine

/// A learner's review log: one row per review, in time order (the format of py-fsrs's
/// `review-log-12k.csv`: `card_id,review_rating,review_time,review_duration`).
///
/// The reader is strict, because a wrong figure from a silently skipped row is worse than an
/// error: every problem is a ``ReviewLogError`` naming the file, the line and the field.
public struct ReviewLog: Sendable, Hashable {
    /// One review.
    public struct Entry: Sendable, Hashable {
        /// The card's id, as written.
        public var cardID: String
        /// The rating, 1 (Again) to 4 (Easy).
        public var rating: FSRSRating
        /// When the review happened.
        public var time: Date
        /// How long it took, in milliseconds, when the log says.
        public var durationMilliseconds: Int?
        /// The line of the file (the header is line 1).
        public var row: Int
        /// The card's number in the log: 0 for the first card reviewed, 1 for the next new one…
        /// (set by ``ReviewLog``, so per-card state can live in an array).
        public internal(set) var cardIndex = 0

        /// An entry with every value given.
        public init(cardID: String, rating: FSRSRating, time: Date, durationMilliseconds: Int? = nil, row: Int) {
            self.cardID = cardID
            self.rating = rating
            self.time = time
            self.durationMilliseconds = durationMilliseconds
            self.row = row
        }

        /// Recalled: the rating is above Again.
        public var recalled: Bool { rating != .again }
    }

    /// The columns the reader knows.
    public static let columns = ["card_id", "review_rating", "review_time", "review_duration"]
    /// The columns a log must have.
    public static let requiredColumns = ["card_id", "review_rating", "review_time"]

    /// The reviews in time order.
    public let entries: [Entry]
    /// Each card's entries in time order, cards in the order of their first review; the
    /// integers are positions in ``entries``.
    public let cards: [[Int]]

    /// A log of `entries`, which must be in time order; numbers the cards.
    public init(entries: [Entry]) throws(ReviewLogError) {
        for (previous, entry) in zip(entries, entries.dropFirst()) where entry.time < previous.time {
            throw ReviewLogError(.outOfTimeOrder, "\(entry.time.isoText) is before the previous review's \(previous.time.isoText) (line \(previous.row))", at: .line(entry.row, field: "review_time"))
        }
        var numbered = entries
        var index: [String: Int] = [:]
        var cards: [[Int]] = []
        for offset in numbered.indices {
            let id = numbered[offset].cardID
            if let card = index[id] {
                numbered[offset].cardIndex = card
                cards[card].append(offset)
            } else {
                index[id] = cards.count
                numbered[offset].cardIndex = cards.count
                cards.append([offset])
            }
        }
        self.entries = numbered
        self.cards = cards
    }

    /// Reads the CSV file at `path`; errors name the file and the line.
    public init(contentsOfFile path: String) throws(ReviewLogError) {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw ReviewLogError(.unreadableFile, "cannot read the review log: \(error.localizedDescription)", at: .file(path))
        }
        do throws(ReviewLogError) {
            try self.init(csv: data)
        } catch {
            var located = error
            located.location.file = path
            throw located
        }
    }

    /// Parses CSV text: a header naming known columns, then one review per line.
    public init(csv: Data) throws(ReviewLogError) {
        let records: [DelimitedRows.Record]
        do {
            records = try DelimitedRows.parse([UInt8](csv), delimiter: UInt8(ascii: ","))
        } catch {
            switch error {
            case .unclosedQuote(let line): throw ReviewLogError(.malformedRow, "a quoted field opened on this line is never closed", at: .line(line))
            case .textAfterQuote(let line): throw ReviewLogError(.malformedRow, "text after a quoted field's closing quote", at: .line(line))
            }
        }
        // Fields trimmed of spaces and tabs; a line of nothing but those is no review.
        let lines = records.map { (row: $0.line, fields: $0.fields.map(Self.trimmed)) }.filter { !($0.fields.count == 1 && $0.fields[0].isEmpty) }
        guard let header = lines.first else {
            throw ReviewLogError(.notEnoughReviews, "the review log is empty: it needs a header and at least one review", at: .line(1))
        }
        var index: [String: Int] = [:]
        for (position, rawName) in header.fields.enumerated() {
            let name = String(decoding: rawName, as: UTF8.self)
            guard Self.columns.contains(name) else {
                throw ReviewLogError(.unknownColumn, "unknown column; a review log has \(Self.columns.joined(separator: ", "))", at: .line(header.row, field: name))
            }
            guard index[name] == nil else {
                throw ReviewLogError(.malformedRow, "the column is named twice", at: .line(header.row, field: name))
            }
            index[name] = position
        }
        for name in Self.requiredColumns where index[name] == nil {
            throw ReviewLogError(.missingColumn, "a review log needs the column \(name)", at: .line(header.row, field: name))
        }
        let card = index["card_id"] ?? 0
        let rating = index["review_rating"] ?? 0
        let time = index["review_time"] ?? 0
        let duration = index["review_duration"]
        var entries: [Entry] = []
        entries.reserveCapacity(lines.count)
        for line in lines.dropFirst() {
            guard line.fields.count == header.fields.count else {
                throw ReviewLogError(.malformedRow, "expected \(header.fields.count) fields, found \(line.fields.count)", at: .line(line.row))
            }
            guard !line.fields[card].isEmpty else {
                throw ReviewLogError(.malformedRow, "the card id is empty", at: .line(line.row, field: "card_id"))
            }
            let id = String(decoding: line.fields[card], as: UTF8.self)
            guard let value = Self.integer(line.fields[rating]) else {
                throw ReviewLogError(.malformedRow, "'\(String(decoding: line.fields[rating], as: UTF8.self))' is not a whole number", at: .line(line.row, field: "review_rating"))
            }
            guard let grade = FSRSRating(rawValue: value) else {
                throw ReviewLogError(.gradeOutOfRange, "ratings are 1 (Again) to 4 (Easy), got \(value)", at: .line(line.row, field: "review_rating"))
            }
            let date: Date
            do throws(ISO8601Time.Failure) {
                date = try ISO8601Time.parse(line.fields[time])
            } catch {
                throw ReviewLogError(.malformedRow, error.detail, at: .line(line.row, field: "review_time"))
            }
            var milliseconds: Int?
            if let duration, !line.fields[duration].isEmpty {
                guard let ms = Self.integer(line.fields[duration]), ms >= 0 else {
                    throw ReviewLogError(.malformedRow, "'\(String(decoding: line.fields[duration], as: UTF8.self))' is not a duration in milliseconds", at: .line(line.row, field: "review_duration"))
                }
                milliseconds = ms
            }
            entries.append(Entry(cardID: id, rating: grade, time: date, durationMilliseconds: milliseconds, row: line.row))
        }
        guard !entries.isEmpty else {
            throw ReviewLogError(.notEnoughReviews, "the review log has a header but no reviews", at: .line(header.row))
        }
        try self.init(entries: entries)
    }

    /// The field without spaces or tabs around it.
    private static func trimmed(_ field: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        var field = field
        while let first = field.first, first == 32 || first == 9 { field = field.dropFirst() }
        while let last = field.last, last == 32 || last == 9 { field = field.dropLast() }
        return field
    }

    /// A decimal integer (optional minus sign, at most 18 digits), or `nil`.
    private static func integer(_ field: ArraySlice<UInt8>) -> Int? {
        var digits = field[...]
        var sign = 1
        if digits.first == 45 {
            sign = -1
            digits = digits.dropFirst()
        }
        guard !digits.isEmpty, digits.count <= 18 else { return nil }
        var value = 0
        for byte in digits {
            guard byte >= 48 && byte <= 57 else { return nil }
            value = value * 10 + Int(byte - 48)
        }
        return sign * value
    }
}

/// A strict ISO 8601 reader for review times: `YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM)`.
enum ISO8601Time {
    struct Failure: Error { let detail: String }

    /// The instant `text` names; a time without a zone offset is refused (it would be ambiguous).
    static func parse(_ field: ArraySlice<UInt8>) throws(Failure) -> Date {
        let b = Array(field)
        let text = String(decoding: field, as: UTF8.self)
        var i = 0
        func number(_ digits: Int) throws(Failure) -> Int {
            guard i + digits <= b.count else { throw Failure(detail: "'\(text)' is not an ISO 8601 time (YYYY-MM-DDTHH:MM:SS±HH:MM)") }
            var value = 0
            for _ in 0..<digits {
                let c = b[i]
                guard c >= 48 && c <= 57 else { throw Failure(detail: "'\(text)' is not an ISO 8601 time (YYYY-MM-DDTHH:MM:SS±HH:MM)") }
                value = value * 10 + Int(c - 48)
                i += 1
            }
            return value
        }
        func expect(_ characters: [UInt8]) throws(Failure) {
            guard i < b.count, characters.contains(b[i]) else { throw Failure(detail: "'\(text)' is not an ISO 8601 time (YYYY-MM-DDTHH:MM:SS±HH:MM)") }
            i += 1
        }
        let year = try number(4)
        try expect([45])
        let month = try number(2)
        try expect([45])
        let day = try number(2)
        try expect([84, 116, 32])
        let hour = try number(2)
        try expect([58])
        let minute = try number(2)
        try expect([58])
        let second = try number(2)
        var fraction = 0.0
        if i < b.count, b[i] == 46 {
            i += 1
            var scale = 0.1
            let start = i
            while i < b.count, b[i] >= 48, b[i] <= 57 {
                fraction += Double(b[i] - 48) * scale
                scale /= 10
                i += 1
            }
            guard i > start else { throw Failure(detail: "'\(text)' has a decimal point without digits") }
        }
        guard i < b.count else { throw Failure(detail: "'\(text)' needs a time zone offset (Z or ±HH:MM)") }
        var offset = 0
        if b[i] == 90 || b[i] == 122 {
            i += 1
        } else if b[i] == 43 || b[i] == 45 {
            let sign = b[i] == 45 ? -1 : 1
            i += 1
            let hours = try number(2)
            if i < b.count, b[i] == 58 { i += 1 }
            let minutes = try number(2)
            guard hours <= 23, minutes <= 59 else { throw Failure(detail: "'\(text)' has an impossible zone offset") }
            offset = sign * (hours * 3_600 + minutes * 60)
        } else {
            throw Failure(detail: "'\(text)' needs a time zone offset (Z or ±HH:MM)")
        }
        guard i == b.count else { throw Failure(detail: "'\(text)' has characters after the time") }
        guard (1...12).contains(month), (1...daysIn(month: month, year: year)).contains(day), hour <= 23, minute <= 59, second <= 60 else {
            throw Failure(detail: "'\(text)' is not a real date and time")
        }
        let days = daysFromCivil(year: year, month: month, day: day)
        let seconds = Double(days * 86_400 + hour * 3_600 + minute * 60 + second - offset) + fraction
        return Date(timeIntervalSince1970: seconds)
    }

    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's algorithm).
    static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
