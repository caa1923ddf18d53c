import Foundation

/// A scheduler: a pure function from (state, answer, now, random source) to (new state, next due).
///
/// Every scheduler is a value with its settings; it keeps no state of its own and reads no clock:
/// the time and the random source are arguments, so the same inputs always give the same result.
/// Card states are plain `Codable` values an app stores per item.
///
/// A scheduler owns everything its kind means: the answers it takes (`validate(_ answer:)`,
/// ``answer(forCardGrade:)``, ``recalled(_:)``), the order of its reviews (``reviewOrder``), and,
/// through its ``SchedulerState``, an item's level, the stability that orders reviews and whether
/// load balancing may move its due day. Adding a scheduler is its file and one line in
/// ``SchedulerRegistry``; ``AnyScheduler`` and ``CardState`` open the box and need no change.
public protocol ReviewScheduler: Sendable {
    /// The per-item state this scheduler reads and writes.
    associatedtype State: SchedulerState

    /// Which scheduler this is (the name `study replay --scheduler` takes).
    var kind: SchedulerKind { get }

    /// The state of an item the learner has not seen yet, due at `moment`.
    func newState(at moment: StudyMoment) -> State

    /// Checks a stored state: values in range, due not before the last review.
    func validate(_ state: State) throws(StudyEngineError)

    /// The learner answered the item at `moment`: its new state and when it is due next.
    ///
    /// Throws for an answer this scheduler does not take, a grade out of range, or a state that
    /// fails ``validate(_:)-(Self.State)``; never traps. A clock earlier than the last review never yields a
    /// negative interval.
    func review<Random: RandomNumberGenerator>(
        _ state: State, answer: Answer, at moment: StudyMoment, random: inout Random
    ) throws(StudyEngineError) -> Scheduled<State>

    /// Checks that `answer` is one this scheduler takes, without a state. The default takes
    /// right, wrong and multiple-choice results (the binary schedulers).
    func validate(_ answer: Answer) throws(StudyEngineError)

    /// The answer a self-graded card's four buttons (Again, Hard, Good, Easy) stand for. The
    /// default: Again is wrong, the others right.
    func answer(forCardGrade grade: CardGrade) -> Answer

    /// Whether `answer` counts as recalled, for retention figures and lapses. The default: a
    /// grade above 1 (Again), right, a multiple-choice answer right on any try.
    func recalled(_ answer: Answer) -> Bool

    /// The order a day's due reviews are shown in. The default: most overdue first.
    var reviewOrder: ReviewOrder { get }
}

extension ReviewScheduler {
    /// Right, wrong or a multiple-choice result; a count of wrong answers is for the staged
    /// scheduler, a grade for SM-2 and FSRS.
    public func validate(_ answer: Answer) throws(StudyEngineError) {
        if case .incorrect = answer {
            throw StudyEngineError(.answerNotAccepted, "\(kind.rawValue) takes right or wrong; counts of wrong answers are for the staged scheduler", at: .field("answer"))
        }
        _ = try answer.isRight(for: kind)
    }

    /// Again is wrong; Hard, Good and Easy are right.
    public func answer(forCardGrade grade: CardGrade) -> Answer {
        grade == .again ? .wrong : .right
    }

    /// A grade above 1, right, or a multiple-choice answer right on any try.
    public func recalled(_ answer: Answer) -> Bool {
        switch answer {
        case .grade(let g): g >= 2
        case .right: true
        case .wrong, .incorrect: false
        case .multipleChoice(let result): result.isRight
        }
    }

    /// Most overdue first.
    public var reviewOrder: ReviewOrder { .mostOverdue }
}

/// The order a day's due reviews are shown in.
public enum ReviewOrder: Sendable, Hashable {
    /// Earliest due first.
    case mostOverdue
    /// Lowest predicted recall first: largest elapsed time over ``SchedulerState/orderingStability``
    /// (FSRS's R falls as t/S grows with the same curve for every item); items without a
    /// stability first, ties in content order.
    case lowestPredictedRecall
}

extension ReviewScheduler {
    /// ``review(_:answer:at:random:)`` for a scheduler that draws nothing (or with fuzz off):
    /// a fixed-seed generator stands in.
    public func review(_ state: State, answer: Answer, at moment: StudyMoment) throws(StudyEngineError) -> Scheduled<State> {
        var random = SplitMix64(seed: 0)
        return try review(state, answer: answer, at: moment, random: &random)
    }
}
