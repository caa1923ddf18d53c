import ErrorReporting

extension StudyEngineError {
    /// `StudyEngine`.
    public static var library: String { "StudyEngine" }
}
