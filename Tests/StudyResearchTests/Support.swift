import Foundation
import StudyEngine
import StudyResearch
import TestSupport
import Testing

/// The real review log the research tests measure on.
enum Research {
    /// The 12,580-review log (py-fsrs's fixture, copied from ../shared/data).
    static let reviewLog = Repository.path("Tests/StudyResearchTests/Fixtures/review-log-12k.csv")

    /// The log, read once (tests call `try Research.log.get()`).
    static let log = Result { () throws(ReviewLogError) -> ReviewLog in try ReviewLog(contentsOfFile: reviewLog) }
}

/// Runs the built `study` binary, as a user would.
enum StudyTool {
    static let binary = BuiltProducts.path("study")

    static func run(_ arguments: String...) throws -> ProcessResult {
        try TestSupport.run(binary, arguments)
    }
}
