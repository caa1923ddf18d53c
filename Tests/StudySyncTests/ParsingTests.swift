import Foundation
import StudyProgress
@testable import StudySync
import Testing

/// What the sync fuzz target (Tests/Fuzz/FuzzSyncObjects.swift) holds the parsers to, and each
/// input it found, as cases: whatever the bytes, a value or a refusal, and a value reads back the
/// same once written again.
@Suite("Parsing what a store returns: found by the fuzzer, kept as cases")
struct ParsingTests {
    @Test(
        "a string or blob whose length reaches past the end is refused, not read (the fuzzer's first find: the length was checked before it was read)",
        arguments: [[1, 2, 0x73, 0x36, 0x00, 0x02, 0x73], [0, 1, 0, 0x05, 0x61], [2, 0, 0, 0x7F]] as [[UInt8]])
    func lengthPastTheEnd(_ bytes: [UInt8]) {
        #expect(AnswerPayload(bytes: bytes) == nil)
        var reader = ByteReader(Array(bytes.suffix(2)) + [0x7F])
        _ = reader.byte()
        #expect(reader.string() == nil)
        var blobs = ByteReader([0x05, 0x61])
        #expect(blobs.blob() == nil)
    }

    @Test(
        "a number at the edge of 64 bits in a payload (a balance or a grade of Int64.min) is refused, not a trap (the fuzzer's second find: abs(Int.min))",
        arguments: [
            [0x00, 0x04, 0x01, 0x01, 0x00, 0x00, 0x00] + Array(repeating: 0xFF, count: 9) + [0x01],
            [0x00, 0x00] + Array(repeating: 0xFF, count: 9) + [0x01, 0x02, 0x00, 0x00, 0x00, 0x00],
            [0x01, 0x03] + Array(repeating: 0xFF, count: 9) + [0x01],
        ] as [[UInt8]])
    func edgeNumbers(_ bytes: [UInt8]) {
        #expect(AnswerPayload(bytes: bytes) == nil)
    }

    @Test("clocks of 2^63 and more read back as written (a clock step is the wrapping difference both ways)")
    func clocksPastHalfTheRange() throws {
        let key = ItemKey(source: "bank/b", item: "q1")
        let clocks: [UInt64] = [1, 1 << 63, .max - 1, 5, .max]
        let events = clocks.enumerated().map { index, raw in
            ProgressEvent(
                id: EventID(high: UInt64(index), low: 1), device: DeviceID(rawValue: 1), clock: HybridClock(rawValue: raw),
                wall: Int64(index) * 1_000, kind: .answer, key: key, payload: [UInt8(index)])
        }
        let body = ObjectBody(learner: 9, device: 1, sequence: 1, sealedAt: 0, covered: [], events: events)
        guard case .success(let read) = ObjectBody.decode(body.encoded()) else {
            Issue.record("a body with high clocks does not read back")
            return
        }
        #expect(read == body)
    }

    @Test("an event's time is kept in the clock's range where it is made, so every device reads it back; one outside is refused")
    func timesInRange() {
        #expect(ProgressStore.milliseconds(Date(timeIntervalSince1970: -86_400)) == 0)
        #expect(ProgressStore.milliseconds(Date(timeIntervalSince1970: 1e13)) == Int64(HybridClock.maximumMilliseconds))
        let key = ItemKey(source: "bank/b", item: "q1")
        let outside = ProgressEvent(
            id: .random(), device: DeviceID(rawValue: 1), clock: HybridClock(milliseconds: 10), wall: -5, kind: .answer, key: key, payload: [])
        let body = ObjectBody(learner: 9, device: 1, sequence: 1, sealedAt: 0, covered: [], events: [outside])
        guard case .failure(let malformed) = ObjectBody.decode(body.encoded()) else {
            Issue.record("a time before 1970 was read")
            return
        }
        #expect(malformed.reason.contains("out of range"))
    }
}
