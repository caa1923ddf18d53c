import Foundation

/// The build-time checks of decks and banks: what `packtool build` runs before packing.
///
/// Decks (`Decks/*.json|tsv|csv`): card ids unique and non-empty, fronts and backs non-empty,
/// pictures present. Banks (`Banks/ID/bank.json` and its category files): ids of categories,
/// lessons and questions unique, prompts and choices non-empty, 2 to 6 choices with exactly one
/// correct, pictures present. Pictures may be in the pack itself or in a base pack.
public struct ContentValidator {
    /// Where the content is.
    public let content: any ContentSource
    /// Where pictures may be (the content itself and, typically, its base pack).
    public let pictures: any ContentSource

    public init(content: any ContentSource, pictures: (any ContentSource)? = nil) {
        self.content = content
        self.pictures = pictures.map { LayeredSource([content, $0]) } ?? content
    }

    /// Every problem found, in file order; empty when the content is valid.
    public func validate() -> [ContentError] {
        var problems: [ContentError] = []
        for path in content.files(in: "Decks") where Deck.extensions.contains(where: { path.lowercased().hasSuffix("." + $0) }) {
            do {
                problems += check(try Deck.load(path: path, from: content), file: path)
            } catch {
                problems.append(error)
            }
        }
        for folder in content.folders(in: "Banks") {
            let id = String(folder.dropFirst("Banks/".count))
            guard content.contains(QuestionBank.indexPath(of: id)) else { continue }
            do {
                problems += check(try QuestionBank.load(id: id, from: content))
            } catch {
                problems.append(error)
            }
        }
        return problems
    }

    func check(_ deck: Deck, file: String) -> [ContentError] {
        var problems: [ContentError] = []
        var seen = Set<String>()
        for card in deck.cards {
            if card.id.isEmpty { problems.append(ContentError(.emptyText, file: file, "a card has no id")) }
            if !card.id.isEmpty, !seen.insert(card.id).inserted {
                problems.append(ContentError(.duplicateID, file: file, item: card.id))
            }
            if card.front.trimmingCharacters(in: .whitespaces).isEmpty {
                problems.append(ContentError(.emptyText, file: file, item: card.id, "front"))
            }
            if card.back.trimmingCharacters(in: .whitespaces).isEmpty {
                problems.append(ContentError(.emptyText, file: file, item: card.id, "back"))
            }
            if let picture = card.picture, !pictures.contains(picture) {
                problems.append(ContentError(.missingPicture, file: file, item: card.id, picture))
            }
        }
        return problems
    }

    func check(_ bank: QuestionBank) -> [ContentError] {
        var problems: [ContentError] = []
        var seen = Set<String>()
        for category in bank.categories {
            let file = QuestionBank.categoryPath(bank: bank.id, category: category.id)
            func unique(_ id: String) {
                if !seen.insert(id).inserted { problems.append(ContentError(.duplicateID, file: file, item: id)) }
            }
            unique(category.id)
            if let picture = category.picture, !pictures.contains(picture) {
                problems.append(ContentError(.missingPicture, file: file, item: category.id, picture))
            }
            for lesson in category.lessons {
                unique(lesson.id)
                for question in lesson.questions {
                    unique(question.id)
                    if question.prompt.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
                        problems.append(ContentError(.emptyText, file: file, item: question.id, "prompt"))
                    }
                    if !(2...6).contains(question.choices.count) {
                        problems.append(
                            ContentError(.choiceCount, file: file, item: question.id, "it has \(question.choices.count)"))
                    }
                    let correct = question.choices.filter(\.correct).count
                    if correct != 1 {
                        problems.append(
                            ContentError(.correctAnswers, file: file, item: question.id, "\(correct) are marked correct"))
                    }
                    if question.choices.contains(where: { $0.text.trimmingCharacters(in: .whitespaces).isEmpty }) {
                        problems.append(ContentError(.emptyText, file: file, item: question.id, "a choice"))
                    }
                    if let picture = question.picture, !pictures.contains(picture) {
                        problems.append(ContentError(.missingPicture, file: file, item: question.id, picture))
                    }
                }
            }
        }
        return problems
    }

    /// The question ids a translation lacks or adds, compared with the reference (development
    /// locale) bank of the same id.
    public static func compareTranslation(_ translation: QuestionBank, reference: QuestionBank) -> [ContentError] {
        var problems: [ContentError] = []
        let translated = Set(translation.questions.map(\.id))
        for category in reference.categories {
            let file = QuestionBank.categoryPath(bank: translation.id, category: category.id)
            for question in category.questions where !translated.contains(question.id) {
                problems.append(ContentError(.missingTranslation, file: file, item: question.id))
            }
        }
        let original = Set(reference.questions.map(\.id))
        for category in translation.categories {
            let file = QuestionBank.categoryPath(bank: translation.id, category: category.id)
            for question in category.questions where !original.contains(question.id) {
                problems.append(ContentError(.extraTranslation, file: file, item: question.id))
            }
        }
        return problems
    }

    /// Every bank in `content` checked against the bank of the same id in `reference`.
    public func compareTranslations(with reference: any ContentSource) -> [ContentError] {
        var problems: [ContentError] = []
        for folder in content.folders(in: "Banks") {
            let id = String(folder.dropFirst("Banks/".count))
            guard content.contains(QuestionBank.indexPath(of: id)), reference.contains(QuestionBank.indexPath(of: id)),
                let translation = try? QuestionBank.load(id: id, from: content),
                let original = try? QuestionBank.load(id: id, from: reference)
            else { continue }
            problems += Self.compareTranslation(translation, reference: original)
        }
        return problems
    }
}
