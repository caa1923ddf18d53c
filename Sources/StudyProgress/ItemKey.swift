// No dependency: compiled standalone with the sync objects' parsing by Scripts/fuzz.

/// What identifies an item across languages and content updates: the deck or bank it belongs
/// to, its id, and the card direction where a deck is studied both ways.
///
/// The source is `bank/ID` or `deck/ID`, not the pack file's name: a bank's translations live in
/// differently named packs (`driving-en`, `driving-ru`) but share the bank id and every item id,
/// so a locale swap keeps the learner's progress.
public struct ItemKey: Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
    /// `bank/ID` or `deck/ID`.
    public var source: String
    /// The question or card id.
    public var item: String
    /// The card direction (`""` for a question or a one-way card; `reverse` for back-to-front).
    public var direction: String

    /// A key.
    public init(source: String, item: String, direction: String = "") {
        self.source = source
        self.item = item
        self.direction = direction
    }

    /// `source/item` or `source/item:direction`.
    public var description: String { direction.isEmpty ? "\(source)/\(item)" : "\(source)/\(item):\(direction)" }

    /// Orders keys by source, then item, then direction.
    public static func < (lhs: ItemKey, rhs: ItemKey) -> Bool {
        (lhs.source, lhs.item, lhs.direction) < (rhs.source, rhs.item, rhs.direction)
    }
}
