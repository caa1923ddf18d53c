import Foundation

/// One answer option of a multiple-choice question.
public struct Choice: Sendable, Hashable, Codable {
    /// The choice as shown.
    public var text: String
    /// Whether it is the correct answer (exactly one choice of a question is).
    public var correct: Bool

    /// A choice.
    public init(text: String, correct: Bool) {
        self.text = text
        self.correct = correct
    }
}

/// A multiple-choice question: 2 to 6 choices, exactly one correct.
public struct Question: Sendable, Hashable, Codable {
    /// The question's id, unique in its bank and the same in every translation.
    public var id: String
    /// The question as asked.
    public var prompt: String
    /// The choices, in the order shown.
    public var choices: [Choice]
    /// Why the correct choice is right.
    public var explanation: String
    /// A picture's base path in the store, if the question shows one.
    public var picture: String?
    /// Where the rule the question teaches is stated (a manual's section, a law's section, a
    /// government page), for authors and reviewers.
    public var source: String?

    /// A question.
    public init(
        id: String, prompt: String, choices: [Choice], explanation: String, picture: String? = nil,
        source: String? = nil
    ) {
        self.id = id
        self.prompt = prompt
        self.choices = choices
        self.explanation = explanation
        self.picture = picture
        self.source = source
    }

    /// The position of the correct choice (the first, if validation was skipped).
    public var correctIndex: Int? { choices.firstIndex(where: \.correct) }
}

/// A lesson: an introduction, then its questions.
public struct Lesson: Sendable, Hashable, Codable {
    /// The lesson's id.
    public var id: String
    /// The lesson's title.
    public var title: String
    /// The teaching text read before the lesson's questions.
    public var intro: String
    /// The lesson's questions, in order.
    public var questions: [Question]
}

/// A category of a bank (`Parking`), with its lessons.
public struct BankCategory: Sendable, Hashable, Codable {
    /// The category's id (its file's base name).
    public var id: String
    /// The category's title.
    public var title: String
    /// The category's picture (its base path), if it has one.
    public var picture: String?
    /// The category's lessons, in order.
    public var lessons: [Lesson]

    /// All questions of all lessons, in order.
    public var questions: [Question] { lessons.flatMap(\.questions) }
}

/// A question bank: categories → lessons (with an intro) → multiple-choice questions.
///
/// Stored as a folder `Banks/ID/`: `bank.json` (`{"id", "title", "language", "categories": [ids]}`)
/// and one `CATEGORY.json` per category. Each file is looked up separately, so through a store a
/// missing translation falls back along the locale chain file by file.
public struct QuestionBank: Sendable, Hashable {
    /// The bank's id (its folder's name).
    public var id: String
    /// The bank's title.
    public var title: String
    /// The language of the bank's text (BCP 47), when it says.
    public var language: String?
    /// Generated content for scale tests, not real questions.
    public var isSynthetic: Bool
    /// Whether every question must name its ``Question/source`` (checked at build time).
    public var requiresSources: Bool
    /// The categories, in the bank's order.
    public var categories: [BankCategory]

    /// All questions, in order.
    public var questions: [Question] { categories.flatMap(\.questions) }

    struct Index: Codable {
        var id: String
        var title: String
        var language: String?
        var synthetic: Bool?
        var requireSources: Bool?
        var categories: [String]
    }

    /// The path of bank `id`'s index file: `Banks/ID/bank.json`.
    public static func indexPath(of id: String) -> String { "Banks/\(id)/bank.json" }
    /// The path of a category's file: `Banks/BANK/CATEGORY.json`.
    public static func categoryPath(bank: String, category: String) -> String { "Banks/\(bank)/\(category).json" }

    /// Loads bank `id` from `source`. Through a store, take one ``AssetLibrary/AssetView`` so a
    /// locale swap during loading cannot mix languages.
    public static func load(id: String, from source: any ContentSource) throws(ContentError) -> QuestionBank {
        let indexPath = indexPath(of: id)
        try ContentPath.check(indexPath, file: indexPath, item: id)
        let index = try ContentDecoding.decode(Index.self, at: indexPath, from: source)
        var categories: [BankCategory] = []
        for category in index.categories {
            let path = categoryPath(bank: id, category: category)
            guard !category.contains("/") else {
                throw ContentError(.unsafeReference, "a category id is one name, without '/'", at: .file(indexPath, item: category))
            }
            try ContentPath.check(path, file: indexPath, item: category)
            categories.append(try ContentDecoding.decode(BankCategory.self, at: path, from: source))
        }
        return QuestionBank(
            id: index.id, title: index.title, language: index.language, isSynthetic: index.synthetic ?? false,
            requiresSources: index.requireSources ?? false, categories: categories)
    }

    /// The question with `id`, and the category it is in.
    public func question(id: String) -> (category: BankCategory, question: Question)? {
        for category in categories {
            if let question = category.questions.first(where: { $0.id == id }) { return (category, question) }
        }
        return nil
    }
}
