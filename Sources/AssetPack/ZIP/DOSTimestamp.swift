/// A DOS date and time as stored in zip headers (two-second resolution, 1980–2107, UTC here).
struct DOSTimestamp: Equatable, Sendable {
    var time: UInt16
    var date: UInt16

    /// 1980-01-01 00:00:00, the earliest DOS time: the builder's default timestamp.
    static let epoch = DOSTimestamp(time: 0, date: (1 << 5) | 1)

    init(time: UInt16, date: UInt16) {
        self.time = time
        self.date = date
    }

    /// The DOS time for seconds since 1970 (UTC); earlier than 1980 clamps to ``epoch``.
    init?(unixTime: Int64) {
        guard unixTime >= 315_532_800 else {
            self = .epoch
            return
        }
        var days = unixTime / 86_400
        let secondsOfDay = Int(unixTime % 86_400)
        // Civil-from-days (Howard Hinnant's algorithm), proleptic Gregorian, UTC.
        days += 719_468
        let era = (days >= 0 ? days : days - 146_096) / 146_097
        let dayOfEra = days - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        guard year <= 2107 else { return nil }
        date = UInt16((year - 1980) << 9 | month << 5 | day)
        time = UInt16((secondsOfDay / 3600) << 11 | ((secondsOfDay / 60) % 60) << 5 | (secondsOfDay % 60) / 2)
    }
}

