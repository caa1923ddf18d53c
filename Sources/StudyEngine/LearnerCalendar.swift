import Foundation

/// How the engine counts whole days: calendar days in the learner's time zone, or 24-hour periods.
///
/// Day intervals are calendar days: a card due "in 3 days" is due at the same wall-clock time
/// three dates later in the learner's time zone, so a daylight-saving change never moves a review
/// by an hour or by a day. Minute and hour intervals (learning steps, staged waits) are always
/// absolute durations. The 24-hour rule is py-fsrs's (`timedelta.days`): the review-log protocol
/// and the differential test use it, since that is how the reference counts.
public struct LearnerCalendar: Sendable, Hashable {
    private enum Rule: Sendable, Hashable {
        case local(Calendar)
        case elapsed24Hours
    }

    private let rule: Rule

    /// Calendar days in `timeZone` (Gregorian).
    public static func local(_ timeZone: TimeZone) -> LearnerCalendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        return LearnerCalendar(rule: .local(calendar))
    }

    /// Calendar days in UTC.
    public static let utc = LearnerCalendar.local(TimeZone(secondsFromGMT: 0) ?? .current)

    /// Whole 24-hour periods since an instant, as py-fsrs counts them; day intervals add 86,400 s.
    public static let elapsed24Hours = LearnerCalendar(rule: .elapsed24Hours)

    /// The time zone of a calendar-day rule; `nil` for 24-hour periods.
    public var timeZone: TimeZone? {
        if case .local(let calendar) = rule { return calendar.timeZone }
        return nil
    }

    /// Whole days from `earlier` to `later`: the difference of their calendar dates (or the
    /// floor of the elapsed 24-hour periods). Negative when the clock went backwards.
    public func days(from earlier: Date, to later: Date) -> Int {
        switch rule {
        case .local(let calendar):
            return dayNumber(of: later, in: calendar.timeZone) - dayNumber(of: earlier, in: calendar.timeZone)
        case .elapsed24Hours:
            let seconds = later.timeIntervalSince(earlier)
            return Int((seconds / 86_400).rounded(.down))
        }
    }

    /// The instant `days` whole days after `date`: the same wall-clock time on the date `days`
    /// later (or exactly `days` × 86,400 s later under the 24-hour rule).
    public func adding(days: Int, to date: Date) -> Date {
        switch rule {
        case .local(let calendar):
            if let moved = calendar.date(byAdding: .day, value: days, to: date) { return moved }
            return date.addingTimeInterval(Double(days) * 86_400)
        case .elapsed24Hours:
            return date.addingTimeInterval(Double(days) * 86_400)
        }
    }

    /// The first instant of `date`'s calendar day (under the 24-hour rule, of its UTC day).
    public func startOfDay(_ date: Date) -> Date {
        switch rule {
        case .local(let calendar):
            return calendar.startOfDay(for: date)
        case .elapsed24Hours:
            return Date(timeIntervalSince1970: (date.timeIntervalSince1970 / 86_400).rounded(.down) * 86_400)
        }
    }

    /// `date`'s calendar date as `yyyy-MM-dd` (under the 24-hour rule, its UTC date).
    public func dateString(_ date: Date) -> String {
        let zone = timeZone ?? TimeZone(secondsFromGMT: 0) ?? .current
        let day = dayNumber(of: date, in: zone)
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(secondsFromGMT: 0) ?? zone
        let parts = calendar.dateComponents([.year, .month, .day], from: Date(timeIntervalSince1970: Double(day) * 86_400))
        return String(format: "%04d-%02d-%02d", parts.year ?? 0, parts.month ?? 0, parts.day ?? 0)
    }

    /// The calendar date's number of days since 1970-01-01 in `timeZone`.
    private func dayNumber(of date: Date, in timeZone: TimeZone) -> Int {
        let local = date.timeIntervalSince1970 + Double(timeZone.secondsFromGMT(for: date))
        return Int((local / 86_400).rounded(.down))
    }
}
