import Foundation
import StudyEngine
import Testing

@Suite("Staged SRS (the WaniKani model)")
struct StagedTests {
    let staged = StagedScheduler()
    let start = utc("2026-01-05T09:00:00Z")

    @Test("a lesson puts the item in Apprentice 1; right answers wait 4, 8, 23, 47, 167, 335, 719, 2879 hours, then Burned")
    func climbToBurned() throws {
        var state = staged.newState(at: StudyMoment(start))
        #expect(StagedScheduler.group(ofStage: state.stage) == .lesson)
        var now = start
        var waits: [Interval] = []
        var names: [String] = []
        for _ in 0..<9 {
            let result = try staged.review(state, answer: .right, at: StudyMoment(now))
            waits.append(result.interval)
            state = result.state
            names.append(StagedScheduler.name(ofStage: state.stage))
            if case .date(let due) = result.due { now = due }
        }
        #expect(waits == [4, 8, 23, 47, 167, 335, 719, 2879].map { Interval.duration(Double($0) * 3_600) } + [.never])
        #expect(names == ["Apprentice 1", "Apprentice 2", "Apprentice 3", "Apprentice 4", "Guru 1", "Guru 2", "Master", "Enlightened", "Burned"])
        #expect(throws: StudyEngineError(.itemRetired, "staged: the item is burned and is not reviewed again", at: .field("stage"))) {
            try staged.review(state, answer: .right, at: StudyMoment(now))
        }
    }

    @Test("the five groups: Apprentice 1–4, Guru 5–6, Master 7, Enlightened 8, Burned 9")
    func groups() {
        #expect((1...9).map { StagedScheduler.group(ofStage: $0) } == [.apprentice, .apprentice, .apprentice, .apprentice, .guru, .guru, .master, .enlightened, .burned])
    }

    @Test("wrong answers: max(1, stage − ⌈wrong/2⌉ × penalty), penalty 1 in Apprentice and 2 above", arguments: [
        (stage: 4, wrong: 1, expected: 3), (stage: 4, wrong: 2, expected: 3), (stage: 4, wrong: 3, expected: 2),
        (stage: 2, wrong: 5, expected: 1), (stage: 5, wrong: 1, expected: 3), (stage: 8, wrong: 1, expected: 6),
        (stage: 8, wrong: 3, expected: 4), (stage: 7, wrong: 7, expected: 1), (stage: 1, wrong: 1, expected: 1),
    ])
    func penalty(stage: Int, wrong: Int, expected: Int) throws {
        let state = StagedScheduler.State(stage: stage, lastReview: nil, due: start)
        let result = try staged.review(state, answer: .incorrect(answers: wrong), at: StudyMoment(start))
        #expect(result.state.stage == expected)
        #expect(result.interval == .duration(Double(StagedScheduler.waitHours[expected] * 3_600)))
    }

    @Test("a lesson's quiz repeats until the item is answered right")
    func lessonRepeats() throws {
        let state = staged.newState(at: StudyMoment(start))
        let missed = try staged.review(state, answer: .wrong, at: StudyMoment(start))
        #expect(missed.state.stage == 0)
        #expect(missed.due == .date(start))
    }
}
