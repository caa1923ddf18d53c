// Writes the sync target's seed corpus (FuzzSyncObjects: the first byte picks the parser): object
// contents made by the real encoder from the events a device writes (answers of every kind with
// both payload modes, undos, resets, imports, session days, seeds, an unknown kind, three devices,
// a snapshot's covered names), the payloads alone, object names as a listing gives them, and
// ListObjectsV2 pages as S3-compatible stores answer (entities, a continuation token).
#if canImport(Glibc)
import Glibc
#endif

@main
struct WriteSyncSeeds {
    static func main() {
        let folder = CommandLine.arguments.count > 1 ? CommandLine.arguments[1] : "corpus-sync"
        var random = SplitMix64(seed: 30)
        let learner: UInt64 = 0x5EED_0000_0000_0001
        let devices = [DeviceID(rawValue: 0xA1), DeviceID(rawValue: 0xB2), DeviceID(rawValue: 0xC3)]
        var written = 0
        func write(_ mode: UInt8, _ bytes: [UInt8], _ name: String) {
            guard let file = fopen(folder + "/" + name, "wb") else { return }
            let all = [mode] + bytes
            _ = all.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, file) }
            fclose(file)
            written += 1
        }

        // Payloads: every answer kind, both modes, with and without a session day.
        let answers: [Answer] = [.grade(1), .grade(3), .right, .wrong, .incorrect(answers: 2), .multipleChoice(.rightFirstTry), .multipleChoice(.wrong)]
        var payloads: [[UInt8]] = []
        for (index, answer) in answers.enumerated() {
            let standard = AnswerPayload(
                answer: answer, durationMilliseconds: Int64(800 + index * 1_000), sessionDay: index % 2 == 0 ? nil : index,
                mode: .standard(scheduler: "fsrs6", timeZone: index % 3 == 0 ? "" : "Europe/Berlin", fuzz: index % 2 == 0, balance: index - 3))
            let recorded = AnswerPayload(
                answer: answer, durationMilliseconds: 4_000, sessionDay: nil,
                mode: .recorded(recalled: index % 2 == 0, after: Array(#"{"due":800000000,"introduced":799000000,"key":{"direction":"","item":"q1","source":"bank\/b"}}"#.utf8)))
            payloads += [standard.bytes, recorded.bytes]
        }
        for (index, payload) in payloads.enumerated() { write(1, payload, "payload-\(index)") }

        // Events as devices make them: mostly answers, and every other kind.
        var events: [ProgressEvent] = []
        var clocks = [HybridClock(milliseconds: 1_795_338_000_000), HybridClock(milliseconds: 1_795_300_000_000), HybridClock(milliseconds: 1_795_400_000_000)]
        for step in 0..<240 {
            let device = Int(random.next() % 3)
            let wall = clocks[device].milliseconds + Int64(random.next() % 600_000)
            clocks[device] = clocks[device].next(wallMilliseconds: wall)
            let key = ItemKey(source: "bank/driving-rules", item: "q\(random.next() % 40)", direction: step % 17 == 0 ? "reverse" : "")
            var kind = ProgressEvent.Kind.answer
            var payload = payloads[Int(random.next() % UInt64(payloads.count))]
            switch step % 29 {
            case 5: (kind, payload) = (.undo, events.last?.id.bytes ?? [])
            case 9: (kind, payload) = (.reset, [])
            case 13: (kind, payload) = (.setProgress, Array(#"{"reviews":3,"lapses":1}"#.utf8))
            case 17: (kind, payload) = (.sessionDayCompleted, Array("2026-11-\(10 + step % 18)".utf8))
            case 21: (kind, payload) = (.learnerSeed, [0, 1, 2, 3, 4, 5, 6, 7])
            case 25: (kind, payload) = (ProgressEvent.Kind(rawValue: 200), [9, 9, 9])
            default: break
            }
            let itemKey = kind == .learnerSeed ? ItemKey(source: "", item: "") : kind == .sessionDayCompleted ? ItemKey(source: key.source, item: "") : key
            events.append(ProgressEvent(
                id: EventID(high: random.next(), low: random.next()), device: devices[device], clock: clocks[device], wall: wall, kind: kind,
                key: itemKey, payload: payload))
        }
        events.sort { $0.precedes($1) }
        let segment = ObjectBody(learner: learner, device: devices[0].rawValue, sequence: 7, sealedAt: 1_795_338_100_000, covered: [], events: Array(events.prefix(60)))
        write(0, segment.encoded(), "segment")
        write(0, ObjectBody(learner: learner, device: devices[1].rawValue, sequence: 1, sealedAt: 0, covered: [], events: Array(events.prefix(1))).encoded(), "segment-one")
        write(0, ObjectBody(learner: learner, device: 0, sequence: 0, sealedAt: 0, covered: [], events: []).encoded(), "key-check")
        let names = (1...3).map { ObjectName(kind: .segment, learner: learner, device: devices[$0 - 1].rawValue, sequence: $0, tag: "0123456789abcdef").description }
        let snapshot = ObjectBody(learner: learner, device: devices[2].rawValue, sequence: 4, sealedAt: 1_795_400_000_000, covered: names, events: events)
        write(0, snapshot.encoded(), "snapshot")

        // Names as a listing gives them: each shape sync reads, and near misses.
        let snapshotName = ObjectName(kind: .snapshot, learner: learner, device: devices[2].rawValue, sequence: 4, tag: "fedcba9876543210").description
        let keyCheck = ObjectName(kind: .keyCheck, learner: learner, device: 0, sequence: 0, tag: "").description
        for (index, name) in (names + [snapshotName, keyCheck, names[0] + "/..", "learners/../devices", names[0].uppercased()]).enumerated() {
            write(2, Array(name.utf8), "name-\(index)")
        }

        // ListObjectsV2 pages, as an S3-compatible store answers.
        func contents(_ name: String, _ size: Int) -> String {
            "<Contents><Key>app/\(name)</Key><LastModified>2026-11-22T09:00:00.000Z</LastModified><ETag>&quot;0a1b&quot;</ETag><Size>\(size)</Size><StorageClass>STANDARD</StorageClass></Contents>"
        }
        let header = #"<?xml version="1.0" encoding="UTF-8"?><ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Name>progress</Name><Prefix>app/learners/</Prefix>"#
        let first = header + "<KeyCount>2</KeyCount><MaxKeys>2</MaxKeys><IsTruncated>true</IsTruncated><NextContinuationToken>1Ue&amp;xyz==</NextContinuationToken>"
            + contents(names[0], 1_480) + contents(names[1], 920) + "</ListBucketResult>"
        let last = header + "<KeyCount>3</KeyCount><MaxKeys>1000</MaxKeys><IsTruncated>false</IsTruncated>"
            + contents(names[2], 77) + contents(snapshotName, 6_400) + contents(keyCheck, 61) + "</ListBucketResult>"
        write(3, Array(first.utf8), "list-truncated")
        write(3, Array(last.utf8), "list-last")
        write(3, Array((header + "<KeyCount>0</KeyCount><IsTruncated>false</IsTruncated></ListBucketResult>").utf8), "list-empty")
        print("wrote \(written) seed inputs for the sync target to \(folder)")
    }
}
