import Foundation
import GRDB
import StudyEngine

/// Anki's load balancing: a review interval of whole days may land on any day of its fuzz range;
/// the balancer picks the day of that range with the fewest reviews already due, so the daily
/// workload stays even instead of piling up on the days a lesson's items were first learned.
///
/// The range is Anki's fuzz range: for an interval of d ≥ 3 days, d ± (1 + 0.15·(min(d, 7) − 2.5)
/// + 0.1·(min(d, 20) − 7)⁺ + 0.05·(d − 20)⁺), never below 2 days. Ties go to the day nearest d,
/// then the earlier one. It replaces the scheduler's random fuzz: use it with fuzz off.
public struct LoadBalancer: Sendable {
    /// Whole days in the learner's time zone.
    public var calendar: LearnerCalendar

    /// A balancer counting days on `calendar`.
    public init(calendar: LearnerCalendar) { self.calendar = calendar }

    /// The days an interval of `days` may move to: Anki's fuzz range (`FSRSFuzz`),
    /// never below 2 days; none below 3 days.
    public static func range(forDays days: Int) -> ClosedRange<Int> {
        guard days >= 3 else { return days...days }
        let bounds = FSRSFuzz.bounds(Double(days), minimum: 2, maximum: Int(Int32.max))
        return bounds.lower...max(bounds.lower, bounds.upper)
    }

    /// Picks, inside the range, the day with the fewest due items given `load(day)`.
    public static func pick(days: Int, load: (Int) -> Int) -> Int {
        var best = days
        var bestLoad = Int.max
        for day in range(forDays: days) {
            let l = load(day)
            if l < bestLoad || (l == bestLoad && abs(day - days) < abs(best - days)) {
                best = day
                bestLoad = l
            }
        }
        return best
    }

    /// How many days the least busy day of its range is from a whole-day due of 3 days or more
    /// (0 where the state's scheduler does not let its due day move,
    /// `SchedulerState/rescheduled(to:)`): the move an answer event records, so replay on any
    /// device makes the same one (``move(_:by:at:calendar:)``).
    func offset(for scheduled: Scheduled<CardState>, source: String, at moment: Date, db: Database) throws -> Int {
        guard case .days(let days) = scheduled.interval, days >= 3, scheduled.state.rescheduled(to: moment) != nil else { return 0 }
        let range = Self.range(forDays: days)
        let start = calendar.startOfDay(moment)
        let from = calendar.adding(days: range.lowerBound, to: start)
        let to = calendar.adding(days: range.upperBound + 1, to: start)
        var counts: [Int: Int] = [:]
        let rows = try Double.fetchCursor(
            db, sql: "SELECT due FROM item WHERE source = ? AND orphan = 0 AND due >= ? AND due < ?",
            arguments: [source, from.timeIntervalSince1970, to.timeIntervalSince1970])
        while let due = try rows.next() {
            counts[calendar.days(from: moment, to: Date(timeIntervalSince1970: due)), default: 0] += 1
        }
        return Self.pick(days: days) { counts[$0] ?? 0 } - days
    }

    /// `scheduled` moved by `offset` days, kept inside its fuzz range, where its scheduler lets
    /// the due day move: a pure function of its arguments, so every device replays it alike.
    static func move(_ scheduled: Scheduled<CardState>, by offset: Int, at moment: Date, calendar: LearnerCalendar) -> Scheduled<CardState> {
        move(scheduled, by: offset, at: moment, calendar: calendar) { state, due in state.rescheduled(to: due) }
    }

    /// ``move(_:by:at:calendar:)`` of a scheduler's own state type, `rescheduled` being its
    /// ``CardState/rescheduled(to:)`` (replay's FSRS path, which skips the type-erased state).
    static func move<State>(
        _ scheduled: Scheduled<State>, by offset: Int, at moment: Date, calendar: LearnerCalendar, rescheduled: (State, Date) -> State?
    ) -> Scheduled<State> {
        guard offset != 0, case .days(let days) = scheduled.interval, days >= 3 else { return scheduled }
        let range = range(forDays: days)
        let chosen = min(max(days + offset, range.lowerBound), range.upperBound)
        guard chosen != days else { return scheduled }
        let due = calendar.adding(days: chosen, to: moment)
        guard let state = rescheduled(scheduled.state, due) else { return scheduled }
        return Scheduled(state: state, due: .date(due), interval: .days(chosen))
    }
}
