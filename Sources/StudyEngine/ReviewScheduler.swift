import Foundation

/// A scheduler: a pure function from (state, answer, now, random source) to (new state, next due).
///
/// Every scheduler is a value with its settings; it keeps no state of its own and reads no clock:
/// the time and the random source are arguments, so the same inputs always give the same result.
/// Card states are plain `Codable` values an app stores per item.
public protocol ReviewScheduler: Sendable {
    /// The per-item state this scheduler reads and writes.
    associatedtype State: Sendable, Hashable, Codable, CustomStringConvertible

    /// Which scheduler this is (the name `study replay --scheduler` takes).
    var kind: SchedulerKind { get }

    /// The state of an item the learner has not seen yet, due at `moment`.
    func newState(at moment: StudyMoment) -> State

    /// Checks a stored state: values in range, due not before the last review.
    func validate(_ state: State) throws(StudyEngineError)

    /// The learner answered the item at `moment`: its new state and when it is due next.
    ///
    /// Throws for an answer this scheduler does not take, a grade out of range, or a state that
    /// fails ``validate(_:)``; never traps. A clock earlier than the last review never yields a
    /// negative interval.
    func review<Random: RandomNumberGenerator>(
        _ state: State, answer: Answer, at moment: StudyMoment, random: inout Random
    ) throws(StudyEngineError) -> Scheduled<State>
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

/// The schedulers the engine has, by the names the command line takes.
public enum SchedulerKind: String, Sendable, Hashable, Codable, CaseIterable {
    /// SM-2 (Woźniak 1990).
    case sm2
    /// Leitner, seven levels on the 64-day session calendar.
    case leitner
    /// Leitner, seven boxes, box k due 2^(k−1) calendar days after its last review.
    case leitnerWallClock = "leitner-wallclock"
    /// The WaniKani staged model: lessons, nine stages, hour waits.
    case staged
    /// The driving app's half-life model.
    case halfLife = "half-life"
    /// Half-life regression (Settles and Meeder 2016).
    case hlr
    /// FSRS-6.
    case fsrs6
    /// FSRS-5 (FSRS-6 with w19 = 0 and w20 = 0.5).
    case fsrs5
}
