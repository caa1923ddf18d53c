import Foundation
import GRDB
import StudyEngine
import Testing
import TestSupport

@testable import StudyProgress

/// The compact coder that keeps item states (schema v3): every scheduler's states read back
/// equal, JSON rows of older versions still read and hash the same, damaged bytes are an error.
@Suite("The compact coder: item states as bytes, read back exactly, never a trap")
struct CompactCoderTests {
    /// States of every built-in scheduler: new, and after a few answers.
    static func states() throws -> [CardState] {
        var states: [CardState] = []
        for registration in SchedulerRegistry.builtIn {
            let scheduler = AnyScheduler.standard(registration.kind, calendar: .utc, fuzz: true)
            var random = SplitMix64(seed: 7)
            var state = scheduler.newState(at: StudyMoment(day0, sessionDay: 1))
            states.append(state)
            for step in 1...6 {
                let answer = scheduler.kind == .fsrs6 || scheduler.kind == .fsrs5 ? Answer.grade(1 + step % 4) : step % 3 == 0 ? .wrong : .right
                guard let next = try? scheduler.review(state, answer: answer, at: StudyMoment(day0.addingTimeInterval(Double(step) * 86_400.123), sessionDay: step + 1), random: &random)
                else { continue }
                state = next.state
                states.append(state)
            }
        }
        return states
    }

    @Test("every built-in scheduler's states read back equal, and the bytes are the same every time")
    func roundTrips() throws {
        let states = try Self.states()
        #expect(states.count >= SchedulerRegistry.builtIn.count * 3)
        for state in states {
            let bytes = try CompactCoder.encode(state)
            #expect(try CompactCoder.decode(CardState.self, from: bytes) == state, "\(state)")
            #expect(try CompactCoder.encode(state) == bytes)
        }
    }

    @Test("a row an older version wrote as JSON reads the same, and the state hash does not tell the two forms apart")
    func jsonRowsStillRead() throws {
        let scratch = try Scratch()
        let store = try ProgressStore(path: scratch.url("p.sqlite"))
        let key = ItemKey(source: "bank/b", item: "q1")
        try store.record(key, answer: .grade(3), at: day0, scheduler: AnyScheduler.standard(.fsrs6, calendar: .utc, fuzz: false))
        let compact = try #require(try store.item(key))
        let hash = try store.derivedState()
        let json = String(decoding: try ProgressStore.encoder.encode(compact.state), as: UTF8.self)
        try store.pool.write { db in
            try db.execute(sql: "UPDATE item SET state = ? WHERE item = 'q1'", arguments: [json])
            #expect(try String.fetchOne(db, sql: "SELECT typeof(state) FROM item") == "text")
        }
        #expect(try store.item(key) == compact)
        #expect(try store.derivedState() == hash)
    }

    @Test(
        "damaged bytes are a decoding error, never a trap: cut short, a count past the end, nesting deeper than 32, a wrong kind, trailing bytes",
        arguments: [
            [CompactCoder.marker, 7, 1, 1, 0x61],
            [CompactCoder.marker, 7, 0x7F],
            [CompactCoder.marker] + Array(repeating: 8, count: 200).flatMap { [$0, 1] },
            [CompactCoder.marker, 6, 3, 0x61, 0x62, 0x63],
            [CompactCoder.marker, 0, 0],
            [0x7B, 0x7D],
            [],
        ] as [[UInt8]])
    func damaged(_ bytes: [UInt8]) {
        #expect(throws: (any Error).self) { try CompactCoder.decode(CardState.self, from: bytes) }
    }
}
