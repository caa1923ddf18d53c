/// The four buttons a self-graded card offers (the learner says how well they recalled it), as
/// Anki and FSRS name them, rated 1 to 4. Each scheduler says what a grade means to it
/// (``ReviewScheduler/answer(forCardGrade:)``): FSRS takes the rating itself, SM-2 a grade 1, 3,
/// 4 or 5, the binary schedulers wrong for Again and right otherwise.
public enum CardGrade: Int, Sendable, Hashable, Codable, CaseIterable, CustomStringConvertible {
    /// Forgotten.
    case again = 1
    /// Recalled with serious difficulty.
    case hard = 2
    /// Recalled.
    case good = 3
    /// Recalled easily.
    case easy = 4

    /// `Again`, `Hard`, `Good`, `Easy`.
    public var description: String {
        switch self {
        case .again: "Again"
        case .hard: "Hard"
        case .good: "Good"
        case .easy: "Easy"
        }
    }
}
