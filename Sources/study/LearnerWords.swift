import StudyEngine
import StudyStrings

extension LearnerLevel {
    /// The level whose ``description`` is `name` (`beginner`), as statistics and summaries
    /// store it.
    static func named(_ name: String) -> LearnerLevel? { allCases.first { $0.description == name } }
}

extension StudyText {
    /// A learner's level in the learner's words (`level.beginner`: начинающий, 入门, ਸ਼ੁਰੂਆਤੀ).
    func name(of level: LearnerLevel) -> String { self("level." + level.description) }
}
