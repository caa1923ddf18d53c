import Foundation

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
