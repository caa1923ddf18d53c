/// What a question bank is made of, for authors and reviewers: questions per category and
/// lesson, how many choices questions have, where the correct choice sits and how often it is
/// the longest (a giveaway), the cues a test-wise learner guesses from (yes/no questions, a
/// correct choice that alone starts differently, words whose choices are almost always right or
/// wrong) and how far such a learner gets (``TestWiseLearner``), questions without a source,
/// and pictures used and missing.
///
/// `packtool show PACK… bank ID --stats` prints it; a bank's quality bar can be checked on it.
public struct BankStatistics: Sendable, Hashable, Codable {
    /// One lesson's figures.
    public struct LessonFigures: Sendable, Hashable, Codable {
        /// The lesson's id.
        public var id: String
        /// The number of questions in the lesson.
        public var questions: Int
    }

    /// One category's figures.
    public struct CategoryFigures: Sendable, Hashable, Codable {
        /// The category's id.
        public var id: String
        /// The category's title.
        public var title: String
        /// The number of questions in the category.
        public var questions: Int
        /// The category's lessons, in order.
        public var lessons: [LessonFigures]
        /// How many of its questions have their correct choice at each position (0 is the first).
        public var correctPositions: [Int: Int] = [:]

        /// The share of its questions whose correct choice is at `position`.
        public func shareCorrect(at position: Int) -> Double {
            questions == 0 ? 0 : Double(correctPositions[position, default: 0]) / Double(questions)
        }
    }

    /// How often a word recurs in choices, and how often those choices are the correct one.
    public struct WordFigures: Sendable, Hashable, Codable {
        /// The word, lowercased.
        public var word: String
        /// The number of choices it appears in.
        public var choices: Int
        /// How many of those choices are correct.
        public var correct: Int

        /// The share of its choices that are correct (about 1 in the choice count when it gives
        /// nothing away).
        public var shareCorrect: Double { choices == 0 ? 0 : Double(correct) / Double(choices) }
    }

    /// The categories, in bank order.
    public var categories: [CategoryFigures]
    /// The number of questions.
    public var questions: Int
    /// How many questions have each number of choices (2 → 10 means ten questions have two).
    public var choiceCounts: [Int: Int]
    /// How many questions have their correct choice at each position (0 is the first).
    public var correctPositions: [Int: Int]
    /// How many questions' correct choice is the longest (ties count as longest).
    public var correctIsLongest: Int
    /// The questions whose choices all begin with the bank language's "yes" or "no".
    public var yesNoQuestions: [String]
    /// The questions whose wrong choices all begin with the same word and whose correct choice
    /// begins with another (the odd one out gives the answer away).
    public var oddOpenerQuestions: [String]
    /// The words that appear in at least ``recurringWordThreshold`` choices, most frequent first.
    public var recurringWords: [WordFigures]
    /// The questions with no `source`.
    public var withoutSource: [String]
    /// The distinct pictures the bank's questions and categories show.
    public var pictures: [String]
    /// The pictures that are in neither the content nor its base (when a source was given).
    public var missingPictures: [String]
    /// How far a learner who never learnt a rule gets by the words alone, and the words that
    /// sit on one side only.
    public var testWise: TestWiseLearner

    /// How many choices a word must appear in to be listed in ``recurringWords``.
    public static let recurringWordThreshold = 10

    /// "Yes" and "no" in the languages of the sample banks, lowercased (a bank in another
    /// language counts English ones only).
    static let yesNoWords: [String: Set<String>] = [
        "en": ["yes", "no"], "ru": ["да", "нет"], "zh": ["是", "否", "是的", "不是", "对", "不对", "可以", "不可以", "能", "不能", "会", "不会", "需要", "不需要", "必须", "不必"], "pa": ["ਹਾਂ", "ਨਹੀਂ", "ਜੀ"],
    ]

    /// The words of `text`, lowercased: runs of letters and digits (a run of Han characters is
    /// one word, since Chinese has no spaces).
    static func words(_ text: String) -> [String] {
        text.lowercased().split(whereSeparator: { !($0.isLetter || $0.isNumber || $0.unicodeScalars.contains { $0.properties.generalCategory == .nonspacingMark || $0.properties.generalCategory == .spacingMark }) })
            .map(String.init)
    }

    /// Whether `text` opens with one of `words` standing alone: followed by punctuation or
    /// nothing ("No, only …", "Да.", "可以，…"), not by more words ("No closer than 15 m").
    static func answersYesOrNo(_ text: String, words: Set<String>) -> Bool {
        let trimmed = text.drop { $0.isWhitespace }
        guard let first = words.sorted(by: { $0.count > $1.count }).first(where: { trimmed.lowercased().hasPrefix($0) }) else {
            return false
        }
        let rest = trimmed.dropFirst(first.count).drop { $0.isWhitespace }
        guard let next = rest.first else { return true }
        return next.isPunctuation || next == "—" || next == "-"
    }

    /// The figures of `bank`; with `pictures`, also which pictures are missing from it.
    public init(_ bank: QuestionBank, pictures source: (any ContentSource)? = nil) {
        categories = bank.categories.map { category in
            var positions: [Int: Int] = [:]
            for question in category.questions {
                if let index = question.choices.firstIndex(where: \.correct) { positions[index, default: 0] += 1 }
            }
            return CategoryFigures(
                id: category.id, title: category.title, questions: category.questions.count,
                lessons: category.lessons.map { LessonFigures(id: $0.id, questions: $0.questions.count) }, correctPositions: positions)
        }
        testWise = TestWiseLearner(bank)
        questions = bank.questions.count
        var choiceCounts: [Int: Int] = [:]
        var positions: [Int: Int] = [:]
        var longest = 0
        var withoutSource: [String] = []
        var pictures: [String] = []
        var seenPictures = Set<String>()
        var yesNoQuestions: [String] = []
        var oddOpenerQuestions: [String] = []
        var wordCounts: [String: (choices: Int, correct: Int)] = [:]
        let language = bank.language.map { String($0.prefix { $0 != "-" && $0 != "_" }).lowercased() } ?? "en"
        let yesNo = Self.yesNoWords[language] ?? Self.yesNoWords["en", default: []]
        func picture(_ path: String?) {
            if let path, seenPictures.insert(path).inserted { pictures.append(path) }
        }
        for category in bank.categories {
            picture(category.picture)
            for question in category.questions {
                choiceCounts[question.choices.count, default: 0] += 1
                if let index = question.choices.firstIndex(where: \.correct) {
                    positions[index, default: 0] += 1
                    let length = question.choices[index].text.count
                    if question.choices.allSatisfy({ $0.text.count <= length }) { longest += 1 }
                }
                if (question.source ?? "").allSatisfy(\.isWhitespace) { withoutSource.append(question.id) }
                picture(question.picture)
                let openers = question.choices.map { Self.words($0.text).first ?? "" }
                if openers.count >= 2, question.choices.allSatisfy({ Self.answersYesOrNo($0.text, words: yesNo) }) {
                    yesNoQuestions.append(question.id)
                }
                let wrongOpeners = Set(zip(openers, question.choices).filter { !$0.1.correct }.map(\.0))
                if let correct = question.choices.firstIndex(where: \.correct), question.choices.count >= 3,
                    wrongOpeners.count == 1, !wrongOpeners.contains(openers[correct])
                {
                    oddOpenerQuestions.append(question.id)
                }
                for choice in question.choices {
                    for word in Set(Self.words(choice.text)) {
                        wordCounts[word, default: (0, 0)].choices += 1
                        if choice.correct { wordCounts[word, default: (0, 0)].correct += 1 }
                    }
                }
            }
        }
        self.choiceCounts = choiceCounts
        correctPositions = positions
        correctIsLongest = longest
        self.yesNoQuestions = yesNoQuestions
        self.oddOpenerQuestions = oddOpenerQuestions
        recurringWords = wordCounts.filter { $0.value.choices >= Self.recurringWordThreshold }
            .map { WordFigures(word: $0.key, choices: $0.value.choices, correct: $0.value.correct) }
            .sorted { ($0.choices, $1.word) > ($1.choices, $0.word) }
        self.withoutSource = withoutSource
        self.pictures = pictures
        missingPictures = source.map { source in pictures.filter { !source.contains($0) } } ?? []
    }

    /// The share of questions whose correct choice is at `position` (0 when there are none).
    public func shareCorrect(at position: Int) -> Double {
        questions == 0 ? 0 : Double(correctPositions[position, default: 0]) / Double(questions)
    }

    /// The recurring words whose choices are correct far more or far less often than one in
    /// `choicesPerQuestion` (under half of that, or over twice): the words a guesser learns to
    /// avoid or pick.
    public func giveawayWords(choicesPerQuestion: Int = 4) -> [WordFigures] {
        let fair = 1 / Double(max(choicesPerQuestion, 1))
        return recurringWords.filter { $0.shareCorrect < fair / 2 || $0.shareCorrect > fair * 2 }
    }

    /// The share of questions whose correct choice is the longest.
    public var shareCorrectIsLongest: Double { questions == 0 ? 0 : Double(correctIsLongest) / Double(questions) }
}
