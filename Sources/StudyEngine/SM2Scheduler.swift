import Foundation

/// SM-2 as P. A. Woźniak wrote it ("Optimization of learning", 1990).
///
/// - I(1) = 1 day, I(2) = 6, I(n) = I(n−1)·EF rounded **up**, with EF updated by this grade.
/// - EF starts at 2.5, changes by 0.1 − (5−q)(0.08 + (5−q)·0.02) (+0.10, ±0, −0.14 for
///   q = 5, 4, 3), never below 1.3, no upper cap. EF is held as integer hundredths and the
///   rounding up is done with integers: binary floating point would turn 150.00000000000003
///   into 151.
/// - q < 3 starts the repetitions again from I(1) **without changing EF**: the item is due again
///   the same day, and its next passing answer is repetition 1.
/// - After a review graded 3 the item is repeated the same day until it scores at least 4; those
///   repeats change neither n nor EF.
///
/// ``LapsePolicy/lowerEasiness`` is the other common reading (EF changed by every grade, q < 3
/// too), which is what the srs-benchmark protocol and ENGINE.md's 0.5466 figure use.
public struct SM2Scheduler: ReviewScheduler {
    /// What a grade below 3 does to EF.
    public enum LapsePolicy: String, Sendable, Hashable, Codable {
        /// Woźniak's step 6: restart the repetitions without changing EF.
        case keepEasiness = "keep"
        /// EF changed by every grade, lapses included (EF − 0.32 for q = 2).
        case lowerEasiness = "lower"
    }

    /// An item's SM-2 state.
    public struct State: SchedulerState {
        /// n: the passing repetitions since the item was learned or last forgotten.
        public var repetitions: Int
        /// EF × 100 (250 for a new item, at least 130).
        public var easinessHundredths: Int
        /// The interval the last graded review set, in days (0 after a lapse).
        public var intervalDays: Int
        /// The last graded review (same-day repeats do not move it).
        public var lastReview: Date?
        /// When the item is due next.
        public var due: Date
        /// Graded 3 at ``lastReview``: repeat it the same day until it scores at least 4.
        public var repeatToday: Bool

        /// A state with every field given.
        public init(repetitions: Int, easinessHundredths: Int, intervalDays: Int, lastReview: Date?, due: Date, repeatToday: Bool) {
            self.repetitions = repetitions
            self.easinessHundredths = easinessHundredths
            self.intervalDays = intervalDays
            self.lastReview = lastReview
            self.due = due
            self.repeatToday = repeatToday
        }

        /// Load balancing may move an SM-2 due day inside its fuzz range.
        public func rescheduled(to date: Date) -> State? {
            var moved = self
            moved.due = date
            return moved
        }

        /// `n=3 EF=2.50 I=15d` (and `repeat today` when a same-day repeat is owed).
        public var description: String {
            let ef = "\(easinessHundredths / 100).\(String(format: "%02d", easinessHundredths % 100))"
            return "n=\(repetitions) EF=\(ef) I=\(intervalDays)d" + (repeatToday ? " repeat today" : "")
        }
    }

    /// Which calendar whole days are counted in.
    public var calendar: LearnerCalendar
    /// What a grade below 3 does to EF.
    public var lapsePolicy: LapsePolicy
    /// The longest interval, in days; SM-2 has none, this keeps dates and integers in range.
    public var maximumInterval: Int

    /// SM-2 on `calendar`, Woźniak's lapse rule unless told otherwise.
    public init(calendar: LearnerCalendar = .utc, lapsePolicy: LapsePolicy = .keepEasiness, maximumInterval: Int = 36_500) {
        self.calendar = calendar
        self.lapsePolicy = lapsePolicy
        self.maximumInterval = max(1, maximumInterval)
    }

    /// ``SchedulerKind/sm2``.
    public var kind: SchedulerKind { .sm2 }

    /// A grade 0–5 or a multiple-choice result.
    public func validate(_ answer: Answer) throws(StudyEngineError) {
        _ = try answer.sm2Grade(for: kind)
    }

    /// Again, Hard, Good, Easy as q = 1, 3, 4, 5.
    public func answer(forCardGrade grade: CardGrade) -> Answer {
        .grade([1, 3, 4, 5][grade.rawValue - 1])
    }

    /// A grade of 3 or more (a pass in SM-2), right, or a multiple-choice answer right on any try.
    public func recalled(_ answer: Answer) -> Bool {
        switch answer {
        case .grade(let q): q >= 3
        case .right: true
        case .wrong, .incorrect: false
        case .multipleChoice(let result): result.isRight
        }
    }

    /// n = 0, EF = 2.50, due at `moment`.
    public func newState(at moment: StudyMoment) -> State {
        State(repetitions: 0, easinessHundredths: 250, intervalDays: 0, lastReview: nil, due: moment.date, repeatToday: false)
    }

    /// Checks n ≥ 0, EF ≥ 1.30, 0 ≤ I ≤ the maximum, due not before the last review.
    public func validate(_ state: State) throws(StudyEngineError) {
        guard state.repetitions >= 0 else {
            throw StudyEngineError(.invalidState, "sm2 repetitions cannot be negative, got \(state.repetitions)", at: .field("repetitions"))
        }
        guard state.easinessHundredths >= 130 else {
            throw StudyEngineError(.invalidState, "sm2 EF is at least 1.30, got \(state.easinessHundredths) hundredths", at: .field("easinessHundredths"))
        }
        guard (0...maximumInterval).contains(state.intervalDays) else {
            throw StudyEngineError(.invalidState, "sm2 interval must be 0 to \(maximumInterval) days, got \(state.intervalDays)", at: .field("intervalDays"))
        }
        if let last = state.lastReview, state.due < last {
            throw StudyEngineError(.dueBeforeLastReview, "sm2 due \(state.due.isoText) is before the last review \(last.isoText)", at: .field("due"))
        }
    }

    /// EF change for grade `q`, in hundredths: 100 × (0.1 − (5−q)(0.08 + (5−q)·0.02)).
    package static func easinessChange(grade q: Int) -> Int {
        let miss = 5 - q
        return 10 - miss * (8 + miss * 2)
    }

    /// One graded SM-2 step on (n, EF, I): the arithmetic of the algorithm without dates.
    ///
    /// Returns the new n, EF (hundredths) and interval in days (0 after a lapse). `q` must be 0–5.
    package static func step(
        repetitions: Int, easinessHundredths: Int, intervalDays: Int, grade q: Int,
        lapsePolicy: LapsePolicy = .keepEasiness, maximumInterval: Int = 36_500
    ) -> (repetitions: Int, easinessHundredths: Int, intervalDays: Int) {
        let changed = max(130, easinessHundredths + easinessChange(grade: q))
        guard q >= 3 else {
            return (0, lapsePolicy == .keepEasiness ? easinessHundredths : changed, 0)
        }
        let n = repetitions + 1
        let interval: Int
        switch n {
        case 1: interval = 1
        case 2: interval = 6
        default:
            // ⌈I·EF/100⌉ in integers; saturate at the maximum instead of overflowing.
            let (product, overflow) = max(1, intervalDays).multipliedReportingOverflow(by: changed)
            interval = overflow ? maximumInterval : min(maximumInterval, (product + 99) / 100)
        }
        return (n, changed, min(interval, maximumInterval))
    }

    /// Applies Woźniak's rules to an answer at `moment` (see the type's summary).
    public func review<Random: RandomNumberGenerator>(
        _ state: State, answer: Answer, at moment: StudyMoment, random: inout Random
    ) throws(StudyEngineError) -> Scheduled<State> {
        try validate(state)
        let q = try answer.sm2Grade(for: kind)
        let now = moment.date
        var next = state

        // A same-day repeat of an item graded 3: only a 4 or 5 ends it; n and EF stay.
        if state.repeatToday, let last = state.lastReview, calendar.days(from: last, to: now) <= 0 {
            guard q >= 4 else {
                return Scheduled(state: next, due: .date(now), interval: .days(0))
            }
            next.repeatToday = false
            next.due = max(now, calendar.adding(days: state.intervalDays, to: last))
            return Scheduled(state: next, due: .date(next.due), interval: .days(max(0, calendar.days(from: now, to: next.due))))
        }

        let stepped = Self.step(
            repetitions: state.repetitions, easinessHundredths: state.easinessHundredths,
            intervalDays: state.intervalDays, grade: q, lapsePolicy: lapsePolicy, maximumInterval: maximumInterval)
        next.repetitions = stepped.repetitions
        next.easinessHundredths = stepped.easinessHundredths
        next.intervalDays = stepped.intervalDays
        next.lastReview = now
        if q < 3 {
            // Forgotten: learned anew today, so due again now; its next pass is repetition 1.
            next.repeatToday = false
            next.due = now
            return Scheduled(state: next, due: .date(now), interval: .days(0))
        }
        next.repeatToday = q < 4
        next.due = next.repeatToday ? now : calendar.adding(days: stepped.intervalDays, to: now)
        return Scheduled(state: next, due: .date(next.due), interval: .days(stepped.intervalDays))
    }

    /// The interval after each grade when every grade is given on the day the item falls due,
    /// and every review graded 3 is followed by a passing same-day repeat (not in `grades`).
    ///
    /// This is how SM-2's published interval sequences (and ENGINE.md's vectors) read.
    public func intervals(forGrades grades: [Int], start: Date = Date(timeIntervalSince1970: 0)) throws(StudyEngineError) -> [Int] {
        var state = newState(at: StudyMoment(start))
        var now = start
        var result: [Int] = []
        for q in grades {
            let scheduled = try review(state, answer: .grade(q), at: StudyMoment(now))
            state = scheduled.state
            result.append(state.intervalDays)
            if state.repeatToday {
                state = try review(state, answer: .grade(4), at: StudyMoment(now)).state
            }
            now = state.due
        }
        return result
    }
}

extension Date {
    /// ISO 8601 in UTC with seconds, for messages.
    package var isoText: String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.string(from: self)
    }
}

extension SchedulerKind {
    /// SM-2 (Woźniak 1990).
    public static let sm2 = SchedulerKind(declaring: "sm2")
}
