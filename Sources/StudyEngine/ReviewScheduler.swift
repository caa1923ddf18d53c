import Foundation

/// A scheduler: a pure function from (state, answer, now, random source) to (new state, next due).
///
/// Every scheduler is a value with its settings; it keeps no state of its own and reads no clock:
/// the time and the random source are arguments, so the same inputs always give the same result.
/// Card states are plain `Codable` values an app stores per item.
///
/// A scheduler owns everything its kind means: the answers it takes (`validate(_ answer:)`,
/// ``answer(forCardGrade:)``, ``recalled(_:)``), the order of its reviews (``reviewOrder``), and,
/// through its ``SchedulerState``, an item's level, the stability that orders reviews and whether
/// load balancing may move its due day. Adding a scheduler is its file and one line in
/// ``SchedulerRegistry``; ``AnyScheduler`` and ``CardState`` open the box and need no change.
public protocol ReviewScheduler: Sendable {
    /// The per-item state this scheduler reads and writes.
    associatedtype State: SchedulerState

    /// Which scheduler this is (the name `study replay --scheduler` takes).
    var kind: SchedulerKind { get }

    /// The state of an item the learner has not seen yet, due at `moment`.
    func newState(at moment: StudyMoment) -> State

    /// Checks a stored state: values in range, due not before the last review.
    func validate(_ state: State) throws(StudyEngineError)

    /// The learner answered the item at `moment`: its new state and when it is due next.
    ///
    /// Throws for an answer this scheduler does not take, a grade out of range, or a state that
    /// fails ``validate(_:)-(Self.State)``; never traps. A clock earlier than the last review never yields a
    /// negative interval.
    func review<Random: RandomNumberGenerator>(
        _ state: State, answer: Answer, at moment: StudyMoment, random: inout Random
    ) throws(StudyEngineError) -> Scheduled<State>

    /// Checks that `answer` is one this scheduler takes, without a state. The default takes
    /// right, wrong and multiple-choice results (the binary schedulers).
    func validate(_ answer: Answer) throws(StudyEngineError)

    /// The answer a self-graded card's four buttons (Again, Hard, Good, Easy) stand for. The
    /// default: Again is wrong, the others right.
    func answer(forCardGrade grade: CardGrade) -> Answer

    /// Whether `answer` counts as recalled, for retention figures and lapses. The default: a
    /// grade above 1 (Again), right, a multiple-choice answer right on any try.
    func recalled(_ answer: Answer) -> Bool

    /// The order a day's due reviews are shown in. The default: most overdue first.
    var reviewOrder: ReviewOrder { get }
}

extension ReviewScheduler {
    /// Right, wrong or a multiple-choice result; a count of wrong answers is for the staged
    /// scheduler, a grade for SM-2 and FSRS.
    public func validate(_ answer: Answer) throws(StudyEngineError) {
        if case .incorrect = answer {
            throw StudyEngineError(.answerNotAccepted, field: "answer", "\(kind.rawValue) takes right or wrong; counts of wrong answers are for the staged scheduler")
        }
        _ = try answer.isRight(for: kind)
    }

    /// Again is wrong; Hard, Good and Easy are right.
    public func answer(forCardGrade grade: CardGrade) -> Answer {
        grade == .again ? .wrong : .right
    }

    /// A grade above 1, right, or a multiple-choice answer right on any try.
    public func recalled(_ answer: Answer) -> Bool {
        switch answer {
        case .grade(let g): g >= 2
        case .right: true
        case .wrong, .incorrect: false
        case .multipleChoice(let result): result.isRight
        }
    }

    /// Most overdue first.
    public var reviewOrder: ReviewOrder { .mostOverdue }
}

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

/// The order a day's due reviews are shown in.
public enum ReviewOrder: Sendable, Hashable {
    /// Earliest due first.
    case mostOverdue
    /// Lowest predicted recall first: largest elapsed time over ``SchedulerState/orderingStability``
    /// (FSRS's R falls as t/S grows with the same curve for every item); items without a
    /// stability first, ties in content order.
    case lowestPredictedRecall
}

extension ReviewScheduler {
    /// ``review(_:answer:at:random:)`` for a scheduler that draws nothing (or with fuzz off):
    /// a fixed-seed generator stands in.
    public func review(_ state: State, answer: Answer, at moment: StudyMoment) throws(StudyEngineError) -> Scheduled<State> {
        var random = SplitMix64(seed: 0)
        return try review(state, answer: answer, at: moment, random: &random)
    }
}

/// When a review happens: the instant, and for the session-calendar Leitner scheduler the deck's
/// session day.
public struct StudyMoment: Sendable, Hashable {
    /// The instant of the answer.
    public var date: Date
    /// The deck's session-day counter: 1 on the first session day, one more each time a day's
    /// session is completed (skipped days do not count). Only the session-calendar Leitner
    /// scheduler reads it.
    public var sessionDay: Int?

    /// A moment at `date`, on session day `sessionDay` if the deck counts them.
    public init(_ date: Date, sessionDay: Int? = nil) {
        self.date = date
        self.sessionDay = sessionDay
    }
}

/// The result of one review: the item's new state, its next due time and the interval to it.
public struct Scheduled<State: Sendable & Hashable>: Sendable, Hashable {
    /// The item's state after the answer.
    public var state: State
    /// When the item is due next.
    public var due: Due
    /// The wait from the answer to ``due``.
    public var interval: Interval

    /// A result with its state, due time and interval.
    public init(state: State, due: Due, interval: Interval) {
        self.state = state
        self.due = due
        self.interval = interval
    }

    /// The same result with another state type (used by type erasure).
    public func map<Other>(_ transform: (State) -> Other) -> Scheduled<Other> {
        Scheduled<Other>(state: transform(state), due: due, interval: interval)
    }
}

/// When an item is due next.
public enum Due: Sendable, Hashable, Codable {
    /// At an instant.
    case date(Date)
    /// On a session day of the deck's counter (session-calendar Leitner).
    case sessionDay(Int)
    /// Never: the item is retired (Leitner) or burned (staged).
    case never
}

/// The wait until the next review.
public enum Interval: Sendable, Hashable, Codable {
    /// Whole calendar days (0: again the same day).
    case days(Int)
    /// An absolute duration in seconds (learning steps, staged hours, short half-lives).
    case duration(TimeInterval)
    /// Session days of the deck's counter.
    case sessionDays(Int)
    /// No next review.
    case never

    /// The interval in days (durations as fractions of 86,400 s; `nil` for never).
    public var days: Double? {
        switch self {
        case .days(let n): Double(n)
        case .duration(let seconds): seconds / 86_400
        case .sessionDays(let n): Double(n)
        case .never: nil
        }
    }
}

/// A scheduler's name, as the command line takes it and card states store it.
///
/// Each scheduler declares its own (`extension SchedulerKind { static let sm2 = … }` in its
/// file) and registers it in ``SchedulerRegistry``. Only registered names decode or parse.
public struct SchedulerKind: RawRepresentable, Sendable, Hashable, Codable, CaseIterable, CustomStringConvertible {
    /// The name (`sm2`, `fsrs6`, `half-life`).
    public let rawValue: String

    /// The kind with this name, `nil` if no scheduler is registered under it.
    public init?(rawValue: String) {
        guard SchedulerRegistry.registration(for: rawValue) != nil else { return nil }
        self.rawValue = rawValue
    }

    /// Declares a scheduler's name (register it in ``SchedulerRegistry`` to use it).
    public init(declaring name: String) { rawValue = name }

    /// Every registered scheduler, in registration order.
    public static var allCases: [SchedulerKind] { SchedulerRegistry.all.map(\.kind) }

    /// The name.
    public var description: String { rawValue }

    /// Reads a registered name; any other is a decoding error.
    public init(from decoder: any Decoder) throws {
        let name = try decoder.singleValueContainer().decode(String.self)
        guard let kind = SchedulerKind(rawValue: name) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "no scheduler is named \(name)"))
        }
        self = kind
    }

    /// Writes the name.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}
