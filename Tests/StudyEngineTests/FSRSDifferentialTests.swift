import Foundation
import StudyEngine
import TestSupport
import Testing

/// Our FSRS-6 against py-fsrs 6.3.2 itself, run from the virtual environment Scripts/setup makes.
@Suite("FSRS-6 against py-fsrs 6.3.2 (differential)", .tags(.oracle), .fullTierOnly)
struct FSRSDifferentialTests {
    struct Request: Encodable {
        struct Review: Encodable {
            var rating: Int
            var time: Int
        }
        var mode = "sequences"
        var parameters: [Double]?
        var sequences: [[Review]]
    }

    struct Response: Decodable {
        struct Result: Decodable {
            var state: String
            var step: Int?
            var stability: Double
            var difficulty: Double
            var due: Double
        }
        var version: String
        var results: [[Result]]
    }

    /// Runs the oracle with `request` on stdin; fails the test if the environment is missing.
    static func oracle(_ request: Request) throws -> Response? {
        guard FileManager.default.isExecutableFile(atPath: Fixture.python) else {
            Issue.record("the py-fsrs oracle needs \(Fixture.python): run Scripts/setup (Scripts/test runs it) to create .build-venv with fsrs==6.3.2")
            return nil
        }
        let result = try run(Fixture.python, [Fixture.oracle], input: try JSONEncoder().encode(request))
        guard result.status == 0 else {
            Issue.record("the py-fsrs oracle failed (\(result.status)): \(result.stderr)")
            return nil
        }
        return try JSONDecoder().decode(Response.self, from: result.stdout)
    }

    /// 1,200 seeded sequences of 2–30 ratings; each review comes at the card's due time, or
    /// after a random gap of seconds, minutes, hours or days, so learning steps, same-day
    /// reviews, early and late reviews are all exercised.
    static func sequences(count: Int, seed: UInt64) throws -> [[Request.Review]] {
        var random = SplitMix64(seed: seed)
        let scheduler = FSRSScheduler.fsrs6(calendar: .elapsed24Hours, fuzz: false)
        var result: [[Request.Review]] = []
        for _ in 0..<count {
            let length = Int.random(in: 2...30, using: &random)
            var time = Int.random(in: 1_577_836_800...1_767_225_600, using: &random)  // 2020–2025
            var state = scheduler.newState(at: StudyMoment(Date(timeIntervalSince1970: Double(time))))
            var reviews: [Request.Review] = []
            for index in 0..<length {
                if index > 0 {
                    switch Int.random(in: 0..<10, using: &random) {
                    case 0..<4: time = max(time, Int(state.due.timeIntervalSince1970))  // on time
                    case 4: time += Int.random(in: 0...59, using: &random)
                    case 5: time += Int.random(in: 60...7_200, using: &random)
                    case 6: time += Int.random(in: 3_600...86_399, using: &random)
                    case 7: time += Int.random(in: 86_400...(86_400 * 5), using: &random)
                    default: time = Int(state.due.timeIntervalSince1970) + Int.random(in: -86_400 * 10...86_400 * 40, using: &random)
                    }
                    time = max(time, Int(state.lastReview?.timeIntervalSince1970 ?? 0))
                }
                let weights = [0, 2, 3, 12, 15]  // cumulative cut-offs: Again 2, Hard 1, Good 9, Easy 3 of 15
                let draw = Int.random(in: 0..<15, using: &random)
                let rating = (1...4).first { draw < weights[$0] } ?? 3
                reviews.append(Request.Review(rating: rating, time: time))
                state = try scheduler.review(state, answer: .grade(rating), at: StudyMoment(Date(timeIntervalSince1970: Double(time)))).state
            }
            result.append(reviews)
        }
        return result
    }

    @Test("1,200 random rating sequences with random gaps: every interval equal, S and D within 1e-4")
    func matchesPyFSRS() throws {
        let sequences = try Self.sequences(count: 1_200, seed: 20_260_514)
        guard let response = try Self.oracle(Request(sequences: sequences)) else { return }
        #expect(response.version == "6.3.2")
        try #require(response.results.count == sequences.count)
        let scheduler = FSRSScheduler.fsrs6(calendar: .elapsed24Hours, fuzz: false)
        var compared = 0
        var mismatches: [String] = []
        for (number, (sequence, expected)) in zip(sequences, response.results).enumerated() {
            var state = scheduler.newState(at: StudyMoment(Date(timeIntervalSince1970: Double(sequence[0].time))))
            for (index, (review, oracle)) in zip(sequence, expected).enumerated() {
                state = try scheduler.review(state, answer: .grade(review.rating), at: StudyMoment(Date(timeIntervalSince1970: Double(review.time)))).state
                compared += 1
                let same = state.phase.rawValue == oracle.state && state.step == oracle.step
                    && abs((state.stability ?? .nan) - oracle.stability) <= 1e-4
                    && abs((state.difficulty ?? .nan) - oracle.difficulty) <= 1e-4
                    && abs(state.due.timeIntervalSince1970 - oracle.due) < 1e-3
                if !same && mismatches.count < 5 {
                    mismatches.append("sequence \(number) review \(index) (\(sequence.prefix(index + 1).map(\.rating))): ours \(state), due \(state.due.timeIntervalSince1970); py-fsrs \(oracle)")
                }
            }
        }
        #expect(compared > 15_000)
        #expect(mismatches.isEmpty, "\(mismatches.joined(separator: "\n"))")
    }

    @Test("other parameters too: a sequence set replayed with parameters far from the defaults matches py-fsrs given the same ones")
    func matchesWithOtherParameters() throws {
        // Each default moved a third of the way to a bound (up for even indices, down for odd),
        // as training moves them; StudyResearchTests trains on the real log.
        let moved = FSRSParameters.fsrs6Defaults.values.enumerated().map { index, value in
            let bound = index % 2 == 0 ? FSRSParameters.upperBounds[index] : FSRSParameters.lowerBounds[index]
            return value + (bound - value) / 3
        }
        let trained = try FSRSParameters(moved)
        let sequences = try Self.sequences(count: 200, seed: 7)
        guard let response = try Self.oracle(Request(parameters: trained.values, sequences: sequences)) else { return }
        let scheduler = try FSRSScheduler(FSRSScheduler.Configuration(parameters: trained, fuzz: false), calendar: .elapsed24Hours)
        var worst = 0.0
        var intervalsEqual = true
        for (sequence, expected) in zip(sequences, response.results) {
            var state = scheduler.newState(at: StudyMoment(Date(timeIntervalSince1970: Double(sequence[0].time))))
            for (review, oracle) in zip(sequence, expected) {
                state = try scheduler.review(state, answer: .grade(review.rating), at: StudyMoment(Date(timeIntervalSince1970: Double(review.time)))).state
                worst = max(worst, abs((state.stability ?? .nan) - oracle.stability), abs((state.difficulty ?? .nan) - oracle.difficulty))
                intervalsEqual = intervalsEqual && abs(state.due.timeIntervalSince1970 - oracle.due) < 1e-3
            }
        }
        #expect(worst <= 1e-4)
        #expect(intervalsEqual)
    }
}
