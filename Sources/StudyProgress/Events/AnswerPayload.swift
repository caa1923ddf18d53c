import Foundation
#if !FUZZ_STANDALONE
    import StudyEngine
#endif

/// What an answer event carries besides its item and time.
///
/// A standard scheduler (`AnyScheduler.standardSettings` in StudyEngine) is carried by its name,
/// time zone and fuzz setting, and the load balancer's move as a number of days, so every device
/// computes the same state from it. An answer scheduled by any other scheduler carries its
/// result (``Mode/recorded(recalled:after:)``): replay takes it as it is.
public struct AnswerPayload: Sendable, Hashable {
    /// What the learner answered.
    public var answer: Answer
    /// How long the learner took, in milliseconds.
    public var durationMilliseconds: Int64
    /// The Leitner session day the answer counted on.
    public var sessionDay: Int?
    /// How the answer is scheduled in replay.
    public var mode: Mode

    /// How replay schedules an answer.
    public enum Mode: Sendable, Hashable {
        /// By the standard scheduler `scheduler` (for an item that has no state yet; an item keeps
        /// its own scheduler), on calendar days in `timeZone` (empty: 24-hour periods), with or
        /// without fuzz, then moved by `balance` days inside its fuzz range.
        case standard(scheduler: String, timeZone: String, fuzz: Bool, balance: Int)
        /// As recorded: the progress after it (JSON) and whether it counted as recalled.
        case recorded(recalled: Bool, after: [UInt8])
    }

    /// A payload with every field.
    public init(answer: Answer, durationMilliseconds: Int64, sessionDay: Int?, mode: Mode) {
        self.answer = answer
        self.durationMilliseconds = durationMilliseconds
        self.sessionDay = sessionDay
        self.mode = mode
    }

    /// The payload's bytes.
    public var bytes: [UInt8] {
        var writer = ByteWriter()
        var flags: UInt8 = 0
        if sessionDay != nil { flags |= 1 }
        if case .recorded = mode { flags |= 2 }
        writer.byte(flags)
        switch answer {
        case .grade(let grade):
            writer.byte(0)
            writer.signed(Int64(grade))
        case .right: writer.byte(1)
        case .wrong: writer.byte(2)
        case .incorrect(let answers):
            writer.byte(3)
            writer.signed(Int64(answers))
        case .multipleChoice(let result):
            writer.byte(4)
            writer.byte(result == .rightFirstTry ? 0 : result == .rightAfterWrongTry ? 1 : 2)
        }
        writer.signed(durationMilliseconds)
        if let sessionDay { writer.signed(Int64(sessionDay)) }
        switch mode {
        case .standard(let scheduler, let timeZone, let fuzz, let balance):
            writer.string(scheduler)
            writer.string(timeZone)
            writer.byte(fuzz ? 1 : 0)
            writer.signed(Int64(balance))
        case .recorded(let recalled, let after):
            writer.byte(recalled ? 1 : 0)
            writer.blob(after)
        }
        return writer.bytes
    }

    /// Reads a payload; `nil` when the bytes are not one (replay then skips the event).
    public init?(bytes: [UInt8]) {
        var reader = ByteReader(bytes)
        guard let head = Self.head(&reader) else { return nil }
        let flags = head.flags
        answer = head.answer
        durationMilliseconds = head.durationMilliseconds
        sessionDay = head.sessionDay
        if flags & 2 != 0 {
            guard let recalled = reader.byte(), let after = reader.blob() else { return nil }
            mode = .recorded(recalled: recalled != 0, after: after)
        } else {
            guard let scheduler = reader.string(), let zone = reader.string(), let fuzz = reader.byte(), let balance = reader.signed(),
                let days = Int(exactly: balance), days.magnitude <= 100_000
            else { return nil }
            mode = .standard(scheduler: scheduler, timeZone: zone, fuzz: fuzz != 0, balance: days)
        }
        guard reader.isAtEnd, flags & ~3 == 0 else { return nil }
    }

    /// The fields before the mode (flags, answer, duration, session day), read from `reader`'s
    /// start as ``init(bytes:)`` reads them; `nil` when they are not valid.
    static func head(_ reader: inout ByteReader) -> (flags: UInt8, answer: Answer, durationMilliseconds: Int64, sessionDay: Int?)? {
        guard let flags = reader.byte(), let tag = reader.byte() else { return nil }
        let answer: Answer
        switch tag {
        case 0:
            guard let grade = reader.signed(), let small = Int(exactly: grade), small.magnitude <= 1000 else { return nil }
            answer = .grade(small)
        case 1: answer = .right
        case 2: answer = .wrong
        case 3:
            guard let count = reader.signed(), let small = Int(exactly: count), small.magnitude <= 1_000_000 else { return nil }
            answer = .incorrect(answers: small)
        case 4:
            guard let result = reader.byte(), result <= 2 else { return nil }
            answer = .multipleChoice(result == 0 ? .rightFirstTry : result == 1 ? .rightAfterWrongTry : .wrong)
        default: return nil
        }
        guard let duration = reader.signed() else { return nil }
        var sessionDay: Int?
        if flags & 1 != 0 {
            guard let day = reader.signed(), let small = Int(exactly: day), small.magnitude <= 1 << 40 else { return nil }
            sessionDay = small
        }
        return (flags, answer, duration, sessionDay)
    }
}
