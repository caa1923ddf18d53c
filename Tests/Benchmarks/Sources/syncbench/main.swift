// Progress sync's benchmark (Scripts/bench-sync, release build), side by side with a plain SQLite
// copy of the same data:
// - bytes on the remote per review: a device's 100,000 answers sent at once, a device that syncs
//   after every session of 20 answers (and compacts), a snapshot;
// - merging another device's 100,000 events and replaying every item they touch;
// - 1,000 new events into a 100,000-event history;
// - a new device's first session from a snapshot of 100,000 events;
// - requests of a sync with nothing new.
// The peer is what copying rows between plain SQLite files costs: the same events as rows of one
// table, merged with INSERT OR IGNORE (no replay, no sealing, nothing verified).
//   syncbench [--folder DIR] [--scale F]    (F < 1: fewer answers, for trying the program out)
//             [--only merges] [--setup DIR]
// --only merges: just the two merges (ours, no peer), then stop: for measuring them repeatedly.
// --setup DIR: the two devices' files, the remote and the key are kept in DIR after the setup, and
// taken from there (copies) when DIR already holds them, so a repeated run skips the ~70 s setup.
import Foundation
import StudyContent
import StudyEngine
import StudyProgress
import StudySync

/// The options: the folder to work in, and the scale of the data.
func options() throws -> (folder: String, scale: Double, mergesOnly: Bool, setup: String?) {
    var options = (folder: FileManager.default.temporaryDirectory.path, scale: 1.0, mergesOnly: false, setup: String?.none)
    var rest = CommandLine.arguments.dropFirst()
    while let flag = rest.popFirst() {
        guard let value = rest.popFirst() else { throw Failure("\(flag) needs a value") }
        switch flag {
        case "--folder": options.folder = value
        case "--scale": options.scale = Double(value) ?? 1
        case "--only" where value == "merges": options.mergesOnly = true
        case "--setup": options.setup = value
        default: throw Failure("unknown option \(flag); syncbench [--folder DIR] [--scale F] [--only merges] [--setup DIR]")
        }
    }
    return options
}
let (base, scale, mergesOnly, setupFolder) = try options()
/// `count` scaled by --scale.
@MainActor func scaled(_ count: Int) -> Int { max(1, Int(Double(count) * scale)) }
// With --setup, always the same folder: a remote's identity is its path, which the files keep.
let folder = setupFolder.map { $0 + "/work" } ?? base + "/syncbench-\(getpid())"
try? FileManager.default.removeItem(atPath: folder)
try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(atPath: folder) }

let zone = TimeZone(identifier: "Europe/Berlin") ?? TimeZone(secondsFromGMT: 3_600) ?? .current
let calendar = LearnerCalendar.local(zone)
let fsrs = AnyScheduler.standard(.fsrs6, calendar: calendar, fuzz: false)
let balance = LoadBalancer(calendar: calendar)
let cardCount = 5_000
let deck = StudyMaterial(deck: Deck(id: "bench", title: "Bench", cards: (0..<cardCount).map { Card(id: "c\($0)", front: "f\($0)", back: "b\($0)") }))
let start = Date(timeIntervalSince1970: 1_700_000_000)  // 2023-11-14
/// Whether `--setup DIR` holds a finished setup to start from.
let reuse = setupFolder.map { FileManager.default.fileExists(atPath: $0 + "/key") } ?? false
let key = reuse ? try LearnerKey(contentsOfFile: setupFolder! + "/key") : LearnerKey.generate()

/// `count` answers on `store`, `perDay` a day from `start` at `hour`, 20 s apart, to random cards
/// with grades 1–4 (10, 10, 65, 15 %), scheduled by FSRS-6 with load balancing, as a session does.
func study(_ store: ProgressStore, count: Int, perDay: Int, hour: Double, from first: Int = 0, seed: UInt64) throws {
    var random = SplitMix64(seed: seed)
    for n in first..<(first + count) {
        let moment = start.addingTimeInterval(Double(n / perDay) * 86_400 + hour * 3_600 + Double(n % perDay) * 20)
        let roll = random.next() % 100
        let grade = roll < 10 ? 1 : roll < 20 ? 2 : roll < 85 ? 3 : 4
        let card = Int(random.next() % UInt64(cardCount))
        try store.record(
            ItemKey(source: deck.source, item: "c\(card)"), answer: .grade(grade), at: moment, duration: 8, scheduler: fsrs, balance: balance)
    }
}

func row(_ what: String, _ ours: String, _ peer: String, _ note: String) -> String {
    what.padding(toLength: 54, withPad: " ", startingAt: 0) + ours.padding(toLength: 20, withPad: " ", startingAt: 0)
        + peer.padding(toLength: 14, withPad: " ", startingAt: 0) + note
}
func ms(_ seconds: Double) -> String { String(format: "%.0f ms", seconds * 1000) }

/// The machine's load average over the last minute (other work sharing the cores).
func load() -> String { (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8))?.split(separator: " ").first.map(String.init) ?? "?" }

print("syncbench: \(ProcessInfo.processInfo.activeProcessorCount) cores, load average \(load()) at the start")
let setupStart = monotonicSeconds()
let remoteFolder = folder + "/remote"
let remote = CountingRemote(FolderRemote(root: remoteFolder))

let bPath = folder + "/b.sqlite"
let aPath = folder + "/a.sqlite"
var bulkPerReview = 0.0
var sent = SyncReport()
if reuse, let setupFolder {
    try SQLite.copy(setupFolder + "/a.sqlite", to: aPath)
    try SQLite.copy(setupFolder + "/b.sqlite", to: bPath)
    try FileManager.default.copyItem(atPath: setupFolder + "/remote", toPath: remoteFolder)
    let figures = try String(contentsOfFile: setupFolder + "/figures", encoding: .utf8).split(separator: " ")
    sent.eventsSent = Int(figures[0]) ?? 0
    sent.objectsWritten = Int(figures[1]) ?? 0
    bulkPerReview = Double(figures[2]) ?? 0
}
let b = try ProgressStore(path: bPath)
let a = try ProgressStore(path: aPath)
let aSync = ProgressSync(store: a, remote: remote, key: key)
if !reuse {
    // B: 10,000 answers of its own (5 a day, evenings), sent first.
    try study(b, count: scaled(10_000), perDay: 5, hour: 19, seed: 2)
    _ = try await ProgressSync(store: b, remote: remote, key: key).sync()

    // A: 100,000 answers (50 a day, mornings, over the same days as B's), then a sync that merges
    // B's and sends its own.
    try study(a, count: scaled(100_000), perDay: 50, hour: 8, seed: 1)
    let before = folderSize(remoteFolder)
    sent = try await aSync.sync()
    let bulk = folderSize(remoteFolder)
    bulkPerReview = Double(bulk.bytes - before.bytes) / Double(sent.eventsSent)
    if let setupFolder {
        try FileManager.default.createDirectory(atPath: setupFolder, withIntermediateDirectories: true)
        try SQLite.copy(aPath, to: setupFolder + "/a.sqlite")
        try SQLite.copy(bPath, to: setupFolder + "/b.sqlite")
        try? FileManager.default.removeItem(atPath: setupFolder + "/remote")
        try FileManager.default.copyItem(atPath: remoteFolder, toPath: setupFolder + "/remote")
        try "\(sent.eventsSent) \(sent.objectsWritten) \(bulkPerReview)".write(toFile: setupFolder + "/figures", atomically: true, encoding: .utf8)
        try key.printable.write(toFile: setupFolder + "/key", atomically: true, encoding: .utf8)
    }
}
let setupSeconds = monotonicSeconds() - setupStart

// The peer: the same events as rows of a plain SQLite file.
let plainA = folder + "/plain-a.sqlite"
let plainB = folder + "/plain-b.sqlite"
if !mergesOnly {
    try Peer.copyEvents(from: aPath, device: a.device.description, to: plainA)
    try Peer.copyEvents(from: bPath, device: b.device.description, to: plainB)
}
let plainPerReview = mergesOnly ? 0 : Double(try Peer.fileSize(plainA)) / Double(sent.eventsSent)

// 1. B merges A's 100,000 events: every item is replayed from its first event (A's answers fall
// between B's). Best of 3, each on a fresh copy of B.
var mergeSeconds = Timing.none
var merged = SyncReport()
for run in 0..<3 {
    let copy = folder + "/b-copy-\(run).sqlite"
    try SQLite.copy(bPath, to: copy)
    let store = try ProgressStore(path: copy)
    let sync = ProgressSync(store: store, remote: remote, key: key)
    var report = SyncReport()
    let seconds = try await timed("merge") { report = try await sync.sync() }
    if seconds.wall < mergeSeconds.wall { (mergeSeconds, merged) = (seconds, report) }
    guard report.eventsReceived == sent.eventsSent, try store.stateHash() == a.stateHash() else {
        throw Failure("B merged \(report.eventsReceived) events, not \(sent.eventsSent), or its state differs from A's")
    }
}
var peerMerge = Double.infinity
for run in 0..<(mergesOnly ? 0 : 3) {
    let copy = folder + "/plain-b-copy-\(run).sqlite"
    try SQLite.copy(plainB, to: copy)
    peerMerge = min(peerMerge, try Peer.merge(plainA, into: copy))
}

// 2. 1,000 new answers on A, merged into B's 110,000-event history: B's file open all along, as a
// device's is between syncs (best of 3 rounds, 1,000 new answers each).
let caughtUp = folder + "/b-copy-0.sqlite"
let bOpen = try ProgressStore(path: caughtUp)
let bSync = ProgressSync(store: bOpen, remote: remote, key: key)
_ = try await bSync.sync()
var smallSeconds = Timing.none
var small = SyncReport()
for run in 0..<3 {
    try study(a, count: 1_000, perDay: 50, hour: 8, from: scaled(100_000) + run * 1_000, seed: 3 + UInt64(run))
    _ = try await aSync.sync()
    var report = SyncReport()
    let seconds = try await timed("small") { report = try await bSync.sync() }
    if seconds.wall < smallSeconds.wall { (smallSeconds, small) = (seconds, report) }
    guard report.eventsReceived == 1_000 else { throw Failure("B merged \(report.eventsReceived) events, not 1,000") }
}
if mergesOnly {
    print("merge 100,000 events from another device and replay: \(mergeSeconds.text)  (best of 3, \(merged.requests) requests)")
    print("1,000 new events into a 110,000-event history: \(smallSeconds.text)  (best of 3 rounds)")
    print("load average \(load()) at the end")
    try? FileManager.default.removeItem(atPath: folder)
    exit(0)
}
let plainSmall = folder + "/plain-small.sqlite"
try Peer.copyEvents(from: aPath, device: a.device.description, to: plainSmall, newest: 1_000)
// The peer's history: everything before those 1,000.
let plainCaughtUp = folder + "/plain-caught-up.sqlite"
try SQLite.copy(plainB, to: plainCaughtUp)
_ = try Peer.merge(plainA, into: plainCaughtUp)
var peerSmall = Double.infinity
for run in 0..<3 {
    let copy = folder + "/plain-small-copy-\(run).sqlite"
    try SQLite.copy(plainCaughtUp, to: copy)
    peerSmall = min(peerSmall, try Peer.merge(plainSmall, into: copy))
}

// 3. A compacts: a snapshot of its whole log, read back and verified, then its segments deleted.
let compacting = ProgressSync(store: a, remote: remote, key: key, snapshotAfterSegments: 2)
let compacted = try await compacting.sync()
let afterSnapshot = folderSize(remoteFolder)
let snapshotEvents = try a.eventCount()
let snapshotBytes = try Peer.snapshotBytes(remoteFolder)

// The day after A's last answer, 09:00: its due reviews make today's queue.
let sessionDay = start.addingTimeInterval(Double((scaled(100_000) + 3_000) / 50 + 1) * 86_400 + 9 * 3_600)

// 4. A new device: its first sync (the snapshot, and B's segment the snapshot covers is skipped),
// then its first session of the deck. Best of 3 new devices.
var firstSeconds = Timing.none
var firstSync = SyncReport()
var firstSyncSeconds = Timing.none
var firstPlan: SessionPlan?
var idle = SyncReport()
for run in 0..<3 {
    let path = folder + "/new-\(run).sqlite"
    var report = SyncReport()
    var syncSeconds = Timing.none
    var plan: SessionPlan?
    var store: ProgressStore?
    let seconds = try await timed("first") {
        let opened = try ProgressStore(path: path)
        store = opened
        syncSeconds = try await timed { report = try await ProgressSync(store: opened, remote: remote, key: key).sync() }
        plan = try StudySession(material: deck, store: opened, scheduler: fsrs, calendar: calendar, now: sessionDay).plan
    }
    if seconds.wall < firstSeconds.wall { (firstSeconds, firstSync, firstSyncSeconds, firstPlan) = (seconds, report, syncSeconds, plan) }
    guard let store, report.eventsReceived >= snapshotEvents else { throw Failure("the new device merged \(report.eventsReceived) events, not \(snapshotEvents)") }
    // 5. A sync with nothing new.
    remote.reset()
    idle = try await ProgressSync(store: store, remote: remote, key: key).sync()
}
let idleRequests = remote.figures.requests
// Untimed: a new device that merged the snapshot holds A's state, byte for byte.
let check = try ProgressStore(path: folder + "/new-check.sqlite")
_ = try await ProgressSync(store: check, remote: remote, key: key).sync()
guard try check.stateHash() == a.stateHash() else { throw Failure("a new device's state after its first sync differs from A's") }
var peerFirst = Double.infinity
for run in 0..<3 {
    peerFirst = min(peerFirst, try Peer.restore(plainCaughtUp, to: folder + "/plain-new-\(run).sqlite"))
}

// 6. A device that syncs after every session of 20 answers (another learner, another remote).
let sessionsFolder = folder + "/remote-sessions"
let sessionsRemote = CountingRemote(FolderRemote(root: sessionsFolder))
let sessionKey = LearnerKey.generate()
let d = try ProgressStore(path: folder + "/d.sqlite")
let dSync = ProgressSync(store: d, remote: sessionsRemote, key: sessionKey)
var segmentBytes = 0
var segmentEvents = 0
var sessionsReport = SyncReport()
for session in 0..<200 {
    try study(d, count: 20, perDay: 20, hour: 8, from: session * 20, seed: 10 + UInt64(session))
    sessionsRemote.reset()
    sessionsReport = try await dSync.sync()
    if sessionsReport.objectsDeleted == 0, sessionsReport.objectsWritten == 1 {
        segmentBytes += sessionsRemote.figures.written
        segmentEvents += sessionsReport.eventsSent
    }
}
let sessions = folderSize(sessionsFolder)
let sessionAnswers = 200 * 20

print("")
print("load average \(load()) at the end")
print("setup: \(String(format: "%.0f", setupSeconds)) s to record 110,000 answers on two devices and send them")
print("data: \(cardCount) cards, FSRS-6 with load balancing (Europe/Berlin); B: 10,000 answers, A: 100,000 on the same days")
print("peer: the same events as rows of one plain SQLite table (WAL, synchronous=FULL), INSERT OR IGNORE, no replay")
print("")
print("ours: wall-clock time (the process's CPU time on all threads, in brackets)")
print("")
print(row("measure", "ours", "plain SQLite", "note"))
print(row("bytes on the remote per review, 100,000 sent at once", String(format: "%.1f B", bulkPerReview), String(format: "%.1f B", plainPerReview),
          "sealed, \(sent.objectsWritten) segments; peer: the SQLite file, not sealed"))
print(row("  per review, a sync after every session of 20", String(format: "%.1f B", Double(segmentBytes) / Double(max(segmentEvents, 1))), "",
          "each segment as written (\(segmentEvents) answers in segments of 20)"))
print(row("  per review on that remote after 200 sessions", String(format: "%.1f B", Double(sessions.bytes) / Double(sessionAnswers)), "",
          "\(sessions.files) objects: a snapshot, the segments since, the key check"))
print(row("  per event in a snapshot of \(snapshotEvents)", String(format: "%.1f B", Double(snapshotBytes) / Double(snapshotEvents)), "",
          "A's compaction: \(compacted.objectsDeleted) segments deleted after the snapshot was read back"))
print(row("merge 100,000 events from another device and replay", mergeSeconds.text, ms(peerMerge),
          "best of 3: B's whole sync (\(merged.requests) requests, \(merged.bytesReceived / 1024) KiB read); every item replayed"))
print(row("1,000 new events into a 110,000-event history", smallSeconds.text, ms(peerSmall),
          "best of 3 rounds: B's whole sync, its file open (\(small.requests) requests, \(small.bytesReceived / 1024) KiB read)"))
print(row("a new device's first session from a snapshot", firstSeconds.text, ms(peerFirst),
          "best of 3: sync \(firstSyncSeconds.text) (\(firstSync.requests) requests, \(firstSync.bytesReceived / 1024) KiB), "
            + "then today's queue (\(firstPlan?.reviews.count ?? 0) due); peer: copy the file, open it"))
print(row("a sync with nothing new: requests", "\(idleRequests)", "", String(format: "%.1f ms", idle.seconds * 1000)))
_ = afterSnapshot
