import Foundation
import StudyEngine

/// One item's progress: the scheduler's state, when it is due, and counts.
public struct ItemProgress: Sendable, Hashable, Codable {
    /// Which item.
    public var key: ItemKey
    /// The scheduler's state (it names the scheduler that wrote it).
    public var state: CardState
    /// When the item is due next.
    public var due: Due
    /// When the learner first saw it.
    public var introduced: Date
    /// The last answer's time.
    public var lastReview: Date?
    /// Answers so far.
    public var reviews: Int
    /// Wrong answers so far.
    public var lapses: Int
    /// The item is in no mounted content any more: kept, not shown.
    public var orphan: Bool

    /// A progress record.
    public init(
        key: ItemKey, state: CardState, due: Due, introduced: Date, lastReview: Date?, reviews: Int,
        lapses: Int, orphan: Bool = false
    ) {
        self.key = key
        self.state = state
        self.due = due
        self.introduced = introduced
        self.lastReview = lastReview
        self.reviews = reviews
        self.lapses = lapses
        self.orphan = orphan
    }

    /// The stability in days that orders reviews by predicted recall (FSRS), as its scheduler says.
    var stability: Double? { state.orderingStability }
}

/// One answer in the review log, with the item's progress before and after it.
public struct ReviewRecord: Sendable, Hashable {
    /// The log row's id (increasing).
    public var id: Int64
    /// Which item.
    public var key: ItemKey
    /// When it was answered.
    public var at: Date
    /// What was answered.
    public var answer: Answer
    /// How long the learner took.
    public var duration: TimeInterval
    /// The progress before the answer (`nil`: the item was new).
    public var before: ItemProgress?
    /// The progress after the answer.
    public var after: ItemProgress
    /// Whether the answer counts as recalled (see ``StudyEngine/Answer/recalled(by:)``).
    public var recalled: Bool
    /// Whether the answer was taken back (``ProgressStore/undoLast(source:)``); the row stays.
    public var undone: Bool
}

extension Answer {
    /// Recalled or not, for retention figures, as the scheduler `kind` counts it
    /// (`ReviewScheduler/recalled(_:)`): an FSRS grade above Again, an SM-2 grade of
    /// 3 or more, right, a multiple-choice answer right on any try.
    public func recalled(by kind: SchedulerKind) -> Bool {
        AnyScheduler.standard(kind, fuzz: false).recalled(self)
    }
}
