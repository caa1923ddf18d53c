import Foundation
import StudyEngine
import TestSupport
import Testing

/// Paths and dates the engine's tests share.
enum Fixture {
    /// The package's root folder (two levels above this file's folder).
    static let root = Repository.root

    /// The FSRS oracle script.
    static let oracle = root + "/Tests/StudyEngineTests/fsrs_oracle.py"

    /// The virtual environment's python with py-fsrs 6.3.2 (made by Scripts/setup).
    static let python = root + "/.build-venv/bin/python"
}

/// `2022-11-29 12:30` UTC and friends.
func utc(_ text: String) -> Date {
    let formatter = ISO8601DateFormatter()
    formatter.formatOptions = [.withInternetDateTime]
    guard let date = formatter.date(from: text) else {
        Issue.record("bad test date \(text)")
        return Date(timeIntervalSince1970: 0)
    }
    return date
}

extension Date {
    func plus(days: Double) -> Date { addingTimeInterval(days * 86_400) }
    func plus(minutes: Double) -> Date { addingTimeInterval(minutes * 60) }
}
