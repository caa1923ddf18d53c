/// What a question bank is made of, for authors and reviewers: questions per category and
/// lesson, how many choices questions have, where the correct choice sits and how often it is
/// the longest (a giveaway), questions without a source, and pictures used and missing.
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
    /// The questions with no `source`.
    public var withoutSource: [String]
    /// The distinct pictures the bank's questions and categories show.
    public var pictures: [String]
    /// The pictures that are in neither the content nor its base (when a source was given).
    public var missingPictures: [String]

    /// The figures of `bank`; with `pictures`, also which pictures are missing from it.
    public init(_ bank: QuestionBank, pictures source: (any ContentSource)? = nil) {
        categories = bank.categories.map { category in
            CategoryFigures(
                id: category.id, title: category.title, questions: category.questions.count,
                lessons: category.lessons.map { LessonFigures(id: $0.id, questions: $0.questions.count) })
        }
        questions = bank.questions.count
        var choiceCounts: [Int: Int] = [:]
        var positions: [Int: Int] = [:]
        var longest = 0
        var withoutSource: [String] = []
        var pictures: [String] = []
        var seenPictures = Set<String>()
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
            }
        }
        self.choiceCounts = choiceCounts
        correctPositions = positions
        correctIsLongest = longest
        self.withoutSource = withoutSource
        self.pictures = pictures
        missingPictures = source.map { source in pictures.filter { !source.contains($0) } } ?? []
    }

    /// The share of questions whose correct choice is at `position` (0 when there are none).
    public func shareCorrect(at position: Int) -> Double {
        questions == 0 ? 0 : Double(correctPositions[position, default: 0]) / Double(questions)
    }

    /// The share of questions whose correct choice is the longest.
    public var shareCorrectIsLongest: Double { questions == 0 ? 0 : Double(correctIsLongest) / Double(questions) }
}
