import Foundation

/// A card state of any scheduler, tagged with the scheduler that wrote it, for apps and tools
/// that store states of several schedulers side by side (and decode them from JSON).
///
/// Its JSON is `{"scheduler": NAME, "state": {…}}`, the state in its scheduler's own shape.
public struct CardState: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The scheduler that wrote the state.
    public let kind: SchedulerKind
    /// The state itself.
    public let value: any SchedulerState

    /// `state`, written by the scheduler `kind`.
    public init<State: SchedulerState>(_ kind: SchedulerKind, _ state: State) {
        self.kind = kind
        value = state
    }

    /// The state as `type`, `nil` if it is another scheduler's.
    public func value<State: SchedulerState>(as type: State.Type) -> State? {
        value as? State
    }

    /// The wrapped state's description.
    public var description: String { value.description }

    /// What level the item has reached, as its scheduler reads its state.
    public func level(due: Due, lastReview: Date?) -> LearnerLevel {
        value.level(due: due, lastReview: lastReview)
    }

    /// The stability that orders reviews by predicted recall, if the scheduler has one.
    public var orderingStability: Double? { value.orderingStability }

    /// The same state due at `date`, if its scheduler lets load balancing move it.
    public func rescheduled(to date: Date) -> CardState? {
        value.rescheduledCard(kind, to: date)
    }

    /// Same scheduler, equal states.
    public static func == (lhs: CardState, rhs: CardState) -> Bool {
        lhs.kind == rhs.kind && lhs.value.isEqual(to: rhs.value)
    }

    /// Hashes the scheduler and the state.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(kind)
        value.hash(into: &hasher)
    }

    private enum CodingKeys: String, CodingKey {
        case scheduler
        case state
    }

    /// `{"scheduler": "sm2", "state": {…}}`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(kind, forKey: .scheduler)
        try value.encode(to: container.superEncoder(forKey: .state))
    }

    /// Reads `{"scheduler": NAME, "state": {…}}`; an unregistered scheduler name is a decoding error.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        kind = try container.decode(SchedulerKind.self, forKey: .scheduler)
        guard let registration = SchedulerRegistry.registration(for: kind.rawValue) else {
            throw DecodingError.dataCorruptedError(forKey: .scheduler, in: container, debugDescription: "no scheduler is named \(kind.rawValue)")
        }
        value = try registration.decodeState(container.superDecoder(forKey: .state))
    }
}

/// Any scheduler behind one type, taking and giving ``CardState``.
///
/// Reviewing a state written by another scheduler is an error
/// (``StudyEngineError/Code/stateFromAnotherScheduler``), never a silent reinterpretation.
public struct AnyScheduler: Sendable {
    /// The scheduler.
    public let base: any ReviewScheduler
    /// How ``standard(_:calendar:fuzz:)`` made this scheduler (its calendar and fuzz setting);
    /// `nil` for a scheduler wrapped with ``init(_:)``, whose settings only its value knows.
    ///
    /// A progress log that replays answers on another device needs to make the same scheduler
    /// again: a standard one is its kind and these settings.
    public private(set) var standardSettings: StandardSettings?

    /// What makes a standard scheduler: the calendar whole days are counted on, and fuzz.
    public struct StandardSettings: Sendable, Hashable {
        /// The calendar whole days are counted on.
        public var calendar: LearnerCalendar
        /// Whether intervals are fuzzed (where the scheduler has fuzz).
        public var fuzz: Bool

        /// Settings with a calendar and a fuzz setting.
        public init(calendar: LearnerCalendar, fuzz: Bool) {
            self.calendar = calendar
            self.fuzz = fuzz
        }
    }

    /// Wraps `scheduler`.
    public init(_ scheduler: some ReviewScheduler) { base = scheduler }

    /// The scheduler `kind` with its default settings, whole days counted on `calendar`; fuzz as
    /// asked where the scheduler has one.
    ///
    /// Every kind that decodes or parses is registered; a kind declared with
    /// ``SchedulerKind/init(declaring:)`` and never registered is a programming error.
    public static func standard(_ kind: SchedulerKind, calendar: LearnerCalendar = .utc, fuzz: Bool = true) -> AnyScheduler {
        guard let registration = SchedulerRegistry.registration(for: kind.rawValue) else {
            preconditionFailure("no scheduler is registered as \(kind.rawValue): add it to SchedulerRegistry")
        }
        var scheduler = registration.make(calendar, fuzz)
        scheduler.standardSettings = StandardSettings(calendar: calendar, fuzz: fuzz)
        return scheduler
    }

    /// Which scheduler this is.
    public var kind: SchedulerKind { base.kind }

    /// A new item's state.
    public func newState(at moment: StudyMoment) -> CardState {
        func open<S: ReviewScheduler>(_ scheduler: S) -> CardState { CardState(scheduler.kind, scheduler.newState(at: moment)) }
        return open(base)
    }

    /// Checks that `answer` is one this scheduler takes, without a state.
    public func validate(_ answer: Answer) throws(StudyEngineError) {
        try base.validate(answer)
    }

    /// The answer a self-graded card's four buttons (Again, Hard, Good, Easy) stand for here.
    public func answer(forCardGrade grade: CardGrade) -> Answer { base.answer(forCardGrade: grade) }

    /// Whether `answer` counts as recalled by this scheduler.
    public func recalled(_ answer: Answer) -> Bool { base.recalled(answer) }

    /// The order this scheduler's due reviews are shown in.
    public var reviewOrder: ReviewOrder { base.reviewOrder }

    /// Reviews `state`, which must come from this scheduler.
    public func review<Random: RandomNumberGenerator>(
        _ state: CardState, answer: Answer, at moment: StudyMoment, random: inout Random
    ) throws(StudyEngineError) -> Scheduled<CardState> {
        func open<S: ReviewScheduler>(_ scheduler: S, _ random: inout Random) throws(StudyEngineError) -> Scheduled<CardState> {
            guard state.kind == scheduler.kind, let typed = state.value(as: S.State.self) else {
                throw StudyEngineError(
                    .stateFromAnotherScheduler, "this is the \(scheduler.kind.rawValue) scheduler, the state was written by \(state.kind.rawValue)", at: .field("state"))
            }
            return try scheduler.review(typed, answer: answer, at: moment, random: &random).map { CardState(scheduler.kind, $0) }
        }
        return try open(base, &random)
    }
}

extension SchedulerState {
    /// Whether `other` is a state of this type and equal to this one.
    func isEqual(to other: any SchedulerState) -> Bool { (other as? Self) == self }

    /// ``rescheduled(to:)`` as a card state of `kind`.
    func rescheduledCard(_ kind: SchedulerKind, to date: Date) -> CardState? {
        rescheduled(to: date).map { CardState(kind, $0) }
    }
}
