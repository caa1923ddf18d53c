import Foundation
import StudyEngine
import Testing

/// A scheduler that exists only in the tests, added the way a new scheduler is: this type, its
/// state and its name, and one registration line (``FixedDaysScheduler/registration``).
struct FixedDaysScheduler: ReviewScheduler {
    struct State: SchedulerState {
        var rightInARow: Int
        var lastReview: Date?
        var due: Date
        var description: String { "right \(rightInARow)×" }

        /// Three right answers in a row is mastery.
        func level(due: Due, lastReview: Date?) -> LearnerLevel { rightInARow >= 3 ? .master : .beginner }
    }

    /// The one line a new scheduler adds to the registry.
    static let registration = SchedulerRegistration(.fixedDays) { _, _ in FixedDaysScheduler(days: 3) }

    var days: Int
    var kind: SchedulerKind { .fixedDays }

    func newState(at moment: StudyMoment) -> State { State(rightInARow: 0, lastReview: nil, due: moment.date) }

    func validate(_ state: State) throws(StudyEngineError) {
        guard state.rightInARow >= 0 else { throw StudyEngineError(.invalidState, "cannot be negative", at: .field("rightInARow")) }
    }

    func review<Random: RandomNumberGenerator>(
        _ state: State, answer: Answer, at moment: StudyMoment, random: inout Random
    ) throws(StudyEngineError) -> Scheduled<State> {
        try validate(state)
        try validate(answer)
        let right = recalled(answer)
        let due = moment.date.addingTimeInterval(right ? Double(days) * 86_400 : 0)
        let next = State(rightInARow: right ? state.rightInARow + 1 : 0, lastReview: moment.date, due: due)
        return Scheduled(state: next, due: .date(due), interval: .days(right ? days : 0))
    }
}

extension SchedulerKind {
    /// The tests' own scheduler.
    static let fixedDays = SchedulerKind(declaring: "fixed-days")
}

@Suite("Schedulers own their rules: one file and one registration line add one")
struct SchedulerRegistryTests {
    init() { SchedulerRegistry.register(FixedDaysScheduler.registration) }

    let now = Date(timeIntervalSince1970: 1_795_338_000)

    @Test("a scheduler registered from outside the engine works end to end through AnyScheduler and CardState JSON")
    func registeredFromOutside() throws {
        #expect(SchedulerKind(rawValue: "fixed-days") == .fixedDays)
        #expect(SchedulerKind.allCases.contains(.fixedDays))
        let scheduler = AnyScheduler.standard(.fixedDays)
        var random = SplitMix64(seed: 1)
        let first = try scheduler.review(scheduler.newState(at: StudyMoment(now)), answer: .right, at: StudyMoment(now), random: &random)
        #expect(first.interval == .days(3))
        #expect(scheduler.answer(forCardGrade: .again) == .wrong)
        #expect(throws: StudyEngineError.self) { try scheduler.validate(.grade(3)) }

        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        encoder.dateEncodingStrategy = .secondsSince1970
        let json = String(decoding: try encoder.encode(first.state), as: UTF8.self)
        #expect(json == #"{"scheduler":"fixed-days","state":{"due":1795597200,"lastReview":1795338000,"rightInARow":1}}"#)
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        let decoded = try decoder.decode(CardState.self, from: Data(json.utf8))
        #expect(decoded == first.state)
        #expect(decoded.level(due: first.due, lastReview: now) == .beginner)
        // Its states are its own: another scheduler refuses them, and it refuses theirs.
        #expect(throws: StudyEngineError.self) {
            try AnyScheduler.standard(.sm2).review(decoded, answer: .grade(4), at: StudyMoment(now), random: &random)
        }
        #expect(throws: StudyEngineError.self) {
            try scheduler.review(AnyScheduler.standard(.sm2).newState(at: StudyMoment(now)), answer: .right, at: StudyMoment(now), random: &random)
        }
    }

    @Test("an unregistered scheduler name does not decode or parse")
    func unknownName() {
        #expect(SchedulerKind(rawValue: "sm3") == nil)
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(CardState.self, from: Data(#"{"scheduler":"sm3","state":{}}"#.utf8))
        }
    }

    @Test("card states keep the JSON the engine always wrote: each scheduler's state under its name")
    func jsonUnchanged() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        encoder.dateEncodingStrategy = .secondsSince1970
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        // As a progress database of the previous version holds them.
        let stored = [
            #"{"scheduler":"fsrs6","state":{"difficulty":5,"due":1795338000,"lastReview":1795251600,"phase":"review","stability":3.25}}"#,
            #"{"scheduler":"fsrs5","state":{"due":1795338000,"phase":"learning","step":0}}"#,
            #"{"scheduler":"sm2","state":{"due":1795338000,"easinessHundredths":250,"intervalDays":6,"lastReview":1794819600,"repeatToday":false,"repetitions":2}}"#,
            #"{"scheduler":"leitner","state":{"dueSessionDay":4,"lastSessionDay":2,"level":3,"retired":false}}"#,
            #"{"scheduler":"leitner-wallclock","state":{"box":2,"due":1795338000,"retired":false}}"#,
            #"{"scheduler":"staged","state":{"due":1795338000,"stage":5}}"#,
            #"{"scheduler":"half-life","state":{"due":1795338000,"halfLifeDays":4}}"#,
            #"{"scheduler":"hlr","state":{"due":1795338000,"right":3,"wrong":1}}"#,
        ]
        for text in stored {
            let state = try decoder.decode(CardState.self, from: Data(text.utf8))
            #expect(String(decoding: try encoder.encode(state), as: UTF8.self) == text)
        }
        let fsrs = try decoder.decode(CardState.self, from: Data(stored[0].utf8))
        #expect(fsrs.kind == .fsrs6 && fsrs.value(as: FSRSState.self)?.stability == 3.25)
        #expect(fsrs.orderingStability == 3.25)
        let staged = try decoder.decode(CardState.self, from: Data(stored[5].utf8))
        #expect(staged.level(due: .date(now), lastReview: nil) == .intermediate)
        #expect(staged.rescheduled(to: now) == nil)
    }

    @Test("what each scheduler owns: card grades, recall, review order, level and load balancing")
    func ownedRules() {
        let fsrs = AnyScheduler.standard(.fsrs6)
        let sm2 = AnyScheduler.standard(.sm2)
        let leitner = AnyScheduler.standard(.leitner)
        #expect(FSRSRating.allCases.map(fsrs.answer(forCardGrade:)) == [.grade(1), .grade(2), .grade(3), .grade(4)])
        #expect(FSRSRating.allCases.map(sm2.answer(forCardGrade:)) == [.grade(1), .grade(3), .grade(4), .grade(5)])
        #expect(FSRSRating.allCases.map(leitner.answer(forCardGrade:)) == [.wrong, .right, .right, .right])
        #expect(!sm2.recalled(.grade(2)) && fsrs.recalled(.grade(2)))
        #expect(fsrs.reviewOrder == .lowestPredictedRecall && sm2.reviewOrder == .mostOverdue)
        #expect(fsrs.newState(at: StudyMoment(now)).rescheduled(to: now) != nil)
        #expect(leitner.newState(at: StudyMoment(now, sessionDay: 1)).rescheduled(to: now) == nil)
    }
}
