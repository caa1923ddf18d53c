import Foundation
import StudyEngine
import Testing

@Suite("SM-2, exactly as Woźniak wrote it")
struct SM2Tests {
    let sm2 = SM2Scheduler()

    @Test("4,4,4,4,4,4,4,4 gives 1, 6, 15, 38, 95, 238, 595, 1488 and EF stays 2.50")
    func allFours() throws {
        #expect(try sm2.intervals(forGrades: [4, 4, 4, 4, 4, 4, 4, 4]) == [1, 6, 15, 38, 95, 238, 595, 1488])
        #expect(try finalEF([4, 4, 4, 4, 4, 4, 4, 4]) == 250)
    }

    @Test("5×8 gives 1, 6, 17, 50, 150, 465, 1488, 4911 and EF 3.30 (integer rounding up, not 151)")
    func allFives() throws {
        #expect(try sm2.intervals(forGrades: [5, 5, 5, 5, 5, 5, 5, 5]) == [1, 6, 17, 50, 150, 465, 1488, 4911])
        #expect(try finalEF([5, 5, 5, 5, 5, 5, 5, 5]) == 330)
    }

    @Test("5,3,5,3,5 gives 1, 6, 16, 39, 99 and EF 2.52")
    func alternating() throws {
        #expect(try sm2.intervals(forGrades: [5, 3, 5, 3, 5]) == [1, 6, 16, 39, 99])
        #expect(try finalEF([5, 3, 5, 3, 5]) == 252)
    }

    @Test("a 2 restarts from I(1) without changing EF: 1, 6, 15, 38, 0, 1, 6, 15")
    func lapseKeepsEF() throws {
        #expect(try sm2.intervals(forGrades: [4, 4, 4, 4, 2, 4, 4, 4]) == [1, 6, 15, 38, 0, 1, 6, 15])
        #expect(try finalEF([4, 4, 4, 4, 2, 4, 4, 4]) == 250)
    }

    @Test("the other reading lowers EF on a lapse, so the intervals after it shrink")
    func lapseLowersEFWhenAsked() throws {
        let lowering = SM2Scheduler(lapsePolicy: .lowerEasiness)
        #expect(try lowering.intervals(forGrades: [4, 4, 4, 4, 2, 4, 4, 4]) == [1, 6, 15, 38, 0, 1, 6, 14])
    }

    @Test("EF per grade: +0.10 for 5, ±0 for 4, −0.14 for 3, and never below 1.30")
    func easinessChanges() throws {
        #expect(SM2Scheduler.easinessChange(grade: 5) == 10)
        #expect(SM2Scheduler.easinessChange(grade: 4) == 0)
        #expect(SM2Scheduler.easinessChange(grade: 3) == -14)
        #expect(try finalEF(Array(repeating: 3, count: 12)) == 130)
    }

    @Test("a 3 is repeated the same day until it scores 4; the repeats change neither n nor EF")
    func sameDayRepeats() throws {
        let start = utc("2026-01-05T09:00:00Z")
        var state = sm2.newState(at: StudyMoment(start))
        state = try sm2.review(state, answer: .grade(5), at: StudyMoment(start)).state
        let graded = try sm2.review(state, answer: .grade(3), at: StudyMoment(state.due))
        #expect(graded.state.repeatToday)
        #expect(graded.due == .date(state.due))
        #expect(graded.interval == .days(6))
        let later = state.due.plus(minutes: 20)
        let stillThree = try sm2.review(graded.state, answer: .grade(3), at: StudyMoment(later))
        #expect(stillThree.state == graded.state)
        #expect(stillThree.due == .date(later))
        let passed = try sm2.review(stillThree.state, answer: .grade(5), at: StudyMoment(later.plus(minutes: 5)))
        #expect(passed.state.repetitions == 2)
        #expect(passed.state.easinessHundredths == graded.state.easinessHundredths)
        #expect(passed.due == .date(state.due.plus(days: 6)))
        #expect(!passed.state.repeatToday)
    }

    @Test("the seed app's grades 0,3,4,5,5,1,4,5,5,5,4,3,4,5 under correct SM-2 (the Schedulers article's table)")
    func seedAppComparison() throws {
        let grades = [0, 3, 4, 5, 5, 1, 4, 5, 5, 5, 4, 3, 4, 5]
        let intervals = try sm2.intervals(forGrades: grades)
        #expect(intervals == [0, 1, 6, 15, 39, 0, 1, 6, 17, 49, 141, 384, 1045, 2947])
        let article = try String(contentsOfFile: Fixture.root + "/Sources/StudyEngine/StudyEngine.docc/Schedulers.md", encoding: .utf8)
        #expect(article.contains("| correct SM-2 (this engine) | " + intervals.map(String.init).joined(separator: ", ") + " |"))
    }

    @Test("a grade outside 0–5 is a typed error naming the grade")
    func gradeOutOfRange() {
        let state = sm2.newState(at: StudyMoment(utc("2026-01-05T09:00:00Z")))
        #expect(throws: StudyEngineError(.gradeOutOfRange, "sm2 grades are 0 to 5, got 6", at: .field("grade"))) {
            try sm2.review(state, answer: .grade(6), at: StudyMoment(state.due))
        }
        #expect(throws: StudyEngineError(.gradeOutOfRange, "sm2 grades are 0 to 5, got -1", at: .field("grade"))) {
            try sm2.review(state, answer: .grade(-1), at: StudyMoment(state.due))
        }
    }

    @Test("a hundred 5s in a row saturate at the maximum interval instead of overflowing")
    func noOverflow() throws {
        let intervals = try sm2.intervals(forGrades: Array(repeating: 5, count: 100))
        #expect(intervals.last == 36_500)
        #expect(intervals == intervals.sorted())
    }

    private func finalEF(_ grades: [Int]) throws -> Int {
        var state = sm2.newState(at: StudyMoment(Date(timeIntervalSince1970: 0)))
        var now = Date(timeIntervalSince1970: 0)
        for q in grades {
            state = try sm2.review(state, answer: .grade(q), at: StudyMoment(now)).state
            if state.repeatToday { state = try sm2.review(state, answer: .grade(4), at: StudyMoment(now)).state }
            now = state.due
        }
        return state.easinessHundredths
    }
}
