/// An error from the study engine: a stable code, where it happened (file, row, field) and why.
///
/// The engine never traps on data from a file or a user: a grade out of range, a state written by
/// another scheduler, a due date before the last review, a malformed review log all come back as
/// this error, with a one-line ``description`` a user can act on.
public struct StudyEngineError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong. The raw value (the case's name, as every library's codes are spelled) is
    /// stable: scripts and tests may match on it.
    public enum Code: String, Sendable, Hashable, CaseIterable {
        /// A grade outside the scheduler's scale (SM-2 0–5, FSRS 1–4).
        case gradeOutOfRange
        /// An answer kind the scheduler does not take (a grade for Leitner, right/wrong for SM-2).
        case answerNotAccepted
        /// A card state that another scheduler wrote.
        case stateFromAnotherScheduler
        /// A card state whose next due date is before its last review.
        case dueBeforeLastReview
        /// A card state with a value no scheduler writes (a negative count, a level out of range).
        case invalidState
        /// A retired (Leitner) or burned (staged) item: it is never reviewed again.
        case itemRetired
        /// A session-calendar review without the deck's session day.
        case missingSessionDay
        /// A scheduler setting out of its range (retention, steps, parameters, weights).
        case invalidConfiguration
        /// A review-log row that cannot be read: wrong field count, a field that does not parse.
        case malformedRow
        /// A review-log header naming a column the reader does not know.
        case unknownColumn
        /// A review-log header without a required column.
        case missingColumn
        /// A review-log row earlier in time than the row before it.
        case outOfTimeOrder
        /// A review log with no reviews, or too few to do what was asked.
        case notEnoughReviews
        /// A file that cannot be read at all.
        case unreadableFile
    }

    /// What went wrong.
    public var code: Code
    /// The file, when the error is about one.
    public var file: String?
    /// The 1-based line of the file (the header is line 1), when the error is about one.
    public var row: Int?
    /// The column or state field, when the error is about one.
    public var field: String?
    /// Why, in words: the offending value and what was expected.
    public var detail: String

    /// An error with its code, its place, and the reason.
    public init(_ code: Code, file: String? = nil, row: Int? = nil, field: String? = nil, _ detail: String) {
        self.code = code
        self.file = file
        self.row = row
        self.field = field
        self.detail = detail
    }

    /// One line: `FILE:ROW: FIELD: code: detail`, with the parts that apply.
    public var description: String {
        var place = ""
        if let file { place += file }
        if let row { place += place.isEmpty ? "row \(row)" : ":\(row)" }
        var parts: [String] = []
        if !place.isEmpty { parts.append(place) }
        if let field { parts.append(field) }
        parts.append(code.rawValue)
        parts.append(detail)
        return parts.joined(separator: ": ")
    }

    /// The same error, placed in `file`.
    package func located(in file: String) -> StudyEngineError {
        var copy = self
        copy.file = file
        return copy
    }
}
