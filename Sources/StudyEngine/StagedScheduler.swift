import Foundation

/// The WaniKani staged model the vocabulary app describes: lessons, nine stages in five groups,
/// waits in hours, and a penalty for wrong answers.
///
/// A lesson puts an item in stage 1 (its quiz repeats until answered right). A right answer moves
/// it up one stage; stage 9 (Burned) is never reviewed again. After w wrong answers in a session
/// the new stage is max(1, stage − ⌈w/2⌉ × penalty), the penalty 1 in Apprentice and 2 above.
/// The wait before the next review depends on the stage the item is in, in absolute hours.
public struct StagedScheduler: ReviewScheduler {
    /// The five groups of stages.
    public enum Group: String, Sendable, Hashable, Codable {
        /// Not started: waiting for its lesson (stage 0).
        case lesson = "Lesson"
        /// Stages 1–4.
        case apprentice = "Apprentice"
        /// Stages 5–6.
        case guru = "Guru"
        /// Stage 7.
        case master = "Master"
        /// Stage 8.
        case enlightened = "Enlightened"
        /// Stage 9: never reviewed again.
        case burned = "Burned"
    }

    /// An item's stage.
    public struct State: SchedulerState {
        /// 0 (lesson pending) to 9 (burned).
        public var stage: Int
        /// The last answer.
        public var lastReview: Date?
        /// When the item is due next (ignored once burned).
        public var due: Date

        /// A state with every field given.
        public init(stage: Int, lastReview: Date?, due: Date) {
            self.stage = stage
            self.lastReview = lastReview
            self.due = due
        }

        /// By group: Lesson novice, Apprentice beginner, Guru intermediate, Master advanced,
        /// Enlightened and Burned master.
        public func level(due: Due, lastReview: Date?) -> LearnerLevel {
            switch StagedScheduler.group(ofStage: stage) {
            case .lesson: .novice
            case .apprentice: .beginner
            case .guru: .intermediate
            case .master: .advanced
            case .enlightened, .burned: .master
            }
        }

        /// `stage 5 (Guru 1)`.
        public var description: String { "stage \(stage) (\(StagedScheduler.name(ofStage: stage)))" }
    }

    /// The wait in hours after reaching each stage (index = stage; stages 0 and 9 have none):
    /// Apprentice 1→2: 4, 2→3: 8, 3→4: 23, 4→Guru 1: 47, Guru 1→2: 167, Guru 2→Master: 335,
    /// Master→Enlightened: 719, Enlightened→Burned: 2879.
    public static let waitHours: [Int] = [0, 4, 8, 23, 47, 167, 335, 719, 2879, 0]

    /// The staged scheduler (it has no settings).
    public init() {}

    /// ``SchedulerKind/staged``.
    public var kind: SchedulerKind { .staged }

    /// Right, wrong, a count of wrong answers (at least 1) or a multiple-choice result.
    public func validate(_ answer: Answer) throws(StudyEngineError) {
        switch answer {
        case .grade: _ = try answer.isRight(for: kind)
        case .incorrect(let count) where count < 1: _ = try answer.isRight(for: kind)
        default: break
        }
    }

    /// The group of `stage`.
    public static func group(ofStage stage: Int) -> Group {
        switch stage {
        case ...0: .lesson
        case 1...4: .apprentice
        case 5...6: .guru
        case 7: .master
        case 8: .enlightened
        default: .burned
        }
    }

    /// `Apprentice 3`, `Guru 1`, `Master`, `Burned`.
    public static func name(ofStage stage: Int) -> String {
        let group = group(ofStage: stage)
        switch group {
        case .apprentice: return "\(group.rawValue) \(stage)"
        case .guru: return "\(group.rawValue) \(stage - 4)"
        default: return group.rawValue
        }
    }

    /// Stage 0: waiting for its lesson, available at `moment`.
    public func newState(at moment: StudyMoment) -> State {
        State(stage: 0, lastReview: nil, due: moment.date)
    }

    /// Checks the stage is 0–9 and due is not before the last review.
    public func validate(_ state: State) throws(StudyEngineError) {
        guard (0...9).contains(state.stage) else {
            throw StudyEngineError(.invalidState, "staged stages are 0 (lesson) to 9 (burned), got \(state.stage)", at: .field("stage"))
        }
        if let last = state.lastReview, state.due < last {
            throw StudyEngineError(.dueBeforeLastReview, "staged due \(state.due.isoText) is before the last review \(last.isoText)", at: .field("due"))
        }
    }

    /// The number of wrong answers in the session this answer reports (0 for right).
    private func wrongAnswers(_ answer: Answer) throws(StudyEngineError) -> Int {
        switch answer {
        case .incorrect(let count):
            guard count >= 1 else {
                throw StudyEngineError(.gradeOutOfRange, "a count of wrong answers is at least 1, got \(count)", at: .field("answer"))
            }
            return count
        case .multipleChoice(let result):
            return result == .rightFirstTry ? 0 : 1
        default:
            return try answer.isRight(for: kind) ? 0 : 1
        }
    }

    /// A lesson (stage 0) passes on a right answer; a review moves the item up one stage or down
    /// by the penalty; due after the new stage's wait.
    public func review<Random: RandomNumberGenerator>(
        _ state: State, answer: Answer, at moment: StudyMoment, random: inout Random
    ) throws(StudyEngineError) -> Scheduled<State> {
        try validate(state)
        guard state.stage < 9 else {
            throw StudyEngineError(.itemRetired, "staged: the item is burned and is not reviewed again", at: .field("stage"))
        }
        let wrong = try wrongAnswers(answer)
        var next = state
        next.lastReview = moment.date
        if state.stage == 0 {
            // The lesson's quiz repeats until the item is answered right.
            next.stage = wrong == 0 ? 1 : 0
        } else if wrong == 0 {
            next.stage = state.stage + 1
        } else {
            let penalty = state.stage <= 4 ? 1 : 2
            next.stage = max(1, state.stage - (wrong + 1) / 2 * penalty)
        }
        if next.stage == 9 {
            next.due = moment.date
            return Scheduled(state: next, due: .never, interval: .never)
        }
        let seconds = Double(Self.waitHours[next.stage] * 3_600)
        next.due = moment.date.addingTimeInterval(seconds)
        return Scheduled(state: next, due: .date(next.due), interval: .duration(seconds))
    }
}

extension SchedulerKind {
    /// The WaniKani staged model: lessons, nine stages, hour waits.
    public static let staged = SchedulerKind(declaring: "staged")
}
