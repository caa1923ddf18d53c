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
    /// The zone's offsets, looked up in a table (calendar days only; shared by copies).
    private let offsets: ZoneOffsets?

    private init(rule: Rule) {
        self.rule = rule
        if case .local(let calendar) = rule { offsets = ZoneOffsets(calendar.timeZone) } else { offsets = nil }
    }

    private init(rule: Rule, offsets: ZoneOffsets?) {
        self.rule = rule
        self.offsets = offsets
    }

    /// The same calendar with its own offset table, for one replay on one thread only: its
    /// lookups take no lock (the table copies a year at a time from this one's). Never hand it
    /// (or a scheduler made with it) to another thread.
    package func confined() -> LearnerCalendar {
        LearnerCalendar(rule: rule, offsets: offsets.map { ZoneOffsets(confinedCopyOf: $0) })
    }

    /// Calendar days in `timeZone` (Gregorian).
    public static func local(_ timeZone: TimeZone) -> LearnerCalendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        return LearnerCalendar(rule: .local(calendar))
    }

    /// Equal rules (the offset table is a cache).
    public static func == (lhs: LearnerCalendar, rhs: LearnerCalendar) -> Bool { lhs.rule == rhs.rule }

    /// Hashes the rule.
    public func hash(into hasher: inout Hasher) { hasher.combine(rule) }

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
            if let offsets, let moved = Self.adding(days: days, to: date, in: offsets) { return moved }
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
            return offsets.flatMap { Self.startOfDay(date, in: $0) } ?? calendar.startOfDay(for: date)
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

    // MARK: Fast paths
    //
    // Foundation's calendar arithmetic costs 1.4 µs (adding days) and 4.3 µs (the start of a day)
    // on Linux, and replaying a merged log schedules every answer again: 100,000 answers would
    // spend half a second there. Both are computed here from time-zone offsets (56 ns each) where
    // the answer is certain: no offset change within six hours of the result, and none of more
    // than three hours (a date-line jump skips a whole date) between the two instants. Anywhere
    // else Foundation answers. The results are Foundation's, bit for bit: the arithmetic is done
    // on seconds since 2001, as `Date` keeps them (LearnerCalendarTests compares both over every
    // time zone and around every transition).

    /// The instant `days` dates after `date` at the same local time, from offsets alone; `nil`
    /// where that is not certain.
    static func adding(days: Int, to date: Date, in offsets: ZoneOffsets) -> Date? {
        guard abs(days) <= 200_000 else { return nil }
        let start = date.timeIntervalSinceReferenceDate
        let offset = offsets.offset(at: start)
        let shift = Double(days) * 86_400 + Double(offset)
        let guess = offsets.offset(at: start + shift - Double(offset))
        let target = offsets.offset(at: start + (shift - Double(guess)))
        let result = start + (shift - Double(target))
        guard abs(target - offset) <= 10_800, offsets.steady(around: result, margin: 21_600) == target else { return nil }
        return Date(timeIntervalSinceReferenceDate: result)
    }

    /// The first instant of `date`'s local date, from offsets alone; `nil` where that is not
    /// certain (a transition near midnight).
    static func startOfDay(_ date: Date, in offsets: ZoneOffsets) -> Date? {
        let offset = offsets.offset(at: date.timeIntervalSinceReferenceDate)
        let local = date.timeIntervalSince1970 + Double(offset)
        let midnight = (local / 86_400).rounded(.down) * 86_400
        let result = midnight - Double(offset)
        guard result.magnitude < 1e11, offsets.steady(around: result - 978_307_200, margin: 21_600) == offset else { return nil }
        return Date(timeIntervalSince1970: result)
    }

    /// The calendar date's number of days since 1970-01-01 in `timeZone`.
    private func dayNumber(of date: Date, in timeZone: TimeZone) -> Int {
        let offset = offsets.map { $0.offset(at: date.timeIntervalSinceReferenceDate) } ?? timeZone.secondsFromGMT(for: date)
        let local = date.timeIntervalSince1970 + Double(offset)
        return Int((local / 86_400).rounded(.down))
    }
}
