import ErrorReporting

/// An error reading a review log: a row that cannot be read, a header the reader does not
/// know, reviews out of time order or too few, a file that cannot be read.
///
/// Its ``location`` names the file, the 1-based line (the header is line 1) and the column. The
/// codes are those the study engine used for review logs before they moved here with the
/// reader, spelled the same, and `gradeOutOfRange` for a rating FSRS does not have, as the
/// engine names a grade out of its scale.
public struct ReviewLogError: CodedError, Hashable {
    /// What went wrong; the raw value is the code's name in the error vocabulary.
    public enum Code: String, ErrorCode {
        /// A row that cannot be read: wrong field count, a field that does not parse, a column
        /// named twice.
        case malformedRow
        /// A header naming a column the reader does not know.
        case unknownColumn
        /// A header without a required column.
        case missingColumn
        /// A row earlier in time than the row before it.
        case outOfTimeOrder
        /// A log with no reviews, or too few to do what was asked.
        case notEnoughReviews
        /// A file that cannot be read at all.
        case unreadableFile
        /// A rating outside FSRS's scale, 1 (Again) to 4 (Easy).
        case gradeOutOfRange
    }

    /// What went wrong.
    public var code: Code
    /// Why, in words: the offending value and what was expected.
    public var detail: String
    /// The file, the line and the column, those the error is about.
    public var location: ErrorLocation
    /// Always `nil`: a review-log error is where the problem is.
    public var underlying: Never?

    /// An error with its code, the reason, and its place.
    public init(_ code: Code, _ detail: String = "", at location: ErrorLocation = ErrorLocation(), underlying: Never? = nil) {
        self.code = code
        self.detail = detail
        self.location = location
        self.underlying = underlying
    }

    /// `StudyResearch`.
    public static var library: String { "StudyResearch" }
}
