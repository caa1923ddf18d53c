import ErrorReporting

extension ContentError {
    /// `StudyContent`.
    public static var library: String { "StudyContent" }
}
