import Foundation
import StudyEngine
import Testing

@Suite("Half-life models: the driving app's and HLR")
struct HalfLifeTests {
    @Test("p = 2^(−Δ/h): p(h=2, Δ=1) = 0.707107, p(h=8, Δ=2) = 0.840896, p(Δ=h) = 0.5, p(Δ=0) = 0.9999")
    func recallCurve() {
        #expect(abs(HalfLifeCurve.recall(elapsedDays: 1, halfLifeDays: 2) - 0.707107) < 5e-7)
        #expect(abs(HalfLifeCurve.recall(elapsedDays: 2, halfLifeDays: 8) - 0.840896) < 5e-7)
        for h in [0.5, 1, 3, 274] {
            #expect(HalfLifeCurve.recall(elapsedDays: h, halfLifeDays: h) == 0.5)
        }
        #expect(HalfLifeCurve.recall(elapsedDays: 0, halfLifeDays: 5) == 0.9999)
        #expect(HalfLifeCurve.recall(elapsedDays: 400, halfLifeDays: 1) == 0.0001)
    }

    @Test("the seed app: right doubles h (0 → 1), wrong sets it to 0; review at Δ = h")
    func seedModel() throws {
        let model = HalfLifeScheduler()
        var now = utc("2026-01-05T09:00:00Z")
        var state = model.newState(at: StudyMoment(now))
        var halfLives: [Int] = []
        for answer in [Answer.right, .right, .right, .wrong, .right, .right] {
            let result = try model.review(state, answer: answer, at: StudyMoment(now))
            state = result.state
            halfLives.append(state.halfLifeDays)
            #expect(result.interval == .days(state.halfLifeDays))
            if case .date(let due) = result.due { now = due }
        }
        #expect(halfLives == [1, 2, 4, 0, 1, 2])
        #expect(abs(model.recall(state, at: now) - 0.5) < 1e-12)
    }

    @Test("HLR: ĥ = 2^(Θ·x) with x = (√(1+right), √(1+wrong), 1), clipped to [15 min, 274 days]")
    func hlrHalfLife() {
        let weights = HLRWeights(right: 1, wrong: -0.5, bias: 0.25)
        let exponent: Double = 2.0.squareRoot() - 0.5 * 3.0.squareRoot() + 0.25
        let expected = exp2(exponent)
        #expect(abs(HLRModel.halfLife(right: 1, wrong: 2, weights: weights) - expected) < 1e-12)
        #expect(HLRModel.halfLife(right: 0, wrong: 100, weights: HLRWeights(right: 0, wrong: -5, bias: 0)) == 15.0 / 1_440)
        #expect(HLRModel.halfLife(right: 100, wrong: 0, weights: HLRWeights(right: 5, wrong: 0, bias: 0)) == 274)
    }

    @Test("HLR schedules at Δ = ĥ: whole days from a day up, minutes below")
    func hlrSchedules() throws {
        let now = utc("2026-01-05T09:00:00Z")
        let long = HLRScheduler(weights: HLRWeights(right: 0, wrong: 0, bias: 2))
        let result = try long.review(long.newState(at: StudyMoment(now)), answer: .right, at: StudyMoment(now))
        #expect(result.interval == .days(4))
        let short = HLRScheduler(weights: HLRWeights(right: 0, wrong: 0, bias: -3))
        let quick = try short.review(short.newState(at: StudyMoment(now)), answer: .wrong, at: StudyMoment(now))
        #expect(quick.interval == .duration(180 * 60))
    }
}
