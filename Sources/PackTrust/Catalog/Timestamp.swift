import Foundation

/// Times in roots and catalogs: RFC 3339 in UTC to the second (`2026-12-27T04:00:00Z`), the only
/// form written or read, so equal times are equal bytes.
public enum Timestamp {
    /// `date` as `YYYY-MM-DDTHH:MM:SSZ`.
    public static func format(_ date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? calendar.timeZone
        let c = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        func two(_ value: Int?) -> String { let v = value ?? 0; return v < 10 ? "0\(v)" : "\(v)" }
        return "\(c.year ?? 1970)-\(two(c.month))-\(two(c.day))T\(two(c.hour)):\(two(c.minute)):\(two(c.second))Z"
    }

    /// The date of a `YYYY-MM-DDTHH:MM:SSZ` string; `nil` for anything else.
    public static func parse(_ text: String) -> Date? {
        let bytes = Array(text.utf8)
        guard bytes.count == 20, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"), bytes[10] == UInt8(ascii: "T"),
            bytes[13] == UInt8(ascii: ":"), bytes[16] == UInt8(ascii: ":"), bytes[19] == UInt8(ascii: "Z")
        else { return nil }
        func number(_ range: Range<Int>) -> Int? {
            var value = 0
            for byte in bytes[range] {
                guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
            }
            return value
        }
        guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10), let hour = number(11..<13),
            let minute = number(14..<16), let second = number(17..<19), (1...12).contains(month), (1...31).contains(day),
            hour < 24, minute < 60, second < 60
        else { return nil }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? calendar.timeZone
        let components = DateComponents(year: year, month: month, day: day, hour: hour, minute: minute, second: second)
        guard let date = calendar.date(from: components), format(date) == text else { return nil }
        return date
    }

    /// `30d`, `12h`, `90m` or `45s` from `now`, or an RFC 3339 time as above.
    public static func expiry(_ text: String, from now: Date) -> Date? {
        if let date = parse(text) { return date }
        guard let unit = text.last, let count = Int(text.dropLast()), count > 0, count <= 100 * 366 * 86_400 else { return nil }
        let seconds: Int
        switch unit {
        case "d": seconds = count * 86_400
        case "h": seconds = count * 3_600
        case "m": seconds = count * 60
        case "s": seconds = count
        default: return nil
        }
        // Whole seconds, so the time written is the time read back.
        return Date(timeIntervalSince1970: (now.timeIntervalSince1970 + Double(seconds)).rounded(.down))
    }
}
