import ErrorReporting

extension ProgressError {
    /// `StudyProgress`.
    public static var library: String { "StudyProgress" }
}
