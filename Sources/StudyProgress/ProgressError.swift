import ErrorReporting
import StudyContent
import StudyEngine

/// An error of the progress store or a session: a stable code, why, where (its ``location``: the
/// database file, the item) and the engine's or content's error underneath.
///
/// A damaged database file, one written by a newer version of the schema, a path that is a folder
/// or cannot be written: each is one of these, and the file is left as it was.
public struct ProgressError: CodedError, Equatable {
    /// What went wrong. The raw value (the case's name, as every library's codes are spelled) is
    /// stable: scripts and tests may match on it.
    public enum Code: String, ErrorCode {
        /// The file is not an SQLite database, or SQLite reports it corrupt.
        case damagedDatabase
        /// The database was written by a newer schema than this library knows.
        case newerSchema
        /// The database path names a folder.
        case isFolder
        /// The database (or its folder) cannot be written.
        case notWritable
        /// Any other SQLite failure, with SQLite's own message.
        case database
        /// No deck or bank with this id in the mounted packs.
        case unknownContent
        /// No item with this id in the deck or bank.
        case unknownItem
        /// An answer the session cannot take (a choice or grade out of range).
        case invalidAnswer
        /// Nothing to undo.
        case nothingToUndo
        /// The scheduler refused the answer or the stored state.
        case engine
        /// The content could not be read from the packs.
        case content
    }

    /// What went wrong.
    public var code: Code
    /// Why, in words (empty when the error underneath says it).
    public var detail: String
    /// The database file (or the pack or content) and the item (`source/item`), those the error
    /// is about.
    public var location: ErrorLocation
    /// The error underneath, for ``Code/engine`` and ``Code/content``, kept as a typed value.
    public var underlying: Underlying?

    /// The error of another library that a progress error carries.
    public enum Underlying: ErrorCause, Equatable {
        /// The scheduler refused the answer or the stored state.
        case engine(StudyEngineError)
        /// The content could not be read or does not hold what was asked for.
        case content(ContentError)

        /// The engine's or the content's error.
        public var libraryError: (any LibraryError)? {
            switch self {
            case .engine(let error): error
            case .content(let error): error
            }
        }
    }

    /// An error with its code, the reason, its place and the error underneath.
    public init(_ code: Code, _ detail: String = "", at location: ErrorLocation = ErrorLocation(), underlying: Underlying? = nil) {
        self.code = code
        self.detail = detail
        self.location = location
        self.underlying = underlying
    }

    /// The scheduler's refusal, about `item`.
    init(_ error: StudyEngineError, item: String? = nil) {
        self.init(.engine, at: .item(item), underlying: .engine(error))
    }

    /// Content that could not be read.
    init(_ error: ContentError) {
        self.init(.content, underlying: .content(error))
    }
}
