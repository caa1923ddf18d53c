import Foundation

/// The recall curve both half-life models share: p = 2^(−Δ/h), clipped to [0.0001, 0.9999].
package enum HalfLifeCurve {
    /// The lowest probability the models give (Settles and Meeder's clip).
    package static let minimumRecall = 0.0001
    /// The highest probability the models give.
    package static let maximumRecall = 0.9999

    /// p = 2^(−Δ/h) for Δ days since the last practice and half-life h days, clipped; a
    /// half-life of 0 (or less) gives the minimum.
    package static func recall(elapsedDays: Double, halfLifeDays: Double) -> Double {
        guard halfLifeDays > 0 else { return minimumRecall }
        let p = exp2(-max(0, elapsedDays) / halfLifeDays)
        return min(maximumRecall, max(minimumRecall, p))
    }
}

/// The driving app's own half-life model (the seed paper): review when p ≤ 0.5, i.e. Δ ≥ h.
///
/// A wrong answer sets the half-life h to 0 (review again now); a right one doubles it, or sets it
/// to 1 day when it was 0. h is whole days, so the next review is h calendar days later; it is
/// capped at ``maximumHalfLife`` so doubling never overflows a date.
public struct HalfLifeScheduler: ReviewScheduler {
    /// An item's half-life.
    public struct State: SchedulerState {
        /// h in days (0 after a wrong answer).
        public var halfLifeDays: Int
        /// The last practice.
        public var lastPractice: Date?
        /// When the item is due next (Δ = h).
        public var due: Date

        /// A state with every field given.
        public init(halfLifeDays: Int, lastPractice: Date?, due: Date) {
            self.halfLifeDays = halfLifeDays
            self.lastPractice = lastPractice
            self.due = due
        }

        /// `h=4d`.
        public var description: String { "h=\(halfLifeDays)d" }
    }

    /// Which calendar whole days are counted in.
    public var calendar: LearnerCalendar
    /// The largest half-life in days (the seed app has none; doubling needs one).
    public var maximumHalfLife: Int

    /// The seed app's model on `calendar`.
    public init(calendar: LearnerCalendar = .utc, maximumHalfLife: Int = 36_500) {
        self.calendar = calendar
        self.maximumHalfLife = max(1, maximumHalfLife)
    }

    /// ``SchedulerKind/halfLife``.
    public var kind: SchedulerKind { .halfLife }

    /// h = 0, due at `moment`.
    public func newState(at moment: StudyMoment) -> State {
        State(halfLifeDays: 0, lastPractice: nil, due: moment.date)
    }

    /// Checks 0 ≤ h ≤ the maximum and due not before the last practice.
    public func validate(_ state: State) throws(StudyEngineError) {
        guard (0...maximumHalfLife).contains(state.halfLifeDays) else {
            throw StudyEngineError(.invalidState, "half-life must be 0 to \(maximumHalfLife) days, got \(state.halfLifeDays)", at: .field("halfLifeDays"))
        }
        if let last = state.lastPractice, state.due < last {
            throw StudyEngineError(.dueBeforeLastReview, "half-life due \(state.due.isoText) is before the last practice \(last.isoText)", at: .field("due"))
        }
    }

    /// The model's recall probability at `date` (elapsed time in fractional days).
    public func recall(_ state: State, at date: Date) -> Double {
        guard let last = state.lastPractice else { return HalfLifeCurve.minimumRecall }
        return HalfLifeCurve.recall(elapsedDays: date.timeIntervalSince(last) / 86_400, halfLifeDays: Double(state.halfLifeDays))
    }

    /// The seed app's update: wrong → 0, right → 2h (or 1); due h calendar days later.
    package static func nextHalfLife(_ h: Int, right: Bool, maximum: Int) -> Int {
        guard right else { return 0 }
        return h == 0 ? 1 : min(maximum, h * 2)
    }

    /// Updates h and schedules the review at Δ = h.
    public func review<Random: RandomNumberGenerator>(
        _ state: State, answer: Answer, at moment: StudyMoment, random: inout Random
    ) throws(StudyEngineError) -> Scheduled<State> {
        try validate(state)
        let right = try answer.isRight(for: kind)
        var next = state
        next.halfLifeDays = Self.nextHalfLife(state.halfLifeDays, right: right, maximum: maximumHalfLife)
        next.lastPractice = moment.date
        next.due = calendar.adding(days: next.halfLifeDays, to: moment.date)
        return Scheduled(state: next, due: .date(next.due), interval: .days(next.halfLifeDays))
    }
}

extension SchedulerKind {
    /// The driving app's half-life model.
    public static let halfLife = SchedulerKind(declaring: "half-life")
}
