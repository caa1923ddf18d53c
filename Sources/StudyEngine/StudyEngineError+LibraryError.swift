import ErrorReporting

extension StudyEngineError: LibraryError {
    /// `StudyEngine`.
    public static var library: String { "StudyEngine" }

    /// The code's raw value (`gradeOutOfRange`).
    public var codeName: String { code.rawValue }

    /// The file (a review log), its line and the column or state field.
    public var location: ErrorLocation { ErrorLocation(file: file, line: row, field: field) }

    /// `nil`: an engine error is where the problem is.
    public var underlyingError: (any LibraryError)? { nil }
}
