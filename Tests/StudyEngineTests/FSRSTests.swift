import Foundation
import StudyEngine
import Testing

@Suite("FSRS-6 against ENGINE.md's vectors (py-fsrs 6.3.2, fuzz off)")
struct FSRSTests {
    let fsrs = FSRSScheduler.fsrs6(fuzz: false)
    let start = utc("2022-11-29T12:30:00Z")

    @Test("3,3,3,3,3,3,1,1,3,3,3,3,3 each on its due date: 0, 2, 11, 46, 163, 498, 0, 0, 2, 4, 7, 12, 21 days")
    func scheduledDays() throws {
        var state = fsrs.newState(at: StudyMoment(start))
        var now = start
        var days: [Int] = []
        for rating in [3, 3, 3, 3, 3, 3, 1, 1, 3, 3, 3, 3, 3] {
            let result = try fsrs.review(state, answer: .grade(rating), at: StudyMoment(now))
            state = result.state
            days.append(Int((state.due.timeIntervalSince(now) / 86_400).rounded(.down)))
            now = state.due
        }
        #expect(days == [0, 2, 11, 46, 163, 498, 0, 0, 2, 4, 7, 12, 21])
    }

    @Test("first review: Again S 0.212 D 6.4133 +1 min; Hard S 1.2931 D 5.11217071 +5.5 min; Good S 2.3065 D 2.11810397 +10 min; Easy S 8.2956 D 1.0 review +8 days")
    func firstReview() throws {
        let expected: [(rating: Int, s: Double, d: Double, interval: Interval, phase: FSRSState.Phase)] = [
            (1, 0.212, 6.4133, .duration(60), .learning),
            (2, 1.2931, 5.11217071, .duration(330), .learning),
            (3, 2.3065, 2.11810397, .duration(600), .learning),
            (4, 8.2956, 1.0, .days(8), .review),
        ]
        for item in expected {
            let result = try fsrs.review(fsrs.newState(at: StudyMoment(start)), answer: .grade(item.rating), at: StudyMoment(start))
            #expect(abs((result.state.stability ?? 0) - item.s) < 1e-8, "rating \(item.rating)")
            #expect(abs((result.state.difficulty ?? 0) - item.d) < 1e-8, "rating \(item.rating)")
            #expect(result.interval == item.interval)
            #expect(result.state.phase == item.phase)
        }
    }

    @Test("ratings 1,3,3,3,3,3 with gaps of 0,0,1,3,8,21 days end at S 53.62691, D 6.3574867")
    func memoryStateAfterGaps() throws {
        var state = fsrs.newState(at: StudyMoment(start))
        var now = start
        for (rating, gap) in zip([1, 3, 3, 3, 3, 3], [0.0, 0, 1, 3, 8, 21]) {
            now = now.plus(days: gap)
            state = try fsrs.review(state, answer: .grade(rating), at: StudyMoment(now)).state
        }
        #expect(abs((state.stability ?? 0) - 53.62691) < 1e-4)
        #expect(abs((state.difficulty ?? 0) - 6.3574867) < 1e-4)
    }

    @Test("FACTOR = 0.9803464944, R(10 days, S=1) = 0.692827, R(S, S) = 0.9, S=10 at r=0.8 is 33 days")
    func curve() throws {
        #expect(abs(FSRSParameters.fsrs6Defaults.factor - 0.9803464944) < 1e-10)
        let reviewed = FSRSState(phase: .review, step: nil, stability: 1, difficulty: 5, lastReview: start, due: start.plus(days: 1))
        #expect(abs(fsrs.retrievability(reviewed, at: start.plus(days: 10)) - 0.692827) < 5e-7)
        for s in [1.0, 7, 30] {
            let card = FSRSState(phase: .review, step: nil, stability: s, difficulty: 5, lastReview: start, due: start.plus(days: s))
            #expect(abs(fsrs.retrievability(card, at: start.plus(days: s)) - 0.9) < 1e-12)
        }
        let lowRetention = try FSRSScheduler(FSRSScheduler.Configuration(desiredRetention: 0.8, fuzz: false))
        #expect(lowRetention.interval(forStability: 10) == 33)
    }

    @Test("same-day reviews use S·e^(w17·(G−3+w18))·S^(−w19), at least ×1 for Good; Again may lower S")
    func sameDayFormula() throws {
        let w = FSRSParameters.fsrs6Defaults.values
        let s0 = w[2]
        let first = try fsrs.review(fsrs.newState(at: StudyMoment(start)), answer: .grade(3), at: StudyMoment(start))
        let good = try fsrs.review(first.state, answer: .grade(3), at: StudyMoment(start.plus(minutes: 10)))
        #expect(abs((good.state.stability ?? 0) - s0 * max(1, exp(w[17] * (0 + w[18])) * pow(s0, -w[19]))) < 1e-12)
        #expect(good.state.phase == .review)
        let again = try fsrs.review(first.state, answer: .grade(1), at: StudyMoment(start.plus(minutes: 10)))
        #expect(abs((again.state.stability ?? 0) - s0 * exp(w[17] * (-2 + w[18])) * pow(s0, -w[19])) < 1e-12)
        #expect(again.interval == .duration(60))
    }

    @Test("which reviews are same-day is pinned: a calendar date in the learner's zone, or py-fsrs's 24-hour periods")
    func sameDayBoundary() throws {
        let first = try fsrs.review(fsrs.newState(at: StudyMoment(start)), answer: .grade(3), at: StudyMoment(start))
        let shortTerm = try fsrs.review(first.state, answer: .grade(3), at: StudyMoment(start.plus(minutes: 10))).state.stability
        // Calendar days (UTC here): 23:59 the same date is the same day; 00:10 the next date is not.
        let lateSameDate = try fsrs.review(first.state, answer: .grade(3), at: StudyMoment(utc("2022-11-29T23:59:00Z")))
        #expect(lateSameDate.state.stability == shortTerm)
        let nextDate = try fsrs.review(first.state, answer: .grade(3), at: StudyMoment(utc("2022-11-30T00:10:00Z")))
        #expect(nextDate.state.stability != shortTerm)
        // py-fsrs counts whole 24-hour periods: 23 h 59 min later is still the same day.
        let pyFSRS = FSRSScheduler.fsrs6(calendar: .elapsed24Hours, fuzz: false)
        let first24 = try pyFSRS.review(pyFSRS.newState(at: StudyMoment(start)), answer: .grade(3), at: StudyMoment(start))
        let almostADay = try pyFSRS.review(first24.state, answer: .grade(3), at: StudyMoment(start.addingTimeInterval(86_340)))
        #expect(almostADay.state.stability == shortTerm)
        let aDay = try pyFSRS.review(first24.state, answer: .grade(3), at: StudyMoment(start.addingTimeInterval(86_400)))
        #expect(aDay.state.stability != shortTerm)
    }

    @Test("Hard on the first step waits the mean of the first two steps, 1.5× a single step; Again in review relearns")
    func learningSteps() throws {
        let single = try FSRSScheduler(FSRSScheduler.Configuration(learningSteps: [600], fuzz: false))
        let hard = try single.review(single.newState(at: StudyMoment(start)), answer: .grade(2), at: StudyMoment(start))
        #expect(hard.interval == .duration(900))
        let noSteps = try FSRSScheduler(FSRSScheduler.Configuration(learningSteps: [], relearningSteps: [], fuzz: false))
        let graduated = try noSteps.review(noSteps.newState(at: StudyMoment(start)), answer: .grade(1), at: StudyMoment(start))
        #expect(graduated.state.phase == .review)
        let lapse = try noSteps.review(graduated.state, answer: .grade(1), at: StudyMoment(start.plus(days: 3)))
        #expect(lapse.state.phase == .review)
        let review = FSRSState(phase: .review, step: nil, stability: 20, difficulty: 5, lastReview: start, due: start.plus(days: 20))
        let relearn = try fsrs.review(review, answer: .grade(1), at: StudyMoment(start.plus(days: 20)))
        #expect(relearn.state.phase == .relearning && relearn.state.step == 0 && relearn.interval == .duration(600))
    }

    @Test("the maximum interval caps every interval")
    func maximumInterval() throws {
        let capped = try FSRSScheduler(FSRSScheduler.Configuration(maximumInterval: 30, fuzz: false))
        let card = FSRSState(phase: .review, step: nil, stability: 400, difficulty: 3, lastReview: start, due: start.plus(days: 400))
        let result = try capped.review(card, answer: .grade(4), at: StudyMoment(start.plus(days: 400)))
        #expect(result.interval == .days(30))
        #expect(capped.interval(forStability: 1e9) == 30)
    }

    @Test("FSRS-5 is FSRS-6's formulas with w19 = 0 and w20 = 0.5: FACTOR 19/81")
    func fsrs5() throws {
        #expect(abs(FSRSParameters.fsrs5Defaults.factor - 19.0 / 81) < 1e-12)
        let fsrs5 = FSRSScheduler.fsrs5(fuzz: false)
        #expect(fsrs5.kind == .fsrs5)
        let easy = try fsrs5.review(fsrs5.newState(at: StudyMoment(start)), answer: .grade(4), at: StudyMoment(start))
        #expect(easy.state.stability == 15.69105)
        #expect(easy.interval == .days(16))
        var w = FSRSParameters.fsrs6Defaults.values
        w[19] = 0.3
        #expect(throws: StudyEngineError(.invalidConfiguration, "FSRS-5 has w19 = 0 and w20 = 0.5", at: .field("parameters"))) {
            try FSRSScheduler(FSRSScheduler.Configuration(parameters: try FSRSParameters(w)), version: .fsrs5)
        }
    }

    @Test("parameters outside py-fsrs's bounds are refused, naming the parameter")
    func parameterBounds() {
        var w = FSRSParameters.fsrs6Defaults.values
        w[7] = 0.9
        #expect(throws: StudyEngineError(.invalidConfiguration, "0.9 is outside py-fsrs's bounds [0.001, 0.75]", at: .field("w7"))) {
            try FSRSParameters(w)
        }
        #expect(throws: StudyEngineError(.invalidConfiguration, "FSRS takes 21 parameters, got 19", at: .field("parameters"))) {
            try FSRSParameters(Array(w.prefix(19)))
        }
    }

    @Test("a grade outside 1–4 is a typed error")
    func gradeOutOfRange() {
        #expect(throws: StudyEngineError(.gradeOutOfRange, "fsrs6 grades are 1 (Again) to 4 (Easy), got 0", at: .field("grade"))) {
            try fsrs.review(fsrs.newState(at: StudyMoment(start)), answer: .grade(0), at: StudyMoment(start))
        }
    }
}

@Suite("FSRS fuzz: Anki's ranges, seeded")
struct FSRSFuzzTests {
    @Test("Anki's vectors: 2.5 → 2/3/4, 7 → 5/7/9, 17 → 14/17/20, 37 → 33/37/41 at f = 0, 0.5, 0.99")
    func ankiVectors() {
        let cases: [(Double, [Int])] = [(2.5, [2, 3, 4]), (7, [5, 7, 9]), (17, [14, 17, 20]), (37, [33, 37, 41])]
        for (interval, expected) in cases {
            let got = [0, 0.5, 0.99].map { FSRSFuzz.fuzzed(interval, factor: $0, minimum: 1, maximum: 1_000) }
            #expect(got == expected, "interval \(interval)")
        }
    }

    @Test("1.0 and 2.49 are never fuzzed")
    func shortIntervalsUnfuzzed() {
        for f in [0, 0.5, 0.99] {
            #expect(FSRSFuzz.fuzzed(1.0, factor: f, minimum: 1, maximum: 1_000) == 1)
            #expect(FSRSFuzz.fuzzed(2.49, factor: f, minimum: 1, maximum: 1_000) == 2)
        }
    }

    @Test("the same seed gives the same fuzzed intervals; they stay inside the fuzz range")
    func seededAndBounded() throws {
        let fsrs = FSRSScheduler.fsrs6(fuzz: true)
        let plain = FSRSScheduler.fsrs6(fuzz: false)
        let start = utc("2022-11-29T12:30:00Z")
        let card = FSRSState(phase: .review, step: nil, stability: 40, difficulty: 5, lastReview: start, due: start.plus(days: 40))
        func run(seed: UInt64) throws -> [Interval] {
            var random = SplitMix64(seed: seed)
            return try (0..<50).map { _ in try fsrs.review(card, answer: .grade(3), at: StudyMoment(start.plus(days: 40)), random: &random).interval }
        }
        #expect(try run(seed: 7) == run(seed: 7))
        #expect(try run(seed: 7) != run(seed: 8))
        let center = try plain.review(card, answer: .grade(3), at: StudyMoment(start.plus(days: 40))).interval
        guard case .days(let middle) = center else {
            Issue.record("expected days, got \(center)")
            return
        }
        let (lower, upper) = FSRSFuzz.bounds(Double(middle), minimum: 1, maximum: 36_500)
        for interval in try run(seed: 7) {
            guard case .days(let n) = interval else {
                Issue.record("expected days, got \(interval)")
                continue
            }
            #expect(n >= lower - 1 && n <= upper + 1)
        }
    }
}
