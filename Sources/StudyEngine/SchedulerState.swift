import Foundation

/// A scheduler's per-item state, with what it says about the item beyond its next review.
public protocol SchedulerState: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The item's level, given when it is due and when it was last reviewed. The default: by the
    /// interval from the last review to the due date (under 7 days beginner, under 30
    /// intermediate, under 120 advanced, then master; never due is master).
    func level(due: Due, lastReview: Date?) -> LearnerLevel

    /// The memory stability in days that orders reviews by predicted recall (see
    /// ``ReviewOrder/lowestPredictedRecall``); `nil` (the default) where there is none.
    var orderingStability: Double? { get }

    /// The same state due at `date` instead, for load balancing: a whole-day interval may move
    /// inside its fuzz range. `nil` (the default) where the scheduler's due day must not move.
    func rescheduled(to date: Date) -> Self?
}

extension SchedulerState {
    /// By the interval from the last review to the due date.
    public func level(due: Due, lastReview: Date?) -> LearnerLevel {
        LearnerLevel(interval: due, lastReview: lastReview)
    }

    /// None.
    public var orderingStability: Double? { nil }

    /// The due day does not move.
    public func rescheduled(to date: Date) -> Self? { nil }
}
