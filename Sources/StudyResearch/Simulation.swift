import Foundation
import StudyEngine

/// `study simulate`: a learner model studying a deck every day with one scheduler, in memory.
///
/// The learner's memory of each card is an FSRS-6 model with the default parameters (the model
/// fitted to the most learners); a review is recalled with its probability R, drawn from a seeded
/// generator, and then updates that memory (Good if recalled, Again if not). The scheduler under
/// test only sees the answers, as multiple-choice results (right on the first try or wrong), and
/// decides when each card comes back. Each day the learner does every due review, then up to
/// `newPerDay` new cards; a card due again the same day (a learning step) is reviewed again.
public struct Simulation: Sendable {
    /// Figures of one simulated day.
    public struct Day: Sendable, Hashable, Codable {
        /// Reviews of cards seen before.
        public var reviews: Int
        /// New cards introduced.
        public var new: Int
        /// Reviews recalled.
        public var recalled: Int
    }

    /// What the run gives.
    public struct Result: Sendable, Codable {
        /// The scheduler.
        public var scheduler: String
        /// Cards in the deck, days simulated, new cards a day.
        public var cards: Int
        /// Days simulated.
        public var days: Int
        /// Day by day.
        public var daily: [Day]
        /// Cards introduced by the end.
        public var introduced: Int
        /// The mean recall probability of the introduced cards the day after the last.
        public var knownAtEnd: Double

        /// Recalled / reviews over the whole run (`nil` without reviews).
        public var retention: Double? {
            let reviews = daily.reduce(0) { $0 + $1.reviews }
            return reviews == 0 ? nil : Double(daily.reduce(0) { $0 + $1.recalled }) / Double(reviews)
        }

        /// Reviews a day: the mean and the most.
        public var meanReviews: Double { daily.isEmpty ? 0 : Double(daily.reduce(0) { $0 + $1.reviews }) / Double(daily.count) }
        /// The busiest day's reviews.
        public var maxReviews: Int { daily.map(\.reviews).max() ?? 0 }
    }

    /// The scheduler under test.
    public var scheduler: SchedulerKind
    /// Cards in the deck.
    public var cards: Int
    /// Days to simulate.
    public var days: Int
    /// New cards a day.
    public var newPerDay: Int
    /// The random seed.
    public var seed: UInt64

    /// A simulation.
    public init(scheduler: SchedulerKind, cards: Int, days: Int, newPerDay: Int = 20, seed: UInt64 = 1) {
        self.scheduler = scheduler
        self.cards = cards
        self.days = days
        self.newPerDay = newPerDay
        self.seed = seed
    }

    /// Runs it; throws the engine's error if the scheduler refuses an answer or a state.
    public func run() throws(StudyEngineError) -> Result {
        var run = Run(simulation: self)
        return try run.run()
    }

    /// The simulated learner's state while it runs.
    private struct Run {
        let simulation: Simulation
        let calendar = LearnerCalendar.utc
        let tested: AnyScheduler
        let memory: FSRSScheduler
        var random: SplitMix64
        var states: [CardState?]
        var dues: [Double]
        var dueDays: [Int]
        var truth: [FSRSState?]

        init(simulation: Simulation) {
            self.simulation = simulation
            tested = AnyScheduler.standard(simulation.scheduler, calendar: calendar, fuzz: false)
            memory = FSRSScheduler.fsrs6(calendar: calendar, fuzz: false)
            random = SplitMix64(seed: simulation.seed)
            states = Array(repeating: nil, count: simulation.cards)
            dues = Array(repeating: .infinity, count: simulation.cards)
            dueDays = Array(repeating: Int.max, count: simulation.cards)
            truth = Array(repeating: nil, count: simulation.cards)
        }

        mutating func review(_ card: Int, at moment: Date, sessionDay: Int, day: inout Day) throws(StudyEngineError) {
            let isNew = states[card] == nil
            let trueState = truth[card] ?? memory.newState(at: StudyMoment(moment))
            let recalled = isNew ? false : Double.random(in: 0..<1, using: &random) < memory.retrievability(trueState, at: moment)
            let result: MultipleChoiceResult = recalled ? .rightFirstTry : .wrong
            truth[card] = try memory.review(trueState, answer: .grade(recalled ? 3 : 1), at: StudyMoment(moment)).state
            let state = states[card] ?? tested.newState(at: StudyMoment(moment, sessionDay: sessionDay))
            let scheduled = try tested.review(
                state, answer: .multipleChoice(result), at: StudyMoment(moment, sessionDay: sessionDay), random: &random)
            states[card] = scheduled.state
            switch scheduled.due {
            case .date(let date): dues[card] = date.timeIntervalSince1970; dueDays[card] = .max
            case .sessionDay(let d): dueDays[card] = d; dues[card] = .infinity
            case .never: dues[card] = .infinity; dueDays[card] = .max
            }
            if isNew {
                day.new += 1
            } else {
                day.reviews += 1
                if recalled { day.recalled += 1 }
            }
        }

        mutating func run() throws(StudyEngineError) -> Result {
            let start = Date(timeIntervalSince1970: 1_767_258_000)  // 2026-01-01 09:00 UTC
            var nextNew = 0
            var daily: [Day] = []
            daily.reserveCapacity(simulation.days)
            for dayIndex in 0..<simulation.days {
                let morning = calendar.adding(days: dayIndex, to: start)
                let endOfDay = calendar.adding(days: 1, to: calendar.startOfDay(morning)).timeIntervalSince1970
                let sessionDay = dayIndex + 1
                var day = Day(reviews: 0, new: 0, recalled: 0)
                var dueToday: [Int] = []
                for card in 0..<nextNew where dues[card] < endOfDay || dueDays[card] <= sessionDay {
                    dueToday.append(card)
                }
                dueToday.sort { dues[$0] < dues[$1] }
                for card in dueToday { try review(card, at: morning, sessionDay: sessionDay, day: &day) }
                let newCards = nextNew..<min(simulation.cards, nextNew + simulation.newPerDay)
                nextNew = newCards.upperBound
                for card in newCards { try review(card, at: morning, sessionDay: sessionDay, day: &day) }
                // Learning steps due later today, in time order, a few rounds at most.
                for _ in 0..<4 {
                    let again = (0..<nextNew).filter { dues[$0] < endOfDay }.sorted { dues[$0] < dues[$1] }
                    if again.isEmpty { break }
                    for card in again {
                        let at = Date(timeIntervalSince1970: max(dues[card], morning.timeIntervalSince1970))
                        try review(card, at: at, sessionDay: sessionDay, day: &day)
                    }
                }
                daily.append(day)
            }
            let end = calendar.adding(days: simulation.days, to: start)
            var known = 0.0
            for card in 0..<nextNew { known += truth[card].map { memory.retrievability($0, at: end) } ?? 0 }
            return Result(
                scheduler: simulation.scheduler.rawValue, cards: simulation.cards, days: simulation.days, daily: daily,
                introduced: nextNew, knownAtEnd: nextNew == 0 ? 0 : known / Double(nextNew))
        }
    }
}
