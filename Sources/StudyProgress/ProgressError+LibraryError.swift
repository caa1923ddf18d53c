import ErrorReporting
import StudyContent
import StudyEngine

extension ProgressError: LibraryError {
    /// `StudyProgress`.
    public static var library: String { "StudyProgress" }

    /// The code's raw value (`damagedDatabase`).
    public var codeName: String { code.rawValue }

    /// The database (or content) file and the item (`source/item`).
    public var location: ErrorLocation { ErrorLocation(file: path, item: item) }

    /// The `StudyEngineError` or `ContentError` underneath, for ``Code/engine`` and
    /// ``Code/content``.
    public var underlyingError: (any LibraryError)? {
        switch underlying {
        case .engine(let error): error
        case .content(let error): error
        case nil: nil
        }
    }
}
