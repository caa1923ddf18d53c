import ErrorReporting
import StudyProgress

/// An error of progress sync: a stable code, why, where (its ``location``: the remote object or
/// file) and the progress store's error underneath.
///
/// Whatever the remote sends, a refusal is one of these, and nothing it refused is merged.
public struct SyncError: CodedError, Equatable {
    /// What went wrong. The raw value is stable: scripts and tests may match on it.
    public enum Code: String, ErrorCode {
        /// A learner key file or printable secret that is not one.
        case malformedKey
        /// The learner key does not open this learner's objects (another key, or another learner's).
        case wrongKey
        /// An object that fails authentication: changed, cut short, copied under another name or
        /// from another learner or device. Refused, never merged.
        case notAuthentic
        /// An authenticated object whose content does not read (written by a broken or newer app).
        case malformedObject
        /// An object larger than sync reads.
        case tooLarge
        /// The store refused the credentials or the request's signature.
        case accessDenied
        /// The object is not there (any more): another device deleted it after this one listed it.
        case notFound
        /// The store answered with an error status.
        case httpStatus
        /// The store could not be reached, or the connection broke.
        case network
        /// The store stopped sending.
        case timeout
        /// The sync was cancelled.
        case cancelled
        /// A folder remote or a backup file could not be read or written.
        case fileSystem
        /// A bad remote address, option or credential setting.
        case invalidArgument
        /// The progress file refused: the `ProgressError` underneath.
        case progress
    }

    /// What went wrong.
    public var code: Code
    /// Why, in words.
    public var detail: String
    /// The remote object, URL or file the error is about (as the location's `file`).
    public var location: ErrorLocation
    /// The progress store's error, for ``Code/progress``.
    public var underlying: ProgressError?

    /// An error with its code, the reason, its place and the error underneath.
    public init(_ code: Code, _ detail: String = "", at location: ErrorLocation = ErrorLocation(), underlying: ProgressError? = nil) {
        self.code = code
        self.detail = detail
        self.location = location
        self.underlying = underlying
    }

    /// The progress store's error, wrapped, at the progress file it names.
    public init(_ error: ProgressError) {
        self.init(.progress, at: .file(error.location.file), underlying: error)
    }
}

extension SyncError {
    /// `StudySync`.
    public static var library: String { "StudySync" }
}
