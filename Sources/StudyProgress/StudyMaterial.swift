import Foundation
import StudyContent

/// A deck or bank as the session sees it: its items in study order, each with what to show.
///
/// A bank goes in the seed app's order: categories along the road, lessons in order, questions
/// in order; the first question of a lesson carries the lesson's teaching text. A deck's cards go
/// in deck order, in lessons of ``StudyMaterial/deckLessonSize`` new cards; studied both ways, a
/// card is two items (front → back and back → front), siblings the session never shows on the
/// same day.
public struct StudyMaterial: Sendable {
    /// A deck or a bank.
    public enum Kind: String, Sendable, CaseIterable {
        /// A question bank (multiple choice).
        case bank
        /// A deck of cards (self-graded).
        case deck
    }

    /// What one item shows.
    public enum Content: Sendable, Hashable {
        /// A multiple-choice question.
        case question(Question)
        /// A card, front first, or back first when `reverse`.
        case card(Card, reverse: Bool)
    }

    /// The lesson an item belongs to.
    public struct LessonInfo: Sendable, Hashable {
        /// The lesson id.
        public var id: String
        /// Its title (a bank's lesson title with its category; "Lesson N" in a deck).
        public var title: String
        /// The teaching text shown before the lesson's first question (empty in a deck).
        public var intro: String
    }

    /// One item to study.
    public struct Item: Sendable, Hashable {
        /// Its progress key.
        public var key: ItemKey
        /// Its lesson.
        public var lesson: LessonInfo
        /// Whether it is the first item of its lesson (the lesson's text comes before it).
        public var opensLesson: Bool
        /// What to show.
        public var content: Content
    }

    /// New cards per deck lesson.
    public static let deckLessonSize = 5

    /// Deck or bank.
    public var kind: Kind
    /// The deck or bank id.
    public var id: String
    /// Its title in the current locale.
    public var title: String
    /// The progress source: `bank/ID` or `deck/ID`.
    public var source: String { "\(kind.rawValue)/\(id)" }
    /// The items in study order.
    public var items: [Item] {
        didSet {
            positions = Self.index(items)
            index = PositionIndex(items.lazy.map(\.key))
            fingerprint = Self.fingerprint(items)
        }
    }
    /// Each item's place in ``items`` (built once, so a day's queue never rebuilds it).
    public private(set) var positions: [ItemKey: Int] = [:]
    /// Whether some items are the other direction of a card (siblings, never on the same day).
    public var hasSiblings: Bool { items.last.map { !$0.key.direction.isEmpty } ?? false }
    /// A digest of the item keys in order (FNV-1a, 64 bits): progress notices a content update by it.
    public private(set) var fingerprint = ""

    /// The position of the item with this id and direction (its bytes hashed, no key built).
    public func position(of key: ItemKey) -> Int? {
        index.position(of: key)
    }

    /// The positions by the bytes of id and direction, for the queue and the content sync.
    private(set) var index = PositionIndex([ItemKey]())

    static func index(_ items: [Item]) -> [ItemKey: Int] {
        var positions: [ItemKey: Int] = [:]
        positions.reserveCapacity(items.count)
        for (index, item) in items.enumerated() where positions[item.key] == nil { positions[item.key] = index }
        return positions
    }

    static func fingerprint(_ items: [Item]) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for item in items {
            for part in [item.key.item, item.key.direction] {
                for byte in part.utf8 {
                    hash ^= UInt64(byte)
                    hash = hash &* 0x0000_0100_0000_01B3
                }
                hash ^= 0xFF
                hash = hash &* 0x0000_0100_0000_01B3
            }
        }
        return String(items.count) + "-" + String(hash, radix: 16)
    }

    /// A bank's questions in road order.
    public init(bank: QuestionBank) {
        kind = .bank
        id = bank.id
        title = bank.title
        var items: [Item] = []
        for category in bank.categories {
            for lesson in category.lessons {
                let info = LessonInfo(id: lesson.id, title: "\(category.title): \(lesson.title)", intro: lesson.intro)
                for (index, question) in lesson.questions.enumerated() {
                    items.append(Item(
                        key: ItemKey(source: "bank/\(bank.id)", item: question.id), lesson: info, opensLesson: index == 0,
                        content: .question(question)))
                }
            }
        }
        self.items = items
        positions = Self.index(items)
        index = PositionIndex(items.lazy.map(\.key))
        fingerprint = Self.fingerprint(items)
    }

    /// A deck's cards, one way or both ways.
    public init(deck: Deck, bothWays: Bool = false) {
        kind = .deck
        id = deck.id
        title = deck.title
        var items: [Item] = []
        for (index, card) in deck.cards.enumerated() {
            let number = index / Self.deckLessonSize + 1
            let info = LessonInfo(id: "\(deck.id)-lesson-\(number)", title: "Lesson \(number)", intro: "")
            let opens = index % Self.deckLessonSize == 0
            items.append(Item(key: ItemKey(source: "deck/\(deck.id)", item: card.id), lesson: info, opensLesson: opens, content: .card(card, reverse: false)))
            if bothWays {
                items.append(Item(
                    key: ItemKey(source: "deck/\(deck.id)", item: card.id, direction: "reverse"), lesson: info, opensLesson: false,
                    content: .card(card, reverse: true)))
            }
        }
        self.items = items
        positions = Self.index(items)
        index = PositionIndex(items.lazy.map(\.key))
        fingerprint = Self.fingerprint(items)
    }

    /// Loads deck or bank `id` from `content` (a store's current view: the learner's language).
    public static func load(_ kind: Kind, id: String, from content: any ContentSource, bothWays: Bool = false) throws(ProgressError) -> StudyMaterial {
        do {
            switch kind {
            case .bank: return StudyMaterial(bank: try QuestionBank.load(id: id, from: content))
            case .deck: return StudyMaterial(deck: try Deck.load(id: id, from: content), bothWays: bothWays)
            }
        } catch where error.code == .notFound && (kind == .deck || error.location.file == QuestionBank.indexPath(of: id)) {
            throw ProgressError(.unknownContent, "no \(kind.rawValue) with this id in the mounted packs", at: .item("\(kind.rawValue)/\(id)"))
        } catch {
            throw ProgressError(error)
        }
    }
}
