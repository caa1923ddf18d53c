// Foundation only: compiled standalone with the sync objects' parsing by Scripts/fuzz.
import Foundation

/// The name of one event everywhere: 128 random bits, drawn by the device that made it.
public struct EventID: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The first 64 bits (the bytes' big-endian order is the ids' order).
    public var high: UInt64
    /// The last 64 bits.
    public var low: UInt64

    /// An id from its two halves.
    public init(high: UInt64, low: UInt64) {
        self.high = high
        self.low = low
    }

    /// A new random id.
    public static func random() -> EventID {
        EventID(high: .random(in: .min ... .max), low: .random(in: .min ... .max))
    }

    /// The 16 bytes, big-endian.
    public var bytes: [UInt8] { bigEndianBytes(high) + bigEndianBytes(low) }

    /// The id of 16 big-endian bytes; `nil` for any other count.
    public init?(bytes: some Collection<UInt8>) {
        guard bytes.count == 16 else { return nil }
        let all = Array(bytes)
        high = all[0..<8].reduce(0) { $0 << 8 | UInt64($1) }
        low = all[8..<16].reduce(0) { $0 << 8 | UInt64($1) }
    }

    /// Orders ids by their bytes.
    public static func < (lhs: EventID, rhs: EventID) -> Bool { (lhs.high, lhs.low) < (rhs.high, rhs.low) }

    /// 32 hexadecimal digits.
    public var description: String { hex(bytes) }
}

/// A device's name in the log: 64 random bits drawn when a progress file is made (or first
/// opened by a version that keeps a log).
public struct DeviceID: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The bits.
    public var rawValue: UInt64

    /// A device id.
    public init(rawValue: UInt64) { self.rawValue = rawValue }

    /// A new random device id.
    public static func random() -> DeviceID { DeviceID(rawValue: .random(in: .min ... .max)) }

    /// The id of 16 hexadecimal digits; `nil` for anything else.
    public init?(hex text: String) {
        guard text.utf8.count == 16, text.utf8.allSatisfy({ hexValue($0) != nil }), let value = UInt64(text, radix: 16) else { return nil }
        rawValue = value
    }

    /// Orders devices by their bits.
    public static func < (lhs: DeviceID, rhs: DeviceID) -> Bool { lhs.rawValue < rhs.rawValue }

    /// 16 lowercase hexadecimal digits.
    public var description: String { hex(bigEndianBytes(rawValue)) }
}

/// A hybrid logical clock (Kulkarni, Demirbas et al., "Logical Physical Clocks", 2014): 48 bits
/// of milliseconds since 1970, close to the wall clock, and 16 bits of a counter that orders
/// events within one millisecond or while the wall clock lags what the device has seen.
///
/// A device's clock never goes back: an event made after another (on this device, or after an
/// event merged from another) has a larger clock, whatever the wall clock says. So a merged log
/// orders every event after the events its device had seen, even with device clocks a day off.
public struct HybridClock: RawRepresentable, Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The 64 bits: milliseconds << 16 | counter.
    public var rawValue: UInt64

    /// A clock of 64 bits.
    public init(rawValue: UInt64) { self.rawValue = rawValue }

    /// A clock at `milliseconds` since 1970 (clamped to 0 ... 2^48 − 1), counter `logical`.
    public init(milliseconds: Int64, logical: UInt16 = 0) {
        let clamped = UInt64(max(0, min(milliseconds, Int64(Self.maximumMilliseconds))))
        rawValue = clamped << 16 | UInt64(logical)
    }

    /// The largest millisecond count (2^48 − 1, the year 10889).
    public static let maximumMilliseconds: UInt64 = (1 << 48) - 1

    /// The physical part, in milliseconds since 1970.
    public var milliseconds: Int64 { Int64(rawValue >> 16) }

    /// The counter.
    public var logical: UInt16 { UInt16(truncatingIfNeeded: rawValue) }

    /// The clock of an event made now, after `self` (the last clock the device made or saw):
    /// the wall clock if it is ahead, else `self`'s time with the counter one more (a full counter
    /// moves one millisecond on).
    public func next(wallMilliseconds: Int64) -> HybridClock {
        let wall = HybridClock(milliseconds: wallMilliseconds)
        if wall.milliseconds > milliseconds { return wall }
        if logical == .max {
            // A full counter: the next millisecond (the last one of 48 bits is as far as it goes).
            return UInt64(milliseconds) >= Self.maximumMilliseconds ? self : HybridClock(rawValue: (rawValue | 0xFFFF) + 1)
        }
        return HybridClock(rawValue: rawValue + 1)
    }

    /// Orders clocks by their bits.
    public static func < (lhs: HybridClock, rhs: HybridClock) -> Bool { lhs.rawValue < rhs.rawValue }

    /// `MILLISECONDS.COUNTER`.
    public var description: String { "\(milliseconds).\(logical)" }
}

/// One change a learner made, as the log keeps it: never edited, merged by its id, replayed in
/// (clock, device, id) order.
///
/// The tables sessions read (items, session days, the learner's seed) are a cache computed
/// from these events; two files with the same events compute the same tables.
public struct ProgressEvent: Sendable, Hashable {
    /// The event's name everywhere.
    public var id: EventID
    /// The device that made it.
    public var device: DeviceID
    /// Its hybrid logical clock: the first part of its place in the log.
    public var clock: HybridClock
    /// The moment it happened on its device's wall clock, in milliseconds since 1970: the time
    /// the scheduler is given.
    public var wall: Int64
    /// What kind of change it is (a kind this version does not know is kept as it is).
    public var kind: Kind
    /// The item it changes; the source alone for a deck's session day, all empty for the learner.
    public var key: ItemKey
    /// What the kind needs beyond that, in the kind's own binary form.
    public var payload: [UInt8]

    /// An event with every field.
    public init(id: EventID, device: DeviceID, clock: HybridClock, wall: Int64, kind: Kind, key: ItemKey, payload: [UInt8]) {
        self.id = id
        self.device = device
        self.clock = clock
        self.wall = wall
        self.kind = kind
        self.key = key
        self.payload = payload
    }

    /// The kind of change an event makes. Its raw value travels in the log; a newer version may
    /// add kinds, which older ones keep, send on and skip in replay.
    public struct Kind: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        /// The byte that names the kind.
        public var rawValue: UInt8

        /// The kind named by `rawValue`.
        public init(rawValue: UInt8) { self.rawValue = rawValue }

        /// An answer to an item (``AnswerPayload``).
        public static let answer = Kind(rawValue: 1)
        /// An answer taken back: the payload is the 16-byte id of the answer it cancels.
        public static let undo = Kind(rawValue: 2)
        /// An item's progress set as a whole (an import or restore): the payload is its JSON.
        public static let setProgress = Kind(rawValue: 3)
        /// An item reset: unseen again.
        public static let reset = Kind(rawValue: 4)
        /// A day's session completed for a deck (the Leitner calendar's clock): the payload is
        /// the learner's date, `yyyy-MM-dd`.
        public static let sessionDayCompleted = Kind(rawValue: 5)
        /// The learner's seed (8 bytes, big-endian): the earliest in the log is the learner's.
        public static let learnerSeed = Kind(rawValue: 6)

        /// Whether this version knows what the kind means.
        public var isKnown: Bool { (1...6).contains(rawValue) }

        /// The kind's name, or `kind N` for one this version does not know.
        public var description: String {
            switch rawValue {
            case 1: "answer"
            case 2: "undo"
            case 3: "setProgress"
            case 4: "reset"
            case 5: "sessionDayCompleted"
            case 6: "learnerSeed"
            default: "kind \(rawValue)"
            }
        }
    }

    /// The event's place in the log: (clock, device, id), as 32 bytes that sort the same way.
    public var orderKey: [UInt8] { Self.orderKey(clock: clock, device: device, id: id) }

    /// The 32 bytes that sort events in replay order.
    static func orderKey(clock: HybridClock, device: DeviceID, id: EventID) -> [UInt8] {
        bigEndianBytes(clock.rawValue) + bigEndianBytes(device.rawValue) + bigEndianBytes(id.high) + bigEndianBytes(id.low)
    }

    /// Whether `self` comes before `other` in replay order.
    public func precedes(_ other: ProgressEvent) -> Bool {
        (clock, device, id) < (other.clock, other.device, other.id)
    }

    /// The answer moment: the wall time as a date.
    var moment: Date { Date(timeIntervalSince1970: Double(wall) / 1000) }

    /// The event's place in the log as plain integers (what sorting a merge compares).
    var order: EventOrder { EventOrder(clock: clock.rawValue, device: device.rawValue, high: id.high, low: id.low) }
}

/// An event's place in the log, (clock, device, id), as four integers: ordered as
/// ``ProgressEvent/orderKey`` is, without its 32-byte array.
struct EventOrder: Comparable, Hashable, Sendable {
    var clock: UInt64
    var device: UInt64
    var high: UInt64
    var low: UInt64

    static func < (lhs: EventOrder, rhs: EventOrder) -> Bool {
        (lhs.clock, lhs.device, lhs.high, lhs.low) < (rhs.clock, rhs.device, rhs.high, rhs.low)
    }

    /// The order of the 32 bytes of an ``ProgressEvent/orderKey``; `nil` for any other count.
    init?(bytes: [UInt8]) {
        guard bytes.count == 32 else { return nil }
        func word(_ start: Int) -> UInt64 { bytes[start..<(start + 8)].reduce(0) { $0 << 8 | UInt64($1) } }
        self.init(clock: word(0), device: word(8), high: word(16), low: word(24))
    }

    init(clock: UInt64, device: UInt64, high: UInt64, low: UInt64) {
        self.clock = clock
        self.device = device
        self.high = high
        self.low = low
    }

    /// The 32 bytes of the order key.
    var bytes: [UInt8] {
        var out = [UInt8](repeating: 0, count: 32)
        for (word, value) in [clock, device, high, low].enumerated() {
            for byte in 0..<8 { out[word * 8 + byte] = UInt8(truncatingIfNeeded: value >> (56 - 8 * UInt64(byte))) }
        }
        return out
    }
}

func bigEndianBytes(_ value: UInt64) -> [UInt8] {
    (0..<8).map { UInt8(truncatingIfNeeded: value >> (56 - 8 * UInt64($0))) }
}

func hexValue(_ byte: UInt8) -> UInt8? {
    switch byte {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
    default: nil
    }
}

/// Lowercase hexadecimal digits of `bytes`.
package func hex(_ bytes: some Sequence<UInt8>) -> String {
    let digits = Array("0123456789abcdef".utf8)
    var out: [UInt8] = []
    for byte in bytes {
        out.append(digits[Int(byte >> 4)])
        out.append(digits[Int(byte & 0x0F)])
    }
    return String(decoding: out, as: UTF8.self)
}
