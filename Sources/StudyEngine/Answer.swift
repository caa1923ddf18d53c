/// What a learner answered, in the form each scheduler takes.
///
/// SM-2 takes ``grade(_:)`` 0–5; FSRS takes ``grade(_:)`` 1–4 (Again, Hard, Good, Easy); Leitner,
/// the half-life models take ``right`` and ``wrong``; the staged scheduler also takes
/// ``incorrect(answers:)``. Every scheduler takes ``multipleChoice(_:)``: a multiple-choice
/// answer has no self-grade, so the engine maps it with one documented table:
///
/// | multiple choice        | SM-2 | FSRS  | Leitner, half-life, HLR | staged           |
/// |------------------------|------|-------|-------------------------|------------------|
/// | right on the first try | q=5  | Good  | right                   | right            |
/// | right after a wrong try| q=3  | Hard  | right                   | 1 wrong answer   |
/// | wrong                  | q=2  | Again | wrong                   | 1 wrong answer   |
///
/// Right after a wrong try is a pass with difficulty, as q=3 and Hard are (SM-2 still repeats
/// it the same day). The staged scheduler follows WaniKani, where any wrong answer in a session
/// counts against the item even if it is answered right later.
public enum Answer: Sendable, Hashable, Codable {
    /// A self-grade on the scheduler's scale: SM-2 0–5, FSRS 1–4.
    case grade(Int)
    /// Recalled.
    case right
    /// Not recalled.
    case wrong
    /// Answered wrong `answers` times (at least 1) in the session before it was answered right
    /// (the staged scheduler's penalty counts them).
    case incorrect(answers: Int)
    /// A multiple-choice result, mapped by the table above.
    case multipleChoice(MultipleChoiceResult)
}

/// The outcome of a multiple-choice question, which carries no self-grade.
public enum MultipleChoiceResult: String, Sendable, Hashable, Codable, CaseIterable {
    /// The right choice on the first try.
    case rightFirstTry = "right-first-try"
    /// The right choice after at least one wrong choice.
    case rightAfterWrongTry = "right-after-wrong-try"
    /// No right choice.
    case wrong

    /// The SM-2 grade: 5, 3 or 2.
    public var sm2Grade: Int {
        switch self {
        case .rightFirstTry: 5
        case .rightAfterWrongTry: 3
        case .wrong: 2
        }
    }

    /// The FSRS rating: Good, Hard or Again.
    public var fsrsRating: CardGrade {
        switch self {
        case .rightFirstTry: .good
        case .rightAfterWrongTry: .hard
        case .wrong: .again
        }
    }

    /// Right or wrong for the binary schedulers: right unless no right choice was made.
    public var isRight: Bool { self != .wrong }
}

extension Answer {
    /// The SM-2 grade 0–5 this answer stands for, or the error that says why there is none.
    func sm2Grade(for scheduler: SchedulerKind) throws(StudyEngineError) -> Int {
        switch self {
        case .grade(let q):
            guard (0...5).contains(q) else {
                throw StudyEngineError(.gradeOutOfRange, "\(scheduler.rawValue) grades are 0 to 5, got \(q)", at: .field("grade"))
            }
            return q
        case .multipleChoice(let result):
            return result.sm2Grade
        case .right, .wrong, .incorrect:
            throw StudyEngineError(.answerNotAccepted, "\(scheduler.rawValue) takes a grade 0 to 5 or a multiple-choice result, got \(self)", at: .field("answer"))
        }
    }

    /// The FSRS rating this answer stands for, or the error that says why there is none.
    func fsrsRating(for scheduler: SchedulerKind) throws(StudyEngineError) -> CardGrade {
        switch self {
        case .grade(let g):
            guard let rating = CardGrade(rawValue: g) else {
                throw StudyEngineError(.gradeOutOfRange, "\(scheduler.rawValue) grades are 1 (Again) to 4 (Easy), got \(g)", at: .field("grade"))
            }
            return rating
        case .multipleChoice(let result):
            return result.fsrsRating
        case .right, .wrong, .incorrect:
            throw StudyEngineError(.answerNotAccepted, "\(scheduler.rawValue) takes a grade 1 to 4 or a multiple-choice result, got \(self)", at: .field("answer"))
        }
    }

    /// Right or wrong, for the binary schedulers.
    func isRight(for scheduler: SchedulerKind) throws(StudyEngineError) -> Bool {
        switch self {
        case .right: return true
        case .wrong: return false
        case .incorrect(let count):
            guard count >= 1 else {
                throw StudyEngineError(.gradeOutOfRange, "a count of wrong answers is at least 1, got \(count)", at: .field("answer"))
            }
            return false
        case .multipleChoice(let result): return result.isRight
        case .grade:
            throw StudyEngineError(.answerNotAccepted, "\(scheduler.rawValue) takes right or wrong (or a multiple-choice result), got \(self)", at: .field("answer"))
        }
    }
}
