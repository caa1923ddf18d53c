import Foundation

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
