import AssetPack
import Foundation

/// The build-time checks of decks and banks: what `packtool build` runs before packing.
///
/// Decks (`Decks/*.json|tsv|csv`): card ids unique and non-empty, fronts and backs non-empty,
/// pictures present. Banks (`Banks/ID/bank.json` and its category files): ids of categories,
/// lessons and questions unique, prompts and choices non-empty, 2 to 6 choices with exactly one
/// correct, pictures present, and a source on every question when the bank requires sources.
/// Pictures may be in the content itself or in a base; every reference must name a file of
/// the pack (no `..`, absolute path or hidden file). Each problem names its file, line and item.
public struct ContentValidator {
    /// Where the content is.
    public let content: any ContentSource
    /// Where pictures may be (the content itself and, typically, its base pack).
    public let pictures: any ContentSource

    /// Checks `content`; pictures may also be in `pictures` (a base pack or folder).
    public init(content: any ContentSource, pictures: (any ContentSource)? = nil) {
        self.content = content
        self.pictures = pictures.map { LayeredSource([content, $0]) } ?? content
    }

    /// Every problem found, in file order; empty when the content is valid.
    public func validate() -> [ContentError] {
        var problems: [ContentError] = []
        for path in content.files(inDirectory: "Decks") where Deck.extensions.contains(where: { path.lowercased().hasSuffix("." + $0) }) {
            do {
                problems += try check(Deck.load(path: path, from: content), file: path)
            } catch {
                problems.append(error)
            }
        }
        for id in bankIDs(in: content) {
            do {
                problems += try check(QuestionBank.load(id: id, from: content))
            } catch {
                problems.append(error)
            }
        }
        return problems
    }

    /// The ids of the banks in `source` (folders of `Banks/` with a `bank.json`).
    private func bankIDs(in source: any ContentSource) -> [String] {
        source.subdirectories(inDirectory: "Banks").map { String($0.dropFirst("Banks/".count)) }.filter {
            source.contains(QuestionBank.indexPath(of: $0))
        }
    }

    /// The problem with a picture reference, if any: unsafe, or in neither the pack nor its base.
    private func pictureProblem(_ picture: String, file: String, line: Int?, item: String) -> ContentError? {
        if let problem = ContentPath.problem(with: picture) {
            return ContentError(.unsafeReference, "\"\(picture)\": \(problem)", at: .file(file, line: line, item: item))
        }
        guard pictures.contains(picture) else {
            return ContentError(.missingPicture, picture, at: .file(file, line: line, item: item))
        }
        return nil
    }

    func check(_ deck: Deck, file: String) throws(ContentError) -> [ContentError] {
        let lines = (try content.data(atPath: file)).map { Deck.cardLines($0, path: file) } ?? []
        var problems: [ContentError] = []
        var seen = Set<String>()
        for (index, card) in deck.cards.enumerated() {
            let line = index < lines.count ? lines[index] : nil
            if card.id.isEmpty { problems.append(ContentError(.emptyText, "a card has no id", at: .file(file, line: line))) }
            if !card.id.isEmpty, !seen.insert(card.id).inserted {
                problems.append(ContentError(.duplicateID, at: .file(file, line: line, item: card.id)))
            }
            if card.front.trimmingCharacters(in: .whitespaces).isEmpty {
                problems.append(ContentError(.emptyText, "front", at: .file(file, line: line, item: card.id)))
            }
            if card.back.trimmingCharacters(in: .whitespaces).isEmpty {
                problems.append(ContentError(.emptyText, "back", at: .file(file, line: line, item: card.id)))
            }
            if let picture = card.picture, let problem = pictureProblem(picture, file: file, line: line, item: card.id) {
                problems.append(problem)
            }
        }
        return problems
    }

    func check(_ bank: QuestionBank) throws(ContentError) -> [ContentError] {
        var problems: [ContentError] = []
        var seen = Set<String>()
        for category in bank.categories {
            let file = QuestionBank.categoryPath(bank: bank.id, category: category.id)
            // The line of each item: objects with an "id" come in the order items are visited,
            // so a repeated id is placed on its own line, not on the first one's.
            var lines = ItemLines((try content.data(atPath: file)).flatMap { try? JSONValue.parse($0) })
            func visit(_ id: String) -> Int? {
                let line = lines.next(id)
                if !seen.insert(id).inserted { problems.append(ContentError(.duplicateID, at: .file(file, line: line, item: id))) }
                return line
            }
            let categoryLine = visit(category.id)
            if let picture = category.picture, let problem = pictureProblem(picture, file: file, line: categoryLine, item: category.id) {
                problems.append(problem)
            }
            for lesson in category.lessons {
                _ = visit(lesson.id)
                for question in lesson.questions {
                    let at = visit(question.id)
                    func problem(_ code: ContentError.Code, _ detail: String = "") {
                        problems.append(ContentError(code, detail, at: .file(file, line: at, item: question.id)))
                    }
                    if question.prompt.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty { problem(.emptyText, "prompt") }
                    if !(2...6).contains(question.choices.count) { problem(.choiceCount, "it has \(question.choices.count)") }
                    let correct = question.choices.filter(\.correct).count
                    if correct != 1 { problem(.correctAnswers, "\(correct) are marked correct") }
                    if question.choices.contains(where: { $0.text.trimmingCharacters(in: .whitespaces).isEmpty }) {
                        problem(.emptyText, "a choice")
                    }
                    if let picture = question.picture, let found = pictureProblem(picture, file: file, line: at, item: question.id) {
                        problems.append(found)
                    }
                    if bank.requiresSources, (question.source ?? "").trimmingCharacters(in: .whitespaces).isEmpty {
                        problem(.missingSource, "the bank requires a source on every question")
                    }
                }
            }
        }
        return problems
    }

    /// How a translation differs from the reference (development locale) bank of the same id:
    /// questions it lacks or adds, and questions or categories whose answer key (the number of
    /// choices and which one is correct) or picture differ. A translation keeps both.
    public static func compareTranslation(_ translation: QuestionBank, reference: QuestionBank) -> [ContentError] {
        var problems: [ContentError] = []
        // Each translated question, and the file it is in.
        var translated: [String: (question: Question, file: String)] = [:]
        for category in translation.categories {
            let file = QuestionBank.categoryPath(bank: translation.id, category: category.id)
            for question in category.questions where translated[question.id] == nil { translated[question.id] = (question, file) }
        }
        let translatedCategories = Dictionary(translation.categories.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        for category in reference.categories {
            let file = QuestionBank.categoryPath(bank: translation.id, category: category.id)
            if let other = translatedCategories[category.id], other.picture != category.picture {
                problems.append(ContentError(.pictureMismatch, Self.pictures(other.picture, category.picture), at: .file(file, item: category.id)))
            }
            for question in category.questions {
                guard let (other, here) = translated[question.id] else {
                    problems.append(ContentError(.missingTranslation, at: .file(file, item: question.id)))
                    continue
                }
                if other.choices.count != question.choices.count {
                    problems.append(ContentError(
                        .answerKeyMismatch, "\(other.choices.count) choices, the reference has \(question.choices.count)", at: .file(here, item: question.id)))
                } else if other.choices.map(\.correct) != question.choices.map(\.correct) {
                    problems.append(ContentError(
                        .answerKeyMismatch, "correct: \(Self.key(other)) here, \(Self.key(question)) in the reference", at: .file(here, item: question.id)))
                }
                if other.picture != question.picture {
                    problems.append(ContentError(.pictureMismatch, Self.pictures(other.picture, question.picture), at: .file(here, item: question.id)))
                }
            }
        }
        let original = Set(reference.questions.map(\.id))
        for category in translation.categories {
            let file = QuestionBank.categoryPath(bank: translation.id, category: category.id)
            for question in category.questions where !original.contains(question.id) {
                problems.append(ContentError(.extraTranslation, at: .file(file, item: question.id)))
            }
        }
        return problems
    }

    /// The correct choices' numbers (from 1), as a reader counts them: `choice 2`, `choices 1, 3`, `none`.
    private static func key(_ question: Question) -> String {
        let numbers = question.choices.indices.filter { question.choices[$0].correct }.map { String($0 + 1) }
        if numbers.isEmpty { return "none" }
        return (numbers.count == 1 ? "choice " : "choices ") + numbers.joined(separator: ", ")
    }

    private static func pictures(_ here: String?, _ reference: String?) -> String {
        "\(here ?? "none") here, \(reference ?? "none") in the reference"
    }

    /// Every bank in `content` checked against the bank of the same id in `reference`. A bank
    /// that cannot be loaded on either side is reported, never skipped.
    public func compareTranslations(with reference: any ContentSource) -> [ContentError] {
        var problems: [ContentError] = []
        for id in bankIDs(in: content) where reference.contains(QuestionBank.indexPath(of: id)) {
            let translation: QuestionBank
            let original: QuestionBank
            do {
                translation = try QuestionBank.load(id: id, from: content)
            } catch {
                problems.append(error)
                continue
            }
            do {
                original = try QuestionBank.load(id: id, from: reference)
            } catch {
                var located = error
                located.detail = "the reference bank cannot be loaded" + (error.detail.isEmpty ? "" : ": " + error.detail)
                problems.append(located)
                continue
            }
            problems += located(Self.compareTranslation(translation, reference: original))
        }
        return problems
    }

    /// `problems` with the line of their item in the translation's file, where it has one.
    private func located(_ problems: [ContentError]) -> [ContentError] {
        var files: [String: ItemLines] = [:]
        return problems.map { problem in
            guard problem.location.line == nil, let file = problem.location.file, let item = problem.location.item else { return problem }
            let lines = files[file] ?? ItemLines((try? content.data(atPath: file))?.flatMap { try? JSONValue.parse($0) })
            files[file] = lines
            var found = problem
            found.location.line = lines.first(item)
            return found
        }
    }
}

/// The lines of the objects with an `"id"` in a JSON tree, handed out in document order.
private struct ItemLines {
    private var lines: [String: [Int]] = [:]
    private var taken: [String: Int] = [:]

    init(_ tree: JSONValue?) {
        tree.map { collect($0) }
    }

    private mutating func collect(_ value: JSONValue) {
        if let id = value["id"]?.string { lines[id, default: []].append(value.line) }
        switch value.kind {
        case .array(let values): for value in values { collect(value) }
        case .object(let members): for member in members { collect(member.value) }
        default: break
        }
    }

    /// The line of the first object with id `id`.
    func first(_ id: String) -> Int? { lines[id]?.first }

    /// The line of the next object with id `id`.
    mutating func next(_ id: String) -> Int? {
        let index = taken[id, default: 0]
        taken[id] = index + 1
        guard let found = lines[id], index < found.count else { return lines[id]?.last }
        return found[index]
    }
}
