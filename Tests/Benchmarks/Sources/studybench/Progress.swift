import CBenchSQLite
import Foundation
import StudyContent
import StudyEngine
import StudyResearch
import StudyProgress

/// Progress and sessions, side by side with SQLite's C API where there is a peer:
/// - today's queue from 100,000 items of which 30,000 are due (FSRS, ordered by predicted recall),
///   as a session starts: on a day like any other, and on the first day after a content change;
/// - one answer recorded durably (WAL, synchronous = FULL, one transaction), ours against the same
///   two writes through sqlite3_* directly;
/// - `study simulate` of 365 days over 10,000 cards.
func progressBenchmarks() throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("studybench-\(getpid())").path
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let calendar = LearnerCalendar.utc
    let now = Date(timeIntervalSince1970: 1_795_338_000)  // 2026-11-22 09:00 UTC
    let fsrs = AnyScheduler.standard(.fsrs6, calendar: calendar, fuzz: false)

    // 100,000 cards, all seen, 30,000 of them due today or overdue.
    let count = 100_000
    let deck = StudyMaterial(deck: Deck(id: "bench", title: "Bench", cards: (0..<count).map { Card(id: "c\($0)", front: "f\($0)", back: "b\($0)") }))
    let store = try ProgressStore(path: folder + "/queue.sqlite")
    var random = SplitMix64(seed: 7)
    let items = deck.items.enumerated().map { index, item -> ItemProgress in
        let last = now.addingTimeInterval(-Double(1 + random.next() % 60) * 86_400)
        let due = index % 10 < 3 ? now.addingTimeInterval(-Double(random.next() % 20) * 86_400) : now.addingTimeInterval(Double(1 + random.next() % 90) * 86_400)
        let stability = 1 + Double(random.next() % 1000) / 10
        let state = FSRSState(phase: .review, step: nil, stability: stability, difficulty: 5, lastReview: last, due: due)
        return ItemProgress(key: item.key, state: CardState(.fsrs6, state), due: .date(due), introduced: last, lastReview: last, reviews: 3, lapses: 0)
    }
    // Imported with their places, as answers write them (the queue's steady state).
    try store.importItems(items, content: deck)
    var plan: SessionPlan?
    let limits = SessionLimits(newPerDay: 20, reviewsPerDay: count)
    func startSession() throws {
        plan = try StudySession(material: deck, store: store, scheduler: fsrs, calendar: calendar, limits: limits, now: now).plan
    }
    // The first session after the content changed reads every item once (orphans, the frontier).
    let firstSeconds = try best(of: 1, startSession)
    let queueSeconds = try best(of: 5, startSession)
    guard let plan, plan.reviews.count == 30_000 else { throw Failure("the queue has \(plan?.reviews.count ?? 0) reviews, not 30,000") }

    // A content update: one card added at the top and one removed, so every item moves by one
    // place and one becomes an orphan; the first session after it, best of 3 updates.
    var updateSeconds = Double.infinity
    for round in 0..<3 {
        var cards = (0..<count).map { Card(id: "c\($0)", front: "f\($0)", back: "b\($0)") }
        cards.remove(at: 1 + round)
        cards.insert(Card(id: "new\(round)", front: "new", back: "new"), at: 0)
        let updated = StudyMaterial(deck: Deck(id: "bench", title: "Bench", cards: cards))
        var updatedPlan: SessionPlan?
        updateSeconds = min(updateSeconds, try best(of: 1) {
            updatedPlan = try StudySession(material: updated, store: store, scheduler: fsrs, calendar: calendar, limits: limits, now: now).plan
        })
        guard let updatedPlan, updatedPlan.reviews.count >= 29_999, updatedPlan.new.count == 1 else {
            throw Failure("after the update the queue has \(updatedPlan?.reviews.count ?? 0) reviews and \(updatedPlan?.new.count ?? 0) new")
        }
    }

    // One durable answer: ours, then the same writes through the C API.
    let answers = 400
    let answerStore = try ProgressStore(path: folder + "/answers.sqlite")
    var ours: [Double] = []
    for n in 0..<answers {
        let key = ItemKey(source: "deck/bench", item: "c\(n % 100)")
        let start = DispatchTime.now().uptimeNanoseconds
        try answerStore.record(key, answer: .grade(3), at: now.addingTimeInterval(Double(n) * 600), scheduler: fsrs)
        ours.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
    }
    let theirs = try rawSQLiteAnswers(path: folder + "/raw.sqlite", count: answers)

    // study simulate: 365 days over 10,000 cards.
    var simulated: Simulation.Result?
    let simulateSeconds = try best(of: 1) {
        simulated = try Simulation(scheduler: .fsrs6, cards: 10_000, days: 365, newPerDay: 20).run()
    }

    func row(_ what: String, _ value: String, _ note: String) -> String {
        what.padding(toLength: 64, withPad: " ", startingAt: 0) + value.padding(toLength: 16, withPad: " ", startingAt: 0) + note
    }
    print("")
    print(row("progress and sessions", "figure", "note"))
    print(row("today's queue: 100,000 items, 30,000 due (FSRS order)", String(format: "%.1f ms", queueSeconds * 1000),
              "best of 5, session start included (content unchanged since the last session)"))
    print(row("  the first session on this content (100,000 items)", String(format: "%.1f ms", firstSeconds * 1000), "finds orphans and the new-item frontier; places come from key tags, nothing per item is written"))
    print(row("  the first session after a content update", String(format: "%.1f ms", updateSeconds * 1000), "best of 3: one card added at the top, one removed, every item one place further"))
    print(row("an answer recorded durably (WAL, FULL, 1 transaction), ours", String(format: "%.3f ms", median(ours)), "median of \(answers); read state, schedule, write item + event, own-event row, clock"))
    print(row("the same writes through SQLite's C API", String(format: "%.3f ms", median(theirs)), String(format: "median of %d; ratio ours/C API %.2f×", answers, median(ours) / median(theirs))))
    print(row("study simulate: 365 days, 10,000 cards, FSRS-6", String(format: "%.2f s", simulateSeconds),
              String(format: "%.0f reviews a day on average, %.1f%% recalled", simulated?.meanReviews ?? 0, (simulated?.retention ?? 0) * 100)))
}

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    return sorted.isEmpty ? 0 : sorted[sorted.count / 2]
}

/// The peer: the writes an answer makes since the event log (schema v3), in one IMMEDIATE
/// transaction, WAL, synchronous=FULL, prepared statements, through sqlite3_* directly: the item
/// upserted, the event appended (clustered by key, as ours), this device's own-event row and its
/// clock. Milliseconds per answer.
func rawSQLiteAnswers(path: String, count: Int) throws -> [Double] {
    var db: OpaquePointer?
    guard sqlite3_open(path, &db) == SQLITE_OK, let db else { throw Failure("sqlite3_open \(path) failed") }
    defer { sqlite3_close(db) }
    func exec(_ sql: String) throws {
        guard sqlite3_exec(db, sql, nil, nil, nil) == SQLITE_OK else { throw Failure("sqlite: \(String(cString: sqlite3_errmsg(db)))") }
    }
    try exec("PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL")
    try exec("""
        CREATE TABLE item (source TEXT NOT NULL, item TEXT NOT NULL, direction TEXT NOT NULL, scheduler TEXT NOT NULL,
          state TEXT NOT NULL, due REAL, dueSessionDay INTEGER, stability REAL, introduced REAL NOT NULL, lastReview REAL,
          reviews INTEGER NOT NULL, lapses INTEGER NOT NULL, orphan INTEGER NOT NULL DEFAULT 0,
          PRIMARY KEY (source, item, direction)) WITHOUT ROWID;
        CREATE TABLE event (key INTEGER NOT NULL, clock INTEGER NOT NULL, device INTEGER NOT NULL, id BLOB NOT NULL,
          seq INTEGER NOT NULL, wall INTEGER NOT NULL, kind INTEGER NOT NULL, payload BLOB NOT NULL, sent INTEGER,
          PRIMARY KEY (key, clock, device, id)) WITHOUT ROWID;
        CREATE INDEX event_unsent ON event (seq) WHERE sent IS NULL;
        CREATE TABLE ownEvent (seq INTEGER PRIMARY KEY, key INTEGER NOT NULL);
        CREATE TABLE device (id INTEGER PRIMARY KEY, device INTEGER NOT NULL, clock INTEGER NOT NULL, seq INTEGER NOT NULL);
        INSERT INTO device VALUES (1, 7, 0, 0);
        """)
    var upsert: OpaquePointer?
    var insert: OpaquePointer?
    var own: OpaquePointer?
    var device: OpaquePointer?
    sqlite3_prepare_v2(db, "INSERT OR REPLACE INTO item VALUES ('deck/bench', ?, '', 'fsrs6', ?, ?, NULL, 3.2, ?, ?, 1, 0, 0)", -1, &upsert, nil)
    sqlite3_prepare_v2(db, "INSERT INTO event VALUES (?, ?, 7, randomblob(16), ?, ?, 1, ?, NULL)", -1, &insert, nil)
    sqlite3_prepare_v2(db, "INSERT INTO ownEvent VALUES (?, ?)", -1, &own, nil)
    sqlite3_prepare_v2(db, "UPDATE device SET clock = ?, seq = ? WHERE id = 1", -1, &device, nil)
    defer {
        sqlite3_finalize(upsert)
        sqlite3_finalize(insert)
        sqlite3_finalize(own)
        sqlite3_finalize(device)
    }
    let payload = [UInt8](repeating: 7, count: 24)
    let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
    let state = String(repeating: "s", count: 180)
    var times: [Double] = []
    for n in 0..<count {
        let start = DispatchTime.now().uptimeNanoseconds
        try exec("BEGIN IMMEDIATE")
        sqlite3_bind_text(upsert, 1, "c\(n % 100)", -1, transient)
        sqlite3_bind_text(upsert, 2, state, -1, transient)
        sqlite3_bind_double(upsert, 3, Double(n))
        sqlite3_bind_double(upsert, 4, Double(n))
        sqlite3_bind_double(upsert, 5, Double(n))
        guard sqlite3_step(upsert) == SQLITE_DONE else { throw Failure("sqlite: \(String(cString: sqlite3_errmsg(db)))") }
        sqlite3_reset(upsert)
        sqlite3_bind_int64(insert, 1, Int64(n % 100))
        sqlite3_bind_int64(insert, 2, Int64(n) << 16)
        sqlite3_bind_int64(insert, 3, Int64(n))
        sqlite3_bind_int64(insert, 4, Int64(n))
        payload.withUnsafeBytes { _ = sqlite3_bind_blob(insert, 5, $0.baseAddress, Int32($0.count), transient) }
        guard sqlite3_step(insert) == SQLITE_DONE else { throw Failure("sqlite: \(String(cString: sqlite3_errmsg(db)))") }
        sqlite3_reset(insert)
        sqlite3_bind_int64(own, 1, Int64(n))
        sqlite3_bind_int64(own, 2, Int64(n % 100))
        guard sqlite3_step(own) == SQLITE_DONE else { throw Failure("sqlite: \(String(cString: sqlite3_errmsg(db)))") }
        sqlite3_reset(own)
        sqlite3_bind_int64(device, 1, Int64(n) << 16)
        sqlite3_bind_int64(device, 2, Int64(n))
        guard sqlite3_step(device) == SQLITE_DONE else { throw Failure("sqlite: \(String(cString: sqlite3_errmsg(db)))") }
        sqlite3_reset(device)
        try exec("COMMIT")
        times.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
    }
    return times
}
