import Foundation
import StudyEngine
import Testing

@Suite("Bad input is a typed error, never a trap")
struct BadInputTests {
    let now = utc("2026-01-05T09:00:00Z")

    @Test("a state written by another scheduler is refused, naming both", arguments: SchedulerKind.allCases)
    func stateFromAnotherScheduler(kind: SchedulerKind) throws {
        let other: SchedulerKind = kind == .sm2 ? .fsrs6 : .sm2
        let state = AnyScheduler.standard(other).newState(at: StudyMoment(now, sessionDay: 1))
        let scheduler = AnyScheduler.standard(kind)
        var random = SplitMix64(seed: 1)
        #expect(throws: StudyEngineError(.stateFromAnotherScheduler, "this is the \(kind.rawValue) scheduler, the state was written by \(other.rawValue)", at: .field("state"))) {
            try scheduler.review(state, answer: .right, at: StudyMoment(now, sessionDay: 1), random: &random)
        }
    }

    @Test("a state decoded from JSON keeps the scheduler it came from")
    func decodedStateKeepsItsScheduler() throws {
        let state = AnyScheduler.standard(.fsrs5).newState(at: StudyMoment(now))
        let data = try JSONEncoder().encode(state)
        let decoded = try JSONDecoder().decode(CardState.self, from: data)
        #expect(decoded == state)
        var random = SplitMix64(seed: 1)
        #expect(throws: StudyEngineError.self) {
            try AnyScheduler.standard(.fsrs6).review(decoded, answer: .grade(3), at: StudyMoment(now), random: &random)
        }
    }

    @Test("a due date before the last review is refused by every scheduler that has dates")
    func dueBeforeLastReview() {
        let last = now
        let early = now.plus(days: -1)
        #expect(throws: StudyEngineError(.dueBeforeLastReview, "sm2 due 2026-01-04T09:00:00Z is before the last review 2026-01-05T09:00:00Z", at: .field("due"))) {
            try SM2Scheduler().review(.init(repetitions: 1, easinessHundredths: 250, intervalDays: 1, lastReview: last, due: early, repeatToday: false), answer: .grade(4), at: StudyMoment(now))
        }
        #expect(throws: StudyEngineError(.dueBeforeLastReview, "fsrs6 due 2026-01-04T09:00:00Z is before the last review 2026-01-05T09:00:00Z", at: .field("due"))) {
            try FSRSScheduler.fsrs6().review(FSRSState(phase: .review, step: nil, stability: 3, difficulty: 5, lastReview: last, due: early), answer: .grade(3), at: StudyMoment(now))
        }
        #expect(throws: StudyEngineError(.dueBeforeLastReview, "leitner due session day 3 is before the last review's session day 5", at: .field("dueSessionDay"))) {
            try LeitnerScheduler().review(.init(level: 2, retired: false, dueSessionDay: 3, lastSessionDay: 5), answer: .right, at: StudyMoment(now, sessionDay: 6))
        }
        #expect(throws: StudyEngineError.self) {
            try StagedScheduler().review(.init(stage: 3, lastReview: last, due: early), answer: .right, at: StudyMoment(now))
        }
        #expect(throws: StudyEngineError.self) {
            try HalfLifeScheduler().review(.init(halfLifeDays: 2, lastPractice: last, due: early), answer: .right, at: StudyMoment(now))
        }
        #expect(throws: StudyEngineError.self) {
            try HLRScheduler().review(.init(right: 1, wrong: 0, lastPractice: last, due: early), answer: .right, at: StudyMoment(now))
        }
        #expect(throws: StudyEngineError.self) {
            try WallClockLeitnerScheduler().review(.init(box: 2, retired: false, lastReview: last, due: early), answer: .right, at: StudyMoment(now))
        }
    }

    @Test("a clock that moved backwards never gives a negative interval or a due date in the past", arguments: SchedulerKind.allCases)
    func clockBackwards(kind: SchedulerKind) throws {
        let scheduler = AnyScheduler.standard(kind, fuzz: true)
        var random = SplitMix64(seed: 3)
        var state = scheduler.newState(at: StudyMoment(now, sessionDay: 1))
        var clock = now
        let answers: [Answer] = [.multipleChoice(.rightFirstTry), .multipleChoice(.rightFirstTry), .multipleChoice(.wrong), .multipleChoice(.rightAfterWrongTry), .multipleChoice(.rightFirstTry)]
        for (step, answer) in answers.enumerated() {
            // The clock jumps back three days between answers.
            clock = clock.plus(days: -3)
            let result = try scheduler.review(state, answer: answer, at: StudyMoment(clock, sessionDay: 1 + step), random: &random)
            if let days = result.interval.days { #expect(days >= 0) }
            if case .date(let due) = result.due { #expect(due >= clock) }
            state = result.state
        }
    }

    @Test("unusable stored states are refused with the field that is wrong")
    func invalidStates() {
        #expect(throws: StudyEngineError(.invalidState, "sm2 EF is at least 1.30, got 100 hundredths", at: .field("easinessHundredths"))) {
            try SM2Scheduler().review(.init(repetitions: 1, easinessHundredths: 100, intervalDays: 1, lastReview: nil, due: now, repeatToday: false), answer: .grade(4), at: StudyMoment(now))
        }
        #expect(throws: StudyEngineError(.invalidState, "difficulty must be 1 to 10, got 11.0", at: .field("difficulty"))) {
            try FSRSScheduler.fsrs6().review(FSRSState(phase: .review, step: nil, stability: 3, difficulty: 11, lastReview: nil, due: now), answer: .grade(3), at: StudyMoment(now))
        }
        #expect(throws: StudyEngineError(.invalidState, "staged stages are 0 (lesson) to 9 (burned), got 12", at: .field("stage"))) {
            try StagedScheduler().review(.init(stage: 12, lastReview: nil, due: now), answer: .right, at: StudyMoment(now))
        }
        #expect(throws: StudyEngineError(.invalidState, "leitner levels are 1 to 7, got 0", at: .field("level"))) {
            try LeitnerScheduler().review(.init(level: 0, retired: false, dueSessionDay: 1, lastSessionDay: nil), answer: .right, at: StudyMoment(now, sessionDay: 1))
        }
    }

    @Test("the multiple-choice table: first try → q5 / Good / right, after a wrong try → q3 / Hard / right, wrong → q2 / Again / wrong")
    func multipleChoiceMapping() {
        #expect(MultipleChoiceResult.allCases.map(\.sm2Grade) == [5, 3, 2])
        #expect(MultipleChoiceResult.allCases.map(\.fsrsRating) == [.good, .hard, .again])
        #expect(MultipleChoiceResult.allCases.map(\.isRight) == [true, true, false])
    }

    @Test("an error's description is one line with place, code and reason")
    func description() {
        let error = StudyEngineError(.gradeOutOfRange, "FSRS grades are 1 to 4, got 7", at: .file("log.csv", line: 7, field: "review_rating"))
        #expect(error.description == "log.csv:7: review_rating: gradeOutOfRange: FSRS grades are 1 to 4, got 7")
        #expect(StudyEngineError(.gradeOutOfRange, "bad", at: .line(3)).description == "line 3: gradeOutOfRange: bad")
    }
}
