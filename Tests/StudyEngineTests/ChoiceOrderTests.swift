import StudyEngine
import Testing

@Suite("Choice order: shuffled per learner and item, stable, uniform")
struct ChoiceOrderTests {
    /// The question ids of a bank of `count` questions: q1, q2, …
    static func ids(_ count: Int) -> [String] { (1...count).map { "q\($0)" } }

    @Test("every order is a permutation of the choices, for 0 to 8 choices")
    func permutation() {
        for count in 0...8 {
            for id in Self.ids(50) {
                let order = ChoiceOrder(count: count, learnerSeed: 7, bank: "b", question: id)
                #expect(order.originalIndices.sorted() == Array(0..<count), "\(count) choices, \(id)")
            }
        }
    }

    @Test("the same learner, bank and question give the same order; another bank or id, another order")
    func stable() {
        let seed: UInt64 = 0x1234_5678_9ABC_DEF0
        for id in Self.ids(100) {
            #expect(
                ChoiceOrder(count: 4, learnerSeed: seed, bank: "b", question: id)
                    == ChoiceOrder(count: 4, learnerSeed: seed, bank: "b", question: id))
        }
        // The bank is part of the identity: q1 of bank "b" and of bank "c" are different items.
        let differing = Self.ids(200).filter {
            ChoiceOrder(count: 4, learnerSeed: seed, bank: "b", question: $0) != ChoiceOrder(count: 4, learnerSeed: seed, bank: "c", question: $0)
        }
        #expect(differing.count > 160, "\(differing.count) of 200")
        // The separator keeps "ab" + "c" apart from "a" + "bc".
        let joined = Self.ids(200).filter {
            ChoiceOrder(count: 4, learnerSeed: seed, bank: "ab", question: "c\($0)") != ChoiceOrder(count: 4, learnerSeed: seed, bank: "a", question: "bc\($0)")
        }
        #expect(joined.count > 160, "\(joined.count) of 200")
    }

    @Test("two learners see most questions in different orders")
    func learnersDiffer() {
        // Chance alone makes two orders of 4 equal 1 time in 24.
        for (one, other) in [(UInt64(1), UInt64(2)), (0, .max), (0x5EED, 0x5EEE)] {
            let differing = Self.ids(300).filter {
                ChoiceOrder(count: 4, learnerSeed: one, bank: "b", question: $0) != ChoiceOrder(count: 4, learnerSeed: other, bank: "b", question: $0)
            }
            #expect(differing.count >= 255, "seeds \(one), \(other): \(differing.count) of 300 differ")
        }
    }

    @Test("over 600 questions of 4 choices, the key is shown at each position 15–35% of the time", arguments: [UInt64(1), 0xDEAD_BEEF, .max])
    func keyPositionsEven(seed: UInt64) {
        for key in 0..<4 {
            var shownAt = [0, 0, 0, 0]
            for id in Self.ids(600) {
                let order = ChoiceOrder(count: 4, learnerSeed: seed, bank: "driving-rules", question: id)
                shownAt[order.shownPosition(ofOriginalIndex: key)!] += 1
            }
            #expect(shownAt.allSatisfy { (90...210).contains($0) }, "seed \(seed), key \(key): \(shownAt)")
        }
    }

    @Test("every order of 3 choices comes up about equally often (the draws are unbiased)")
    func ordersEven() {
        var counts: [[Int]: Int] = [:]
        for id in Self.ids(6_000) { counts[ChoiceOrder(count: 3, learnerSeed: 99, bank: "b", question: id).originalIndices, default: 0] += 1 }
        #expect(counts.count == 6)
        // 1,000 expected each; 4 standard deviations is about 116.
        #expect(counts.values.allSatisfy { (880...1_120).contains($0) }, "\(counts)")
    }

    @Test("an answer given by the number shown maps back to the choice's original index")
    func mapping() throws {
        let order = ChoiceOrder(count: 5, learnerSeed: 3, bank: "b", question: "q1")
        let choices = ["a", "b", "c", "d", "e"]
        let shown = order.arrange(choices)
        for position in 0..<5 {
            let original = try #require(order.originalIndex(atShownPosition: position))
            #expect(shown[position] == choices[original])
            #expect(order.shownPosition(ofOriginalIndex: original) == position)
        }
        #expect(order.originalIndex(atShownPosition: 5) == nil)
        #expect(order.originalIndex(atShownPosition: -1) == nil)
        #expect(order.shownPosition(ofOriginalIndex: 5) == nil)
        #expect(ChoiceOrder(unshuffled: 4).originalIndices == [0, 1, 2, 3])
        #expect(ChoiceOrder(unshuffled: 4).arrange(["a", "b", "c", "d"]) == ["a", "b", "c", "d"])
    }

    @Test("the orders are pinned: changing the seed's derivation or the shuffle would reorder every learner's choices")
    func pinned() {
        // Checked against a separate Python rendering of the same steps (FNV-1a, SplitMix64,
        // rejection draws, Fisher–Yates from the last place down).
        let orders = Self.ids(6).map { ChoiceOrder(count: 4, learnerSeed: 0x5EED, bank: "driving-rules", question: $0).originalIndices }
        #expect(orders == [[1, 3, 0, 2], [0, 3, 2, 1], [3, 2, 1, 0], [2, 3, 0, 1], [2, 1, 3, 0], [1, 3, 2, 0]])
        #expect(ChoiceOrder(count: 6, learnerSeed: 0, bank: "", question: "").originalIndices == [5, 1, 2, 0, 4, 3])
    }
}
