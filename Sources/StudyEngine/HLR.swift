import Foundation

/// The weights Θ of half-life regression over the features x = (√(1+right), √(1+wrong), 1).
public struct HLRWeights: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The weight of √(1 + right answers).
    public var right: Double
    /// The weight of √(1 + wrong answers).
    public var wrong: Double
    /// The bias.
    public var bias: Double

    /// Weights with every value given.
    public init(right: Double, wrong: Double, bias: Double) {
        self.right = right
        self.wrong = wrong
        self.bias = bias
    }

    /// Θ = 0: every half-life is 1 day (the starting point of training).
    public static let zero = HLRWeights(right: 0, wrong: 0, bias: 0)

    /// The weights `HLRTrainer` (StudyResearch) learns from the whole 12,580-review fixture log (a test
    /// retrains and checks them); a start for a learner with no log of their own. Trained on
    /// one answer per review, the weight of wrong answers comes out positive (see
    /// `HLRTrainer` (StudyResearch)): train on the learner's own sessions before relying on it.
    public static let defaults = HLRWeights(right: 1.077080732621849, wrong: 0.9232034265356885, bias: 1.1884305575042113)

    /// `Θ = (right, wrong, bias)`.
    public var description: String {
        String(format: "Θ = (%.4f, %.4f, %.4f)", right, wrong, bias)
    }
}

/// Half-life regression (Settles and Meeder, ACL 2016): ĥ = 2^(Θ·x), p̂ = 2^(−Δ/ĥ).
package enum HLRModel {
    /// The shortest half-life: 15 minutes, in days.
    package static let minimumHalfLife = 15.0 / (24 * 60)
    /// The longest half-life: 274 days.
    package static let maximumHalfLife = 274.0

    /// The features x = (√(1+right), √(1+wrong), 1).
    package static func features(right: Int, wrong: Int) -> (Double, Double, Double) {
        ((1 + Double(max(0, right))).squareRoot(), (1 + Double(max(0, wrong))).squareRoot(), 1)
    }

    /// ĥ = 2^(Θ·x) in days, clipped to [15 minutes, 274 days].
    package static func halfLife(right: Int, wrong: Int, weights: HLRWeights) -> Double {
        let x = features(right: right, wrong: wrong)
        let h = exp2(weights.right * x.0 + weights.wrong * x.1 + weights.bias * x.2)
        return min(maximumHalfLife, max(minimumHalfLife, h.isNaN ? minimumHalfLife : h))
    }
}

/// Half-life regression as a scheduler: the item is due when p̂ falls to 0.5, i.e. Δ = ĥ.
///
/// A half-life of a day or more is rounded to whole calendar days; a shorter one is an absolute
/// wait rounded up to the minute.
public struct HLRScheduler: ReviewScheduler {
    /// An item's practice history, which is all HLR needs.
    public struct State: SchedulerState {
        /// Right answers so far.
        public var right: Int
        /// Wrong answers so far.
        public var wrong: Int
        /// The last practice.
        public var lastPractice: Date?
        /// When the item is due next.
        public var due: Date

        /// A state with every field given.
        public init(right: Int, wrong: Int, lastPractice: Date?, due: Date) {
            self.right = right
            self.wrong = wrong
            self.lastPractice = lastPractice
            self.due = due
        }

        /// `right=3 wrong=1`.
        public var description: String { "right=\(right) wrong=\(wrong)" }
    }

    /// Θ.
    public var weights: HLRWeights
    /// Which calendar whole days are counted in.
    public var calendar: LearnerCalendar

    /// HLR with `weights` on `calendar`.
    public init(weights: HLRWeights = .defaults, calendar: LearnerCalendar = .utc) {
        self.weights = weights
        self.calendar = calendar
    }

    /// ``SchedulerKind/hlr``.
    public var kind: SchedulerKind { .hlr }

    /// No practice yet, due at `moment`.
    public func newState(at moment: StudyMoment) -> State {
        State(right: 0, wrong: 0, lastPractice: nil, due: moment.date)
    }

    /// Checks the counts are not negative and due is not before the last practice.
    public func validate(_ state: State) throws(StudyEngineError) {
        guard state.right >= 0, state.wrong >= 0 else {
            throw StudyEngineError(.invalidState, "hlr counts cannot be negative, got right \(state.right), wrong \(state.wrong)", at: .field(state.right < 0 ? "right" : "wrong"))
        }
        if let last = state.lastPractice, state.due < last {
            throw StudyEngineError(.dueBeforeLastReview, "hlr due \(state.due.isoText) is before the last practice \(last.isoText)", at: .field("due"))
        }
    }

    /// The half-life ĥ in days for this state.
    public func halfLife(_ state: State) -> Double {
        HLRModel.halfLife(right: state.right, wrong: state.wrong, weights: weights)
    }

    /// p̂ at `date` (elapsed time in fractional days).
    public func recall(_ state: State, at date: Date) -> Double {
        guard let last = state.lastPractice else { return HalfLifeCurve.minimumRecall }
        return HalfLifeCurve.recall(elapsedDays: date.timeIntervalSince(last) / 86_400, halfLifeDays: halfLife(state))
    }

    /// Counts the answer and schedules the review at Δ = ĥ.
    public func review<Random: RandomNumberGenerator>(
        _ state: State, answer: Answer, at moment: StudyMoment, random: inout Random
    ) throws(StudyEngineError) -> Scheduled<State> {
        try validate(state)
        let right = try answer.isRight(for: kind)
        var next = state
        // Counts saturate rather than overflow (a stored state may hold any integer).
        if right { next.right = state.right == Int.max ? Int.max : state.right + 1 } else { next.wrong = state.wrong == Int.max ? Int.max : state.wrong + 1 }
        next.lastPractice = moment.date
        let h = halfLife(next)
        if h >= 1 {
            let days = Int(h.rounded())
            next.due = calendar.adding(days: days, to: moment.date)
            return Scheduled(state: next, due: .date(next.due), interval: .days(days))
        }
        let seconds = (h * 1_440).rounded(.up) * 60
        next.due = moment.date.addingTimeInterval(seconds)
        return Scheduled(state: next, due: .date(next.due), interval: .duration(seconds))
    }
}

extension SchedulerKind {
    /// Half-life regression (Settles and Meeder 2016).
    public static let hlr = SchedulerKind(declaring: "hlr")
}
