import ErrorReporting

/// An error from the study engine: a stable code, why, and where it happened (its ``location``:
/// a field, and a file and line when the value came from one).
///
/// The engine never traps on data from a file or a user: a grade out of range, a state written by
/// another scheduler, a due date before the last review, a setting out of range all come back as
/// this error, with a one-line ``description`` a user can act on. (A review log's problems are
/// StudyResearch's `ReviewLogError`.)
public struct StudyEngineError: CodedError, Hashable {
    /// What went wrong. The raw value (the case's name, as every library's codes are spelled) is
    /// stable: scripts and tests may match on it.
    public enum Code: String, ErrorCode {
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
    }

    /// What went wrong.
    public var code: Code
    /// Why, in words: the offending value and what was expected.
    public var detail: String
    /// The column or state field the error is about, and the file and 1-based line when the
    /// value came from one.
    public var location: ErrorLocation
    /// Always `nil`: an engine error is where the problem is.
    public var underlying: Never?

    /// An error with its code, the reason, and its place.
    public init(_ code: Code, _ detail: String = "", at location: ErrorLocation = ErrorLocation(), underlying: Never? = nil) {
        self.code = code
        self.detail = detail
        self.location = location
        self.underlying = underlying
    }
}
