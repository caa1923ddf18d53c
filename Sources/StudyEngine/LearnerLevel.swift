import Foundation

/// A learner's level in a deck, novice to master, from the levels of its items.
///
/// Each scheduler's state says what level an item has reached (``SchedulerState/level(due:lastReview:)``):
/// staged items by their group, Leitner items by level, every other scheduler by the interval from
/// the last review to the next due. An unseen item is novice.
public enum LearnerLevel: Int, Sendable, Hashable, Comparable, CaseIterable, CustomStringConvertible {
    /// Not yet started.
    case novice
    /// Learning.
    case beginner
    /// Remembered for a week or more.
    case intermediate
    /// Remembered for a month or more.
    case advanced
    /// Remembered for four months or more.
    case master

    /// Lower levels first.
    public static func < (lhs: LearnerLevel, rhs: LearnerLevel) -> Bool { lhs.rawValue < rhs.rawValue }

    /// `novice` … `master`.
    public var description: String {
        switch self {
        case .novice: "novice"
        case .beginner: "beginner"
        case .intermediate: "intermediate"
        case .advanced: "advanced"
        case .master: "master"
        }
    }

    /// The level by the interval from `lastReview` to `due`: under 7 days beginner, under 30
    /// intermediate, under 120 advanced, then master; never due is master, a session-day due
    /// (or no review yet) beginner.
    public init(interval due: Due, lastReview: Date?) {
        guard case .date(let date) = due, let lastReview else {
            self = due == .never ? .master : .beginner
            return
        }
        let days = date.timeIntervalSince(lastReview) / 86_400
        self = days < 7 ? .beginner : days < 30 ? .intermediate : days < 120 ? .advanced : .master
    }
}
