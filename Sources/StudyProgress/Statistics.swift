import Foundation
import StudyEngine

/// A learner's level over a deck's items, from their progress.
///
/// An item's level is what its scheduler's state says (`SchedulerState/level(due:lastReview:)`);
/// an unseen item is novice. The learner's level is the highest level that at least half of the
/// deck's items have reached.
extension LearnerLevel {
    /// The level of one item's progress (`nil`: unseen).
    public init(_ progress: ItemProgress?) {
        guard let progress else {
            self = .novice
            return
        }
        self = progress.state.level(due: progress.due, lastReview: progress.lastReview)
    }

    /// The learner's level over `keys`: the highest level at least half of them have reached.
    public static func of(_ keys: [ItemKey], progress: [ItemKey: ItemProgress]) -> LearnerLevel {
        guard !keys.isEmpty else { return .novice }
        let levels = keys.map { LearnerLevel(progress[$0]) }
        return allCases.reversed().first { level in levels.filter { $0 >= level }.count * 2 >= levels.count } ?? .novice
    }
}

/// What `study stats` shows: the due forecast, retention, the streak and levels.
public struct ProgressStatistics: Sendable, Codable {
    /// Items due on each of the next days; index 0 is today (overdue included).
    public var forecast: [Int]
    /// Items studied at least once (not orphans), and items in the content.
    public var seen: Int
    /// Items in the content.
    public var total: Int
    /// Reviews (not first sightings) in the last 30 days, and how many were recalled.
    public var reviews30Days: Int
    /// Recalled among ``reviews30Days``.
    public var recalled30Days: Int
    /// Consecutive learner dates with at least one answer, ending today (or yesterday).
    public var streak: Int
    /// Items per level, novice to master.
    public var levels: [String: Int]
    /// The learner's level.
    public var level: String

    /// Retention: recalled / reviews over the last 30 days (`nil` without reviews).
    public var retention: Double? { reviews30Days == 0 ? nil : Double(recalled30Days) / Double(reviews30Days) }

    /// Figures for `material` at `now`, over `days` days of forecast.
    public init(material: StudyMaterial, store: ProgressStore, calendar: LearnerCalendar, now: Date, days: Int = 30) throws(ProgressError) {
        let source = material.source
        forecast = try store.dueCounts(source: source, from: now, days: days, calendar: calendar)
        let progress = try store.items(source: source)
        let keys = material.items.map(\.key)
        total = keys.count
        seen = keys.filter { progress[$0] != nil }.count
        let since = calendar.adding(days: -30, to: calendar.startOfDay(now))
        let records = try store.reviews(source: source, since: since)
        let reviews = records.filter { $0.before != nil }
        reviews30Days = reviews.count
        recalled30Days = reviews.filter(\.recalled).count
        let allDates = Set(try store.reviews(source: source).map { calendar.dateString($0.at) })
        var day = calendar.startOfDay(now)
        if !allDates.contains(calendar.dateString(day)) { day = calendar.adding(days: -1, to: day) }
        var streak = 0
        while allDates.contains(calendar.dateString(day)) {
            streak += 1
            day = calendar.adding(days: -1, to: day)
        }
        self.streak = streak
        var levels: [String: Int] = [:]
        for key in keys { levels[LearnerLevel(progress[key]).description, default: 0] += 1 }
        self.levels = levels
        level = LearnerLevel.of(keys, progress: progress).description
    }
}

/// The Leitner calendar as a grid: for the next session days, which levels come up, with how
/// many items each level holds.
public struct LeitnerGrid: Sendable {
    /// The first session day shown.
    public var firstDay: Int
    /// Session days shown.
    public var days: Int
    /// Items per level 1–7 (index 0 is level 1) and retired.
    public var counts: [Int]
    /// Retired items.
    public var retired: Int

    /// The grid for `progress` from session day `firstDay`.
    public init(progress: [ItemKey: ItemProgress], firstDay: Int, days: Int = 16) {
        self.firstDay = firstDay
        self.days = days
        var counts = Array(repeating: 0, count: LeitnerScheduler.levels)
        var retired = 0
        for item in progress.values where !item.orphan {
            guard let s = item.state.value(as: LeitnerScheduler.State.self) else { continue }
            if s.retired { retired += 1 } else { counts[min(max(s.level, 1), LeitnerScheduler.levels) - 1] += 1 }
        }
        self.counts = counts
        self.retired = retired
    }

    /// Rows `level 1 (12) │ ■ · ■ · …`, one per level, and a header of session days.
    public var lines: [String] {
        let header = "session day   " + (firstDay..<(firstDay + days)).map { String(format: "%3d", $0) }.joined()
        var lines = [header]
        for level in 1...LeitnerScheduler.levels {
            let cells = (firstDay..<(firstDay + days)).map { LeitnerScheduler.reviews(level: level, onSessionDay: $0) ? "  ■" : "  ·" }
            lines.append(String(format: "level %d %5d ", level, counts[level - 1]) + cells.joined())
        }
        lines.append("retired \(retired)")
        return lines
    }
}
