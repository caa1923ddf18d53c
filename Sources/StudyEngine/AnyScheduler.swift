import Foundation

/// A card state of any scheduler, tagged with the scheduler that wrote it, for apps and tools
/// that store states of several schedulers side by side (and decode them from JSON).
public enum CardState: Sendable, Hashable, Codable, CustomStringConvertible {
    /// An SM-2 state.
    case sm2(SM2Scheduler.State)
    /// A session-calendar Leitner state.
    case leitner(LeitnerScheduler.State)
    /// A wall-clock Leitner state.
    case leitnerWallClock(WallClockLeitnerScheduler.State)
    /// A staged (WaniKani) state.
    case staged(StagedScheduler.State)
    /// A half-life state.
    case halfLife(HalfLifeScheduler.State)
    /// An HLR state.
    case hlr(HLRScheduler.State)
    /// An FSRS-6 state.
    case fsrs6(FSRSState)
    /// An FSRS-5 state.
    case fsrs5(FSRSState)

    /// The scheduler that wrote the state.
    public var kind: SchedulerKind {
        switch self {
        case .sm2: .sm2
        case .leitner: .leitner
        case .leitnerWallClock: .leitnerWallClock
        case .staged: .staged
        case .halfLife: .halfLife
        case .hlr: .hlr
        case .fsrs6: .fsrs6
        case .fsrs5: .fsrs5
        }
    }

    /// The wrapped state's description.
    public var description: String {
        switch self {
        case .sm2(let s): s.description
        case .leitner(let s): s.description
        case .leitnerWallClock(let s): s.description
        case .staged(let s): s.description
        case .halfLife(let s): s.description
        case .hlr(let s): s.description
        case .fsrs6(let s), .fsrs5(let s): s.description
        }
    }
}

extension CardState {
    private enum CodingKeys: String, CodingKey {
        case scheduler
        case state
    }

    /// `{"scheduler": "sm2", "state": {…}}`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(kind, forKey: .scheduler)
        switch self {
        case .sm2(let s): try container.encode(s, forKey: .state)
        case .leitner(let s): try container.encode(s, forKey: .state)
        case .leitnerWallClock(let s): try container.encode(s, forKey: .state)
        case .staged(let s): try container.encode(s, forKey: .state)
        case .halfLife(let s): try container.encode(s, forKey: .state)
        case .hlr(let s): try container.encode(s, forKey: .state)
        case .fsrs6(let s), .fsrs5(let s): try container.encode(s, forKey: .state)
        }
    }

    /// Reads `{"scheduler": NAME, "state": {…}}`; an unknown scheduler name is a decoding error.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        switch try container.decode(SchedulerKind.self, forKey: .scheduler) {
        case .sm2: self = .sm2(try container.decode(SM2Scheduler.State.self, forKey: .state))
        case .leitner: self = .leitner(try container.decode(LeitnerScheduler.State.self, forKey: .state))
        case .leitnerWallClock: self = .leitnerWallClock(try container.decode(WallClockLeitnerScheduler.State.self, forKey: .state))
        case .staged: self = .staged(try container.decode(StagedScheduler.State.self, forKey: .state))
        case .halfLife: self = .halfLife(try container.decode(HalfLifeScheduler.State.self, forKey: .state))
        case .hlr: self = .hlr(try container.decode(HLRScheduler.State.self, forKey: .state))
        case .fsrs6: self = .fsrs6(try container.decode(FSRSState.self, forKey: .state))
        case .fsrs5: self = .fsrs5(try container.decode(FSRSState.self, forKey: .state))
        }
    }
}

/// Any of the engine's schedulers behind one type, taking and giving ``CardState``.
///
/// Reviewing a state written by another scheduler is an error
/// (``StudyEngineError/Code/stateFromAnotherScheduler``), never a silent reinterpretation.
public struct AnyScheduler: Sendable {
    private enum Box: Sendable {
        case sm2(SM2Scheduler)
        case leitner(LeitnerScheduler)
        case leitnerWallClock(WallClockLeitnerScheduler)
        case staged(StagedScheduler)
        case halfLife(HalfLifeScheduler)
        case hlr(HLRScheduler)
        case fsrs(FSRSScheduler)
    }

    private let box: Box

    /// Wraps an SM-2 scheduler.
    public init(_ scheduler: SM2Scheduler) { box = .sm2(scheduler) }
    /// Wraps a session-calendar Leitner scheduler.
    public init(_ scheduler: LeitnerScheduler) { box = .leitner(scheduler) }
    /// Wraps a wall-clock Leitner scheduler.
    public init(_ scheduler: WallClockLeitnerScheduler) { box = .leitnerWallClock(scheduler) }
    /// Wraps a staged scheduler.
    public init(_ scheduler: StagedScheduler) { box = .staged(scheduler) }
    /// Wraps a half-life scheduler.
    public init(_ scheduler: HalfLifeScheduler) { box = .halfLife(scheduler) }
    /// Wraps an HLR scheduler.
    public init(_ scheduler: HLRScheduler) { box = .hlr(scheduler) }
    /// Wraps an FSRS-6 or FSRS-5 scheduler.
    public init(_ scheduler: FSRSScheduler) { box = .fsrs(scheduler) }

    /// The scheduler `kind` with its default settings, whole days counted on `calendar`;
    /// FSRS fuzz as asked.
    public static func standard(_ kind: SchedulerKind, calendar: LearnerCalendar = .utc, fuzz: Bool = true) -> AnyScheduler {
        switch kind {
        case .sm2: AnyScheduler(SM2Scheduler(calendar: calendar))
        case .leitner: AnyScheduler(LeitnerScheduler())
        case .leitnerWallClock: AnyScheduler(WallClockLeitnerScheduler(calendar: calendar))
        case .staged: AnyScheduler(StagedScheduler())
        case .halfLife: AnyScheduler(HalfLifeScheduler(calendar: calendar))
        case .hlr: AnyScheduler(HLRScheduler(calendar: calendar))
        case .fsrs6: AnyScheduler(FSRSScheduler.fsrs6(calendar: calendar, fuzz: fuzz))
        case .fsrs5: AnyScheduler(FSRSScheduler.fsrs5(calendar: calendar, fuzz: fuzz))
        }
    }

    /// Which scheduler this is.
    public var kind: SchedulerKind {
        switch box {
        case .sm2(let s): s.kind
        case .leitner(let s): s.kind
        case .leitnerWallClock(let s): s.kind
        case .staged(let s): s.kind
        case .halfLife(let s): s.kind
        case .hlr(let s): s.kind
        case .fsrs(let s): s.kind
        }
    }

    /// A new item's state.
    public func newState(at moment: StudyMoment) -> CardState {
        switch box {
        case .sm2(let s): .sm2(s.newState(at: moment))
        case .leitner(let s): .leitner(s.newState(at: moment))
        case .leitnerWallClock(let s): .leitnerWallClock(s.newState(at: moment))
        case .staged(let s): .staged(s.newState(at: moment))
        case .halfLife(let s): .halfLife(s.newState(at: moment))
        case .hlr(let s): .hlr(s.newState(at: moment))
        case .fsrs(let s): s.kind == .fsrs5 ? .fsrs5(s.newState(at: moment)) : .fsrs6(s.newState(at: moment))
        }
    }

    /// Checks that `answer` is one this scheduler takes, without a state.
    public func validate(_ answer: Answer) throws(StudyEngineError) {
        let name = kind.rawValue
        switch box {
        case .sm2: _ = try answer.sm2Grade(scheduler: name)
        case .fsrs: _ = try answer.fsrsRating(scheduler: name)
        case .staged:
            if case .grade = answer { _ = try answer.isRight(scheduler: name) }
            if case .incorrect(let n) = answer, n < 1 { _ = try answer.isRight(scheduler: name) }
        case .leitner, .leitnerWallClock, .halfLife, .hlr:
            if case .incorrect = answer {
                throw StudyEngineError(.answerNotAccepted, field: "answer", "\(name) takes right or wrong; counts of wrong answers are for the staged scheduler")
            }
            _ = try answer.isRight(scheduler: name)
        }
    }

    /// Reviews `state`, which must come from this scheduler.
    public func review<Random: RandomNumberGenerator>(
        _ state: CardState, answer: Answer, at moment: StudyMoment, random: inout Random
    ) throws(StudyEngineError) -> Scheduled<CardState> {
        switch (box, state) {
        case (.sm2(let s), .sm2(let st)):
            return try s.review(st, answer: answer, at: moment, random: &random).map { .sm2($0) }
        case (.leitner(let s), .leitner(let st)):
            return try s.review(st, answer: answer, at: moment, random: &random).map { .leitner($0) }
        case (.leitnerWallClock(let s), .leitnerWallClock(let st)):
            return try s.review(st, answer: answer, at: moment, random: &random).map { .leitnerWallClock($0) }
        case (.staged(let s), .staged(let st)):
            return try s.review(st, answer: answer, at: moment, random: &random).map { .staged($0) }
        case (.halfLife(let s), .halfLife(let st)):
            return try s.review(st, answer: answer, at: moment, random: &random).map { .halfLife($0) }
        case (.hlr(let s), .hlr(let st)):
            return try s.review(st, answer: answer, at: moment, random: &random).map { .hlr($0) }
        case (.fsrs(let s), .fsrs6(let st)) where s.kind == .fsrs6:
            return try s.review(st, answer: answer, at: moment, random: &random).map { .fsrs6($0) }
        case (.fsrs(let s), .fsrs5(let st)) where s.kind == .fsrs5:
            return try s.review(st, answer: answer, at: moment, random: &random).map { .fsrs5($0) }
        default:
            throw StudyEngineError(
                .stateFromAnotherScheduler, field: "state",
                "this is the \(kind.rawValue) scheduler, the state was written by \(state.kind.rawValue)")
        }
    }
}
