import Foundation

/// FSRS-6 (FSRS-5 selectable), scheduled the way py-fsrs 6.3.2 does: learning and relearning
/// steps in minutes, then whole-day intervals for a desired retention, with Anki's fuzz.
///
/// A card starts in ``FSRSState/Phase/learning`` at step 0. Again sends a (re)learning card
/// back to the first step; Hard repeats its step (the first step waits the mean of the first two,
/// or 1.5× a single step); Good moves to the next step, or graduates after the last; Easy
/// graduates at once. A review card rated Again goes to relearning (or stays in review when
/// there are no relearning steps). A review less than one whole day after the last one updates
/// stability with the same-day formula; the first review sets S0 and D0. Intervals are
/// S/FACTOR·(r^(1/decay) − 1) rounded half to even (as Python's `round`), at least 1 day, at most
/// ``Configuration/maximumInterval``; with fuzz on, Anki's fuzz replaces the rounding.
public struct FSRSScheduler: ReviewScheduler {
    /// The scheduler's settings.
    public struct Configuration: Sendable, Hashable, Codable {
        /// w0…w20.
        public var parameters: FSRSParameters
        /// The recall probability the intervals aim at (0 < r < 1; default 0.9).
        public var desiredRetention: Double
        /// Waits of the learning steps, in seconds (default 1 min, 10 min).
        public var learningSteps: [TimeInterval]
        /// Waits of the relearning steps, in seconds (default 10 min).
        public var relearningSteps: [TimeInterval]
        /// The longest interval in days (default 36,500).
        public var maximumInterval: Int
        /// Whether review intervals are fuzzed (Anki's ranges, from the injected random source).
        public var fuzz: Bool

        /// Settings with py-fsrs's defaults for everything not given.
        public init(
            parameters: FSRSParameters = .fsrs6Defaults, desiredRetention: Double = 0.9,
            learningSteps: [TimeInterval] = [60, 600], relearningSteps: [TimeInterval] = [600],
            maximumInterval: Int = 36_500, fuzz: Bool = true
        ) {
            self.parameters = parameters
            self.desiredRetention = desiredRetention
            self.learningSteps = learningSteps
            self.relearningSteps = relearningSteps
            self.maximumInterval = maximumInterval
            self.fuzz = fuzz
        }
    }

    /// The settings.
    public let configuration: Configuration
    /// Which calendar whole days are counted in.
    public let calendar: LearnerCalendar
    /// FSRS-6, or FSRS-5 (the same formulas with w19 = 0, w20 = 0.5).
    public let kind: SchedulerKind
    let math: FSRSMath<Double>
    let retentionTerm: Double

    /// An FSRS scheduler; throws if a setting is out of range (retention not in (0, 1), a step
    /// not positive, a maximum interval below 1, FSRS-5 with w19 ≠ 0 or w20 ≠ 0.5).
    public init(_ configuration: Configuration = Configuration(), calendar: LearnerCalendar = .utc, version: SchedulerKind = .fsrs6) throws(StudyEngineError) {
        guard version == .fsrs6 || version == .fsrs5 else {
            throw StudyEngineError(.invalidConfiguration, "an FSRS scheduler is fsrs6 or fsrs5, not \(version.rawValue)", at: .field("version"))
        }
        guard configuration.desiredRetention > 0, configuration.desiredRetention < 1 else {
            throw StudyEngineError(.invalidConfiguration, "desired retention must be between 0 and 1, got \(configuration.desiredRetention)", at: .field("desiredRetention"))
        }
        for (name, steps) in [("learningSteps", configuration.learningSteps), ("relearningSteps", configuration.relearningSteps)] {
            if let bad = steps.first(where: { !($0 > 0) || !$0.isFinite }) {
                throw StudyEngineError(.invalidConfiguration, "steps must be positive durations, got \(bad) s", at: .field(name))
            }
        }
        guard configuration.maximumInterval >= 1 else {
            throw StudyEngineError(.invalidConfiguration, "the maximum interval is at least 1 day, got \(configuration.maximumInterval)", at: .field("maximumInterval"))
        }
        if version == .fsrs5, configuration.parameters.values[19] != 0 || configuration.parameters.values[20] != 0.5 {
            throw StudyEngineError(.invalidConfiguration, "FSRS-5 has w19 = 0 and w20 = 0.5", at: .field("parameters"))
        }
        self.configuration = configuration
        self.calendar = calendar
        self.kind = version
        math = FSRSMath(configuration.parameters.values)
        retentionTerm = math.retentionTerm(configuration.desiredRetention)
    }

    /// FSRS-6 with py-fsrs's defaults (fuzz on) on `calendar`.
    public static func fsrs6(calendar: LearnerCalendar = .utc, fuzz: Bool = true) -> FSRSScheduler {
        FSRSScheduler(trusted: Configuration(fuzz: fuzz), calendar: calendar, version: .fsrs6)
    }

    /// FSRS-5 with its published defaults (fuzz on) on `calendar`.
    public static func fsrs5(calendar: LearnerCalendar = .utc, fuzz: Bool = true) -> FSRSScheduler {
        FSRSScheduler(trusted: Configuration(parameters: .fsrs5Defaults, fuzz: fuzz), calendar: calendar, version: .fsrs5)
    }

    package init(trusted configuration: Configuration, calendar: LearnerCalendar, version: SchedulerKind) {
        self.configuration = configuration
        self.calendar = calendar
        self.kind = version
        math = FSRSMath(configuration.parameters.values)
        retentionTerm = math.retentionTerm(configuration.desiredRetention)
    }

    /// A grade 1–4 or a multiple-choice result.
    public func validate(_ answer: Answer) throws(StudyEngineError) {
        _ = try answer.fsrsRating(for: kind)
    }

    /// The card's button is the rating.
    public func answer(forCardGrade grade: FSRSRating) -> Answer { .grade(grade.rawValue) }

    /// Lowest predicted recall first.
    public var reviewOrder: ReviewOrder { .lowestPredictedRecall }

    /// Learning, step 0, no memory state yet, due at `moment`.
    public func newState(at moment: StudyMoment) -> FSRSState {
        FSRSState(phase: .learning, step: 0, stability: nil, difficulty: nil, lastReview: nil, due: moment.date)
    }

    /// Checks the memory state is in range, a step is where the phase needs one, due not
    /// before the last review.
    public func validate(_ state: FSRSState) throws(StudyEngineError) {
        if let s = state.stability, !(s.isFinite && s >= FSRSParameters.minimumStability) {
            throw StudyEngineError(.invalidState, "stability must be at least \(FSRSParameters.minimumStability) days, got \(s)", at: .field("stability"))
        }
        if let d = state.difficulty, !(d >= 1 && d <= 10) {
            throw StudyEngineError(.invalidState, "difficulty must be 1 to 10, got \(d)", at: .field("difficulty"))
        }
        if (state.stability == nil) != (state.difficulty == nil) || (state.stability == nil && state.phase != .learning) {
            throw StudyEngineError(.invalidState, "stability and difficulty are set together, and only a new card has neither", at: .field("stability"))
        }
        switch state.phase {
        case .learning, .relearning:
            guard let step = state.step, step >= 0 else {
                throw StudyEngineError(.invalidState, "a \(state.phase.rawValue) card needs a step of 0 or more", at: .field("step"))
            }
        case .review:
            guard state.step == nil else {
                throw StudyEngineError(.invalidState, "a review card has no step", at: .field("step"))
            }
        }
        if let last = state.lastReview, state.due < last {
            throw StudyEngineError(.dueBeforeLastReview, "\(kind.rawValue) due \(state.due.isoText) is before the last review \(last.isoText)", at: .field("due"))
        }
    }

    /// R at `date`: the recall probability of a reviewed card after the whole days since its
    /// last review (0 for a new card).
    public func retrievability(_ state: FSRSState, at date: Date) -> Double {
        guard let last = state.lastReview, let s = state.stability else { return 0 }
        return math.retrievability(elapsedDays: calendar.days(from: last, to: date), stability: s)
    }

    /// The interval in days for stability `s`, without fuzz: rounded half to even, 1…maximum.
    public func interval(forStability s: Double) -> Int {
        let raw = math.rawInterval(stability: s, retentionTerm: retentionTerm)
        guard raw.isFinite else { return configuration.maximumInterval }
        return Int(min(Double(configuration.maximumInterval), max(1, raw.rounded(.toNearestOrEven))))
    }

    /// Applies the rating at `moment` (see the type's summary).
    public func review<Random: RandomNumberGenerator>(
        _ state: FSRSState, answer: Answer, at moment: StudyMoment, random: inout Random
    ) throws(StudyEngineError) -> Scheduled<FSRSState> {
        try validate(state)
        let rating = try answer.fsrsRating(for: kind)
        let now = moment.date
        let elapsed = state.lastReview.map { calendar.days(from: $0, to: now) }
        let (s, d) = math.update(stability: state.stability, difficulty: state.difficulty, elapsedDays: elapsed, rating: rating)
        var next = state
        next.stability = s
        next.difficulty = d
        next.lastReview = now

        let wait: FSRSWait
        switch state.phase {
        case .learning, .relearning:
            let steps = state.phase == .learning ? configuration.learningSteps : configuration.relearningSteps
            let step = state.step ?? 0
            if steps.isEmpty || (step >= steps.count && rating != .again) {
                next.phase = .review
                next.step = nil
                wait = .days
            } else {
                switch rating {
                case .again:
                    next.step = 0
                    wait = .step(steps[0])
                case .hard:
                    if step == 0 && steps.count == 1 {
                        wait = .step(steps[0] * 1.5)
                    } else if step == 0 {
                        wait = .step((steps[0] + steps[1]) / 2)
                    } else {
                        wait = .step(steps[step])
                    }
                case .good:
                    if step + 1 == steps.count {
                        next.phase = .review
                        next.step = nil
                        wait = .days
                    } else {
                        next.step = step + 1
                        wait = .step(steps[step + 1])
                    }
                case .easy:
                    next.phase = .review
                    next.step = nil
                    wait = .days
                }
            }
        case .review:
            if rating == .again && !configuration.relearningSteps.isEmpty {
                next.phase = .relearning
                next.step = 0
                wait = .step(configuration.relearningSteps[0])
            } else {
                wait = .days
            }
        }

        switch wait {
        case .step(let seconds):
            next.due = now.addingTimeInterval(seconds)
            return Scheduled(state: next, due: .date(next.due), interval: .duration(seconds))
        case .days:
            let days: Int
            if configuration.fuzz {
                let raw = math.rawInterval(stability: s, retentionTerm: retentionTerm)
                days = FSRSFuzz.fuzzed(raw.isFinite ? raw : Double(configuration.maximumInterval), factor: random.unitInterval(), minimum: 1, maximum: configuration.maximumInterval)
            } else {
                days = interval(forStability: s)
            }
            next.due = calendar.adding(days: days, to: now)
            return Scheduled(state: next, due: .date(next.due), interval: .days(days))
        }
    }
}

/// What follows a review: a (re)learning step of some seconds, or a whole-day interval.
enum FSRSWait {
    case step(TimeInterval)
    case days
}

/// An FSRS card: its phase, step, memory state (stability S, difficulty D) and due time.
public struct FSRSState: SchedulerState {
    /// Where the card is in its life.
    public enum Phase: String, Sendable, Hashable, Codable {
        /// New or in its learning steps.
        case learning
        /// Graduated: whole-day intervals.
        case review
        /// Forgotten from review: in its relearning steps.
        case relearning
    }

    /// The phase.
    public var phase: Phase
    /// The (re)learning step; `nil` in review.
    public var step: Int?
    /// S in days; `nil` before the first review.
    public var stability: Double?
    /// D in [1, 10]; `nil` before the first review.
    public var difficulty: Double?
    /// The last review.
    public var lastReview: Date?
    /// When the card is due next.
    public var due: Date

    /// A state with every field given.
    public init(phase: Phase, step: Int?, stability: Double?, difficulty: Double?, lastReview: Date?, due: Date) {
        self.phase = phase
        self.step = step
        self.stability = stability
        self.difficulty = difficulty
        self.lastReview = lastReview
        self.due = due
    }

    /// The stability orders reviews by predicted recall.
    public var orderingStability: Double? { stability }

    /// Load balancing may move an FSRS due day inside its fuzz range.
    public func rescheduled(to date: Date) -> FSRSState? {
        var moved = self
        moved.due = date
        return moved
    }

    /// `review S=2.3065 D=2.1181` (or `learning step 1 …`).
    public var description: String {
        var text = phase.rawValue
        if let step { text += " step \(step)" }
        if let stability, let difficulty {
            text += String(format: " S=%.4f D=%.4f", stability, difficulty)
        }
        return text
    }
}

/// Anki's interval fuzz (rslib `scheduler/states/fuzz.rs`), used by py-fsrs with the same ranges.
package enum FSRSFuzz {
    /// (start, end, factor) of the ranges that widen the fuzz.
    static let ranges: [(start: Double, end: Double, factor: Double)] = [
        (2.5, 7, 0.15), (7, 20, 0.1), (20, .infinity, 0.05),
    ]

    /// The fuzz in days either side of `interval`: none below 2.5 days, else
    /// 1 + 0.15·(days in 2.5–7) + 0.10·(days in 7–20) + 0.05·(days above 20).
    package static func delta(_ interval: Double) -> Double {
        guard interval >= 2.5 else { return 0 }
        return ranges.reduce(1.0) { $0 + $1.factor * max(0, min(interval, $1.end) - $1.start) }
    }

    /// Rounds half away from zero, as Rust's `round`.
    private static func roundAway(_ x: Double) -> Int {
        guard x.isFinite else { return x > 0 ? Int.max / 2 : 0 }
        return Int(min(9e15, max(-9e15, x.rounded(.toNearestOrAwayFromZero))))
    }

    /// The whole-day range [lower, upper] the fuzzed interval is drawn from, within
    /// [minimum, maximum]; widened to two days when it collapses to one above 2 days.
    package static func bounds(_ interval: Double, minimum: Int, maximum: Int) -> (lower: Int, upper: Int) {
        let minimum = min(minimum, maximum)
        let clampedInterval = min(Double(maximum), max(Double(minimum), interval))
        let delta = delta(clampedInterval)
        var lower = roundAway(clampedInterval - delta)
        var upper = roundAway(clampedInterval + delta)
        lower = min(maximum, max(minimum, lower))
        upper = min(maximum, max(minimum, upper))
        if upper == lower && upper > 2 && upper < maximum { upper = lower + 1 }
        return (lower, upper)
    }

    /// The fuzzed interval for a random `factor` in [0, 1): ⌊lower + factor·(1 + upper − lower)⌋.
    package static func fuzzed(_ interval: Double, factor: Double, minimum: Int, maximum: Int) -> Int {
        let (lower, upper) = bounds(interval, minimum: minimum, maximum: maximum)
        let value = (Double(lower) + factor * Double(1 + upper - lower)).rounded(.down)
        return min(upper, max(lower, Int(value)))
    }
}

extension SchedulerKind {
    /// FSRS-6.
    public static let fsrs6 = SchedulerKind(declaring: "fsrs6")
    /// FSRS-5 (FSRS-6 with w19 = 0 and w20 = 0.5).
    public static let fsrs5 = SchedulerKind(declaring: "fsrs5")
}
