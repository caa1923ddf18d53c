import Foundation

/// Leitner with seven levels on Nicky Case's 64-day looping calendar ("How To Remember Anything
/// Forever-ish", CC0).
///
/// New items start at level 1. Right moves an item up one level, wrong sends it back to level 1,
/// right at level 7 retires it. Level k is reviewed every 2^(k−1)th session day, on the days of
/// ``calendar``. The calendar's counter is the deck's *session day*
/// (``StudyMoment/sessionDay``): it advances when a day's session is completed, not with the
/// wall clock, so a learner back from a week off gets the next day's set, not a pile.
public struct LeitnerScheduler: ReviewScheduler {
    /// An item's Leitner state.
    public struct State: SchedulerState {
        /// 1 to 7.
        public var level: Int
        /// Right at level 7: never reviewed again.
        public var retired: Bool
        /// The session day the item is next reviewed on.
        public var dueSessionDay: Int
        /// The session day of its last review.
        public var lastSessionDay: Int?

        /// A state with every field given.
        public init(level: Int, retired: Bool, dueSessionDay: Int, lastSessionDay: Int?) {
            self.level = level
            self.retired = retired
            self.dueSessionDay = dueSessionDay
            self.lastSessionDay = lastSessionDay
        }

        /// Levels 1–2 beginner, 3–4 intermediate, 5–6 advanced, 7 or retired master.
        public func level(due: Due, lastReview: Date?) -> LearnerLevel {
            retired ? .master : [.beginner, .beginner, .intermediate, .intermediate, .advanced, .advanced, .master][min(max(level, 1), 7) - 1]
        }

        /// `level 3` or `retired`.
        public var description: String { retired ? "retired" : "level \(level)" }
    }

    /// The levels reviewed on each day of the 64-day loop (day 1 first), as Nicky Case drew it.
    public static let calendar: [[Int]] = [
        [2, 1], [3, 1], [2, 1], [4, 1], [2, 1], [3, 1], [2, 1], [1],
        [2, 1], [3, 1], [2, 1], [5, 1], [4, 2, 1], [3, 1], [2, 1], [1],
        [2, 1], [3, 1], [2, 1], [4, 1], [2, 1], [3, 1], [2, 1], [6, 1],
        [2, 1], [3, 1], [2, 1], [5, 1], [4, 2, 1], [3, 1], [2, 1], [1],
        [2, 1], [3, 1], [2, 1], [4, 1], [2, 1], [3, 1], [2, 1], [1],
        [2, 1], [3, 1], [2, 1], [5, 1], [4, 2, 1], [3, 1], [2, 1], [1],
        [2, 1], [3, 1], [2, 1], [4, 1], [2, 1], [3, 1], [2, 1], [7, 1],
        [2, 1], [3, 1], [6, 2, 1], [5, 1], [4, 2, 1], [3, 1], [2, 1], [1],
    ]

    /// The number of levels.
    public static let levels = 7

    /// The session-calendar Leitner scheduler (it has no settings).
    public init() {}

    /// ``SchedulerKind/leitner``.
    public var kind: SchedulerKind { .leitner }

    /// Level 1, due on the moment's session day (day 1 if the moment has none).
    public func newState(at moment: StudyMoment) -> State {
        State(level: 1, retired: false, dueSessionDay: max(1, moment.sessionDay ?? 1), lastSessionDay: nil)
    }

    /// Checks the level is 1–7, session days are at least 1, due not before the last review.
    public func validate(_ state: State) throws(StudyEngineError) {
        guard (1...Self.levels).contains(state.level) else {
            throw StudyEngineError(.invalidState, "leitner levels are 1 to 7, got \(state.level)", at: .field("level"))
        }
        guard state.dueSessionDay >= 1 else {
            throw StudyEngineError(.invalidState, "session days start at 1, got \(state.dueSessionDay)", at: .field("dueSessionDay"))
        }
        if let last = state.lastSessionDay, last > state.dueSessionDay {
            throw StudyEngineError(.dueBeforeLastReview, "leitner due session day \(state.dueSessionDay) is before the last review's session day \(last)", at: .field("dueSessionDay"))
        }
    }

    /// Whether `level` is reviewed on session day `day` (day 65 is day 1 of the next loop).
    public static func reviews(level: Int, onSessionDay day: Int) -> Bool {
        let index = ((day - 1) % calendar.count + calendar.count) % calendar.count
        return calendar[index].contains(level)
    }

    /// The first session day after `day` on which `level` is reviewed.
    public static func nextSessionDay(for level: Int, after day: Int) -> Int {
        for offset in 1...calendar.count where reviews(level: level, onSessionDay: day + offset) {
            return day + offset
        }
        return day + calendar.count
    }

    /// Moves the item up a level (or retires it) or back to level 1; due on the next session day
    /// that reviews its new level. Needs ``StudyMoment/sessionDay``.
    public func review<Random: RandomNumberGenerator>(
        _ state: State, answer: Answer, at moment: StudyMoment, random: inout Random
    ) throws(StudyEngineError) -> Scheduled<State> {
        try validate(state)
        guard !state.retired else {
            throw StudyEngineError(.itemRetired, "leitner: the item was retired after level 7 and is not reviewed again", at: .field("retired"))
        }
        let right = try answer.isRight(for: kind)
        guard let day = moment.sessionDay else {
            throw StudyEngineError(.missingSessionDay, "the session-calendar leitner scheduler needs the deck's session day", at: .field("sessionDay"))
        }
        guard day >= 1 else {
            throw StudyEngineError(.invalidState, "session days start at 1, got \(day)", at: .field("sessionDay"))
        }
        var next = state
        next.lastSessionDay = day
        if right && state.level == Self.levels {
            next.retired = true
            next.dueSessionDay = day
            return Scheduled(state: next, due: .never, interval: .never)
        }
        next.level = right ? state.level + 1 : 1
        next.dueSessionDay = Self.nextSessionDay(for: next.level, after: day)
        return Scheduled(state: next, due: .sessionDay(next.dueSessionDay), interval: .sessionDays(next.dueSessionDay - day))
    }
}

/// Leitner's seven boxes on the wall clock: box k is due 2^(k−1) calendar days after its last
/// review. The other common reading of Leitner, named as such; right in box 7 retires the item.
public struct WallClockLeitnerScheduler: ReviewScheduler {
    /// An item's box.
    public struct State: SchedulerState {
        /// 1 to 7.
        public var box: Int
        /// Right in box 7: never reviewed again.
        public var retired: Bool
        /// The last review.
        public var lastReview: Date?
        /// When the item is due next.
        public var due: Date

        /// A state with every field given.
        public init(box: Int, retired: Bool, lastReview: Date?, due: Date) {
            self.box = box
            self.retired = retired
            self.lastReview = lastReview
            self.due = due
        }

        /// `box 3` or `retired`.
        public var description: String { retired ? "retired" : "box \(box)" }
    }

    /// Which calendar whole days are counted in.
    public var calendar: LearnerCalendar

    /// Wall-clock Leitner on `calendar`.
    public init(calendar: LearnerCalendar = .utc) { self.calendar = calendar }

    /// ``SchedulerKind/leitnerWallClock``.
    public var kind: SchedulerKind { .leitnerWallClock }

    /// Box 1, due at `moment`.
    public func newState(at moment: StudyMoment) -> State {
        State(box: 1, retired: false, lastReview: nil, due: moment.date)
    }

    /// Checks the box is 1–7 and due is not before the last review.
    public func validate(_ state: State) throws(StudyEngineError) {
        guard (1...LeitnerScheduler.levels).contains(state.box) else {
            throw StudyEngineError(.invalidState, "leitner boxes are 1 to 7, got \(state.box)", at: .field("box"))
        }
        if let last = state.lastReview, state.due < last {
            throw StudyEngineError(.dueBeforeLastReview, "leitner-wallclock due \(state.due.isoText) is before the last review \(last.isoText)", at: .field("due"))
        }
    }

    /// Right: next box (box 7 retires); wrong: box 1. Due 2^(box−1) calendar days later.
    public func review<Random: RandomNumberGenerator>(
        _ state: State, answer: Answer, at moment: StudyMoment, random: inout Random
    ) throws(StudyEngineError) -> Scheduled<State> {
        try validate(state)
        guard !state.retired else {
            throw StudyEngineError(.itemRetired, "leitner-wallclock: the item was retired after box 7 and is not reviewed again", at: .field("retired"))
        }
        let right = try answer.isRight(for: kind)
        var next = state
        next.lastReview = moment.date
        if right && state.box == LeitnerScheduler.levels {
            next.retired = true
            next.due = moment.date
            return Scheduled(state: next, due: .never, interval: .never)
        }
        next.box = right ? state.box + 1 : 1
        let days = 1 << (next.box - 1)
        next.due = calendar.adding(days: days, to: moment.date)
        return Scheduled(state: next, due: .date(next.due), interval: .days(days))
    }
}

extension SchedulerKind {
    /// Leitner, seven levels on the 64-day session calendar.
    public static let leitner = SchedulerKind(declaring: "leitner")
    /// Leitner, seven boxes, box k due 2^(k−1) calendar days after its last review.
    public static let leitnerWallClock = SchedulerKind(declaring: "leitner-wallclock")
}
