import Foundation

/// A learner who never learnt a rule and passes by the words alone: how far a bank can be
/// gamed.
///
/// It practises on half of the questions and learns which words go with right and wrong
/// choices, each word's log-odds `log(3(r + 1) / (n + 3))` (r right choices and n wrong ones
/// contain it; a word with no lean scores 0 against the one-in-four a choice has of being
/// right), then answers the other half by picking the choice whose words score highest (ties
/// share the credit). The halves are the questions at even and at odd places in the bank's
/// order, each half learnt from the other; the score is the share answered right, both ways
/// together. Chance is one in four; a bank whose words give nothing away keeps it near that.
///
/// Words are runs of letters, digits and combining marks, lowercased; a run of Han characters
/// gives each character and each pair of neighbours (Chinese writes no spaces, and its cues are
/// single characters such as 只 or two, such as 立即).
public struct TestWiseLearner: Sendable, Hashable, Codable {
    /// How a word sits in the bank's choices.
    public struct Word: Sendable, Hashable, Codable {
        /// The word, lowercased.
        public var word: String
        /// The choices it appears in.
        public var choices: Int
        /// How many of them are correct.
        public var correct: Int
    }

    /// The share of questions it answers right (0.25 is chance for four choices).
    public var score: Double
    /// The words in ``oneSidedThreshold`` or more choices that are always, or never, in the
    /// correct one: a learner strikes or picks them unread.
    public var oneSidedWords: [Word]

    /// How many choices a word must appear in for ``oneSidedWords`` to hold it to both sides.
    public static let oneSidedThreshold = 10

    /// The learner's score on `bank`, and the bank's one-sided words.
    public init(_ bank: QuestionBank) {
        let questions = bank.categories.flatMap(\.questions)
        let tokenized = questions.map { question in question.choices.map { (Self.tokens($0.text), $0.correct) } }
        let even = tokenized.indices.filter { $0 % 2 == 0 }.map { tokenized[$0] }
        let odd = tokenized.indices.filter { $0 % 2 == 1 }.map { tokenized[$0] }
        let right = Self.answer(odd, weights: Self.weights(even)) + Self.answer(even, weights: Self.weights(odd))
        score = questions.isEmpty ? 0 : right / Double(questions.count)
        var counts: [String: (choices: Int, correct: Int)] = [:]
        for question in tokenized {
            for (words, correct) in question {
                for word in words {
                    counts[word, default: (0, 0)].choices += 1
                    if correct { counts[word, default: (0, 0)].correct += 1 }
                }
            }
        }
        oneSidedWords = counts.filter { $0.value.choices >= Self.oneSidedThreshold && ($0.value.correct == 0 || $0.value.correct == $0.value.choices) }
            .map { Word(word: $0.key, choices: $0.value.choices, correct: $0.value.correct) }
            .sorted { ($0.choices, $1.word) > ($1.choices, $0.word) }
    }

    /// Each word's log-odds of marking a correct choice, from `questions`.
    static func weights(_ questions: [[(Set<String>, Bool)]]) -> [String: Double] {
        var counts: [String: (right: Int, wrong: Int)] = [:]
        for question in questions {
            for (words, correct) in question {
                for word in words {
                    if correct { counts[word, default: (0, 0)].right += 1 } else { counts[word, default: (0, 0)].wrong += 1 }
                }
            }
        }
        return counts.mapValues { log(3 * Double($0.right + 1) / Double($0.wrong + 3)) }
    }

    /// How many of `questions` the weights answer right (a tie shares the credit).
    static func answer(_ questions: [[(Set<String>, Bool)]], weights: [String: Double]) -> Double {
        var right = 0.0
        for question in questions {
            let scores = question.map { choice in choice.0.reduce(0) { $0 + (weights[$1] ?? 0) } }
            guard let best = scores.max() else { continue }
            let tied = scores.indices.filter { scores[$0] >= best - 1e-12 }
            if tied.contains(where: { question[$0].1 }) { right += 1 / Double(tied.count) }
        }
        return right
    }

    /// The words of `text` as the learner sees them.
    public static func tokens(_ text: String) -> Set<String> {
        var words = Set<String>()
        var run: [Unicode.Scalar] = []
        func flush() {
            defer { run.removeAll(keepingCapacity: true) }
            var part: [Unicode.Scalar] = []
            var partIsHan = false
            func emit() {
                guard !part.isEmpty else { return }
                if partIsHan {
                    for index in part.indices {
                        words.insert(String(part[index]))
                        if index + 1 < part.count { words.insert(String(part[index]) + String(part[index + 1])) }
                    }
                } else {
                    var word = ""
                    word.unicodeScalars.append(contentsOf: part)
                    words.insert(word)
                }
                part.removeAll(keepingCapacity: true)
            }
            for scalar in run {
                let han = isHan(scalar)
                if !part.isEmpty, han != partIsHan { emit() }
                partIsHan = han
                part.append(scalar)
            }
            emit()
        }
        for scalar in text.lowercased().unicodeScalars {
            if isWordScalar(scalar) { run.append(scalar) } else if !run.isEmpty { flush() }
        }
        if !run.isEmpty { flush() }
        return words
    }

    private static func isHan(_ scalar: Unicode.Scalar) -> Bool {
        (0x4E00...0x9FFF).contains(scalar.value) || (0x3400...0x4DBF).contains(scalar.value)
    }

    private static func isWordScalar(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter, .decimalNumber, .letterNumber, .otherNumber,
            .nonspacingMark, .spacingMark:
            return true
        default:
            return false
        }
    }
}
