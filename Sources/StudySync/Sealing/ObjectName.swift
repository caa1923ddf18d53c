#if !FUZZ_STANDALONE
    import StudyProgress
#endif

/// The name of an object on the remote, under the remote's root. Every name sync writes or
/// reads has one of these shapes; a listed name of any other shape is not sync's and is left alone.
///
/// - `learners/L/key-check`: one small object that tells a wrong key from the right one;
/// - `learners/L/devices/D/segments/SEQUENCE-TAG`: a device's events, written once;
/// - `learners/L/devices/D/snapshots/SEQUENCE-TAG`: the whole log as a device had it.
///
/// L and D are 16 hexadecimal digits, SEQUENCE 10 decimal digits (the device's own count of what
/// it wrote), TAG 16 hexadecimal digits of a keyed hash of the content, so two writers that
/// share a device id by mistake (a copied progress file) never write under one name.
struct ObjectName: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// What an object is.
    enum Kind: UInt8, Sendable, Hashable, Comparable {
        case segment = 1
        case snapshot = 2
        case backup = 3
        case keyCheck = 4

        static func < (lhs: Kind, rhs: Kind) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    var kind: Kind
    var learner: UInt64
    var device: UInt64
    var sequence: Int
    var tag: String

    /// The largest sequence number a name holds.
    static let maximumSequence = 9_999_999_999

    /// The name's text.
    var description: String {
        let learnerText = DeviceID(rawValue: learner).description
        switch kind {
        case .keyCheck: return "learners/\(learnerText)/key-check"
        case .backup: return "backup"
        case .segment, .snapshot:
            let folder = kind == .segment ? "segments" : "snapshots"
            let number = String(sequence)
            return "learners/\(learnerText)/devices/\(DeviceID(rawValue: device))/\(folder)/"
                + String(repeating: "0", count: max(0, 10 - number.count)) + number + "-" + tag
        }
    }

    /// The learner's folder: `learners/L/`.
    static func learnerFolder(_ learner: UInt64) -> String { "learners/\(DeviceID(rawValue: learner))/" }

    /// Parses a listed name; `nil` for anything that is not exactly one of sync's shapes.
    init?(parsing text: String) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        guard parts.count >= 3, parts[0] == "learners", let learner = DeviceID(hex: parts[1]) else { return nil }
        if parts.count == 3, parts[2] == "key-check" {
            self.init(kind: .keyCheck, learner: learner.rawValue, device: 0, sequence: 0, tag: "")
            return
        }
        guard parts.count == 6, parts[2] == "devices", let device = DeviceID(hex: parts[3]),
            let kind: Kind = parts[4] == "segments" ? .segment : parts[4] == "snapshots" ? .snapshot : nil
        else { return nil }
        let file = parts[5].utf8
        guard file.count == 27, Array(file)[10] == UInt8(ascii: "-") else { return nil }
        let digits = Array(file.prefix(10))
        let tag = String(decoding: file.suffix(16), as: UTF8.self)
        guard digits.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }), DeviceID(hex: tag) != nil,
            let sequence = Int(String(decoding: digits, as: UTF8.self))
        else { return nil }
        self.init(kind: kind, learner: learner.rawValue, device: device.rawValue, sequence: sequence, tag: tag)
    }

    init(kind: Kind, learner: UInt64, device: UInt64, sequence: Int, tag: String) {
        self.kind = kind
        self.learner = learner
        self.device = device
        self.sequence = sequence
        self.tag = tag
    }

    /// Orders by kind (snapshots after segments), device, then sequence.
    static func < (lhs: ObjectName, rhs: ObjectName) -> Bool {
        (lhs.kind, lhs.device, lhs.sequence, lhs.tag) < (rhs.kind, rhs.device, rhs.sequence, rhs.tag)
    }
}
