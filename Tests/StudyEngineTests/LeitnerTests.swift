import Foundation
import StudyEngine
import Testing

@Suite("Leitner, seven levels")
struct LeitnerTests {
    let leitner = LeitnerScheduler()

    @Test("per 64-day loop level k is reviewed on 64/2^(k−1) days: 64, 32, 16, 8, 4, 2, 1")
    func calendarFrequencies() {
        #expect(LeitnerScheduler.calendar.count == 64)
        for level in 1...7 {
            let days = (1...64).filter { LeitnerScheduler.reviews(level: level, onSessionDay: $0) }.count
            #expect(days == 64 >> (level - 1), "level \(level)")
        }
    }

    @Test("the calendar matches Nicky Case's: day 13 is 4,2,1, day 56 is 7,1, day 59 is 6,2,1")
    func calendarDays() {
        #expect(LeitnerScheduler.calendar[12] == [4, 2, 1])
        #expect(LeitnerScheduler.calendar[55] == [7, 1])
        #expect(LeitnerScheduler.calendar[58] == [6, 2, 1])
        #expect(LeitnerScheduler.calendar[63] == [1])
        #expect(LeitnerScheduler.reviews(level: 2, onSessionDay: 65))
    }

    @Test("right moves up a level and waits for that level's next day; wrong goes back to level 1")
    func upAndDown() throws {
        let now = utc("2026-01-05T09:00:00Z")
        var state = leitner.newState(at: StudyMoment(now, sessionDay: 1))
        #expect(state.level == 1 && state.dueSessionDay == 1)
        var result = try leitner.review(state, answer: .right, at: StudyMoment(now, sessionDay: 1))
        #expect(result.state.level == 2)
        #expect(result.due == .sessionDay(3))
        #expect(result.interval == .sessionDays(2))
        state = result.state
        result = try leitner.review(state, answer: .right, at: StudyMoment(now, sessionDay: 3))
        #expect(result.state.level == 3)
        #expect(result.due == .sessionDay(6))
        result = try leitner.review(result.state, answer: .wrong, at: StudyMoment(now, sessionDay: 6))
        #expect(result.state.level == 1)
        #expect(result.due == .sessionDay(7))
    }

    @Test("the counter is session days: a week off still brings the next day's set, not a pile")
    func missedDaysDoNotPileUp() throws {
        let monday = utc("2026-01-05T09:00:00Z")
        let state = try leitner.review(leitner.newState(at: StudyMoment(monday, sessionDay: 1)), answer: .right, at: StudyMoment(monday, sessionDay: 1)).state
        // Due on session day 3; the learner completes day 2, then is away for a week.
        let backAfterAWeek = monday.plus(days: 9)
        #expect(state.dueSessionDay == 3)
        let result = try leitner.review(state, answer: .right, at: StudyMoment(backAfterAWeek, sessionDay: 3))
        #expect(result.state.level == 3)
        #expect(result.due == .sessionDay(6))
    }

    @Test("right at level 7 retires the card; a retired card is not reviewed again")
    func retiresAfterLevelSeven() throws {
        var state = leitner.newState(at: StudyMoment(Date(timeIntervalSince1970: 0), sessionDay: 1))
        var day = 1
        var levels: [Int] = []
        for _ in 0..<7 {
            let result = try leitner.review(state, answer: .right, at: StudyMoment(Date(timeIntervalSince1970: 0), sessionDay: day))
            state = result.state
            levels.append(state.retired ? 8 : state.level)
            if case .sessionDay(let next) = result.due { day = next }
        }
        #expect(levels == [2, 3, 4, 5, 6, 7, 8])
        #expect(state.retired)
        #expect(throws: StudyEngineError(.itemRetired, "leitner: the item was retired after level 7 and is not reviewed again", at: .field("retired"))) {
            try leitner.review(state, answer: .right, at: StudyMoment(Date(timeIntervalSince1970: 0), sessionDay: day + 1))
        }
    }

    @Test("a level-7 card waits for day 56 of the loop")
    func levelSevenWaitsForDay56() {
        #expect(LeitnerScheduler.nextSessionDay(for: 7, after: 1) == 56)
        #expect(LeitnerScheduler.nextSessionDay(for: 7, after: 56) == 120)
    }

    @Test("without the deck's session day the session-calendar scheduler refuses to guess")
    func needsSessionDay() {
        let state = leitner.newState(at: StudyMoment(Date(timeIntervalSince1970: 0)))
        #expect(throws: StudyEngineError(.missingSessionDay, "the session-calendar leitner scheduler needs the deck's session day", at: .field("sessionDay"))) {
            try leitner.review(state, answer: .right, at: StudyMoment(Date(timeIntervalSince1970: 0)))
        }
    }

    @Test("Leitner takes right or wrong, not a grade")
    func gradesRefused() {
        let state = leitner.newState(at: StudyMoment(Date(timeIntervalSince1970: 0), sessionDay: 1))
        #expect(throws: StudyEngineError(.answerNotAccepted, "leitner takes right or wrong (or a multiple-choice result), got grade(4)", at: .field("answer"))) {
            try leitner.review(state, answer: .grade(4), at: StudyMoment(Date(timeIntervalSince1970: 0), sessionDay: 1))
        }
    }

    @Test("the wall-clock variant: box k is due 2^(k−1) calendar days after its review")
    func wallClock() throws {
        let scheduler = WallClockLeitnerScheduler()
        var now = utc("2026-01-05T09:00:00Z")
        var state = scheduler.newState(at: StudyMoment(now))
        var intervals: [Interval] = []
        for _ in 0..<7 {
            let result = try scheduler.review(state, answer: .right, at: StudyMoment(now))
            intervals.append(result.interval)
            state = result.state
            if case .date(let due) = result.due { now = due }
        }
        #expect(intervals == [.days(2), .days(4), .days(8), .days(16), .days(32), .days(64), .never])
        #expect(state.retired)
        let wrong = try scheduler.review(WallClockLeitnerScheduler.State(box: 5, retired: false, lastReview: nil, due: now), answer: .wrong, at: StudyMoment(now))
        #expect(wrong.state.box == 1 && wrong.interval == .days(1))
    }
}
