/// The order a multiple-choice question's choices are shown in, fixed per learner and item.
///
/// The order is a Fisher–Yates shuffle driven by ``SplitMix64``, seeded from the learner's seed
/// and the item's identity (its bank's id and its own id), never from the text: a learner sees a
/// question's choices in the same order in every session and in every language, since a
/// translation keeps the choices in the same order with the same key. Two learners see most
/// questions in different orders, so no one learns "the answer is the second one".
///
/// Everything that fixes the order is written out here (the seed's derivation, the bounded draws),
/// not taken from the standard library, whose `random(in:using:)` may change between Swift
/// versions: an app and the `study` tool, built by any compiler, show the same order. Changing
/// any of it reorders every learner's choices.
///
/// ```swift
/// let order = ChoiceOrder(count: question.choices.count, learnerSeed: store.learnerSeed,
///                         bank: bank.id, question: question.id)
/// let shown = order.arrange(question.choices)             // what the learner sees, 1., 2., …
/// let chosen = order.originalIndex(atShownPosition: 2)    // the choice the learner picked as 3.
/// ```
public struct ChoiceOrder: Sendable, Hashable {
    /// For each shown position (from 0), the original index of the choice shown there.
    public let originalIndices: [Int]

    /// The order of `count` choices of question `question` in bank `bank` for the learner whose
    /// seed is `learnerSeed`: a permutation of `0..<count`, the same for the same four values.
    ///
    /// - Parameters:
    ///   - count: The number of choices, 0 or more.
    ///   - learnerSeed: The learner's own random seed (the progress store keeps one per learner).
    ///   - bank: The id of the bank the question is in.
    ///   - question: The question's id, the same in every translation.
    public init(count: Int, learnerSeed: UInt64, bank: String, question: String) {
        precondition(count >= 0, "a question has 0 or more choices, not \(count)")
        var random = SplitMix64(seed: learnerSeed ^ Self.identityHash(bank: bank, question: question))
        var order = Array(0..<count)
        // Fisher–Yates: each place from the last down takes one of the places not yet fixed.
        var last = count - 1
        while last > 0 {
            order.swapAt(last, Int(Self.draw(below: UInt64(last + 1), from: &random)))
            last -= 1
        }
        originalIndices = order
    }

    /// The original order of `count` choices: what `study session --no-shuffle` shows authors.
    public init(unshuffled count: Int) {
        precondition(count >= 0, "a question has 0 or more choices, not \(count)")
        originalIndices = Array(0..<count)
    }

    /// The number of choices.
    public var count: Int { originalIndices.count }

    /// The original index of the choice shown at `position` (from 0), or `nil` when there is no
    /// such position: how an answer given by the number shown becomes the choice's identity.
    public func originalIndex(atShownPosition position: Int) -> Int? {
        originalIndices.indices.contains(position) ? originalIndices[position] : nil
    }

    /// The position (from 0) where the choice at original index `index` is shown, or `nil` when
    /// there is no such choice.
    public func shownPosition(ofOriginalIndex index: Int) -> Int? {
        originalIndices.firstIndex(of: index)
    }

    /// `elements`, given in the original order, in the order shown.
    ///
    /// - Precondition: `elements.count == count`.
    public func arrange<Element>(_ elements: [Element]) -> [Element] {
        precondition(elements.count == count, "\(elements.count) elements for an order of \(count)")
        return originalIndices.map { elements[$0] }
    }

    /// FNV-1a (64 bits) over the bank id's UTF-8 bytes, 0xFF (never a UTF-8 byte), then the
    /// question id's: the item's identity as a number, the same on every platform.
    static func identityHash(bank: String, question: String) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        func add(_ byte: UInt8) {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01B3
        }
        for byte in bank.utf8 { add(byte) }
        add(0xFF)
        for byte in question.utf8 { add(byte) }
        return hash
    }

    /// A uniform value in `0..<bound` (`bound` > 0): draws that fall in the last, partial run of
    /// `bound` values below 2^64 are rejected, so every value is equally likely.
    static func draw(below bound: UInt64, from random: inout SplitMix64) -> UInt64 {
        let rejected = (0 &- bound) % bound  // 2^64 mod bound
        while true {
            let value = random.next()
            if value >= rejected { return value % bound }
        }
    }
}
