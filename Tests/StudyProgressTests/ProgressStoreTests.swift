import AssetPack
import Foundation
import GRDB
import StudyContent
import StudyEngine
import StudyResearch
import Testing
import TestSupport

@testable import StudyProgress

@Suite("Progress: answers kept in SQLite, undo, locale swaps and content updates, damaged files")
struct ProgressStoreTests {
    let fsrs = AnyScheduler.standard(.fsrs6, calendar: .utc, fuzz: false)

    @Test("an answer is one transaction: the item's state and a log row; undo restores exactly the state before")
    func recordAndUndo() throws {
        let scratch = try Scratch()
        let store = try ProgressStore(path: scratch.url("p.sqlite"))
        let key = ItemKey(source: "bank/b", item: "q1")
        let first = try store.record(key, answer: .multipleChoice(.rightFirstTry), at: day0, scheduler: fsrs)
        #expect(first.before == nil)
        let afterFirst = try #require(try store.item(key))
        let second = try store.record(key, answer: .multipleChoice(.wrong), at: day0.addingTimeInterval(600), scheduler: fsrs)
        #expect(second.before == afterFirst)
        #expect(try store.item(key)?.lapses == 1)

        let undone = try store.undoLast(source: "bank/b")
        #expect(undone.id == second.id)
        #expect(try store.item(key) == afterFirst)
        try store.undoLast(source: "bank/b")
        #expect(try store.item(key) == nil)  // new again
        #expect(throws: ProgressError.self) { try store.undoLast(source: "bank/b") }
        // The log keeps both rows, marked undone.
        #expect(try store.reviews(source: "bank/b", includingUndone: true).map(\.undone) == [true, true])
        #expect(try store.reviews(source: "bank/b").isEmpty)
    }

    @Test("every commit is flushed: the writing connection is synchronous = FULL (GRDB turns it to NORMAL when it sets up WAL), also after a write that asks for less")
    func commitsAreFlushed() throws {
        let scratch = try Scratch()
        let store = try ProgressStore(path: scratch.url("p.sqlite"))
        #expect(try store.pool.write { db in try Int.fetchOne(db, sql: "PRAGMA synchronous") } == 2)
        try store.recordSync(at: 0)
        #expect(try store.pool.write { db in try Int.fetchOne(db, sql: "PRAGMA synchronous") } == 2)
        #expect(try ProgressStore(path: scratch.url("p.sqlite")).pool.write { db in try Int.fetchOne(db, sql: "PRAGMA synchronous") } == 2)
    }

    @Test("today's answers are the answers since the start of the day: imported items are not answers, undone ones do not count, older ones are left out")
    func answersSince() throws {
        let scratch = try Scratch()
        let store = try ProgressStore(path: scratch.url("p.sqlite"))
        let key = { (item: String) in ItemKey(source: "bank/b", item: item) }
        try store.record(key("old"), answer: .grade(3), at: day0.addingTimeInterval(-86_400), scheduler: fsrs)
        let imported = ItemProgress(
            key: key("imported"), state: CardState(.fsrs6, FSRSState(phase: .review, step: nil, stability: 5, difficulty: 5, lastReview: day0, due: day0)),
            due: .date(day0), introduced: day0, lastReview: day0, reviews: 1, lapses: 0)
        try store.importItems([imported])
        try store.record(key("old"), answer: .grade(3), at: day0.addingTimeInterval(60), scheduler: fsrs)
        try store.record(key("new"), answer: .grade(1), at: day0.addingTimeInterval(120), scheduler: fsrs)
        try store.record(key("undone"), answer: .grade(2), at: day0.addingTimeInterval(180), scheduler: fsrs)
        try store.undoLast(source: "bank/b")
        let today = try store.reviews(source: "bank/b", since: LearnerCalendar.utc.startOfDay(day0))
        #expect(today.map(\.key.item) == ["old", "new"])
        #expect(today.map { $0.before == nil } == [false, true])
        #expect(try store.reviews(source: "bank/b").count == 3)
        #expect(try store.reviews(source: "bank/b", includingUndone: true).count == 4)
    }

    @Test("a locale swap keeps progress: the key is the bank and item id, the same in every language's pack")
    func localeSwap() throws {
        let scratch = try Scratch()
        try scratch.pack("en", locale: "en", files: bankFiles(count: 10, language: "en"))
        try scratch.pack("ru", locale: "ru", files: bankFiles(count: 10, language: "ru", word: "Вопрос"))
        let db = scratch.url("p.sqlite")
        // The answers are scripted by the bank's order.
        let common = ["session", "--packs", scratch.url("en.pack"), scratch.url("ru.pack"), "--db", db, "--now", "2026-11-22", "--new", "3", "--no-shuffle"]
        let ru = try study(common + ["--locale", "ru", "bank", "b"], input: "2\n2\n2\n")
        #expect(ru.status == 0, "\(ru.stderr)")
        #expect(ru.output.contains("Вопрос 1?"))
        // The same day in English: the three are not new again, and the day's new limit is spent.
        let en = try study(common + ["--locale", "en", "--json", "bank", "b"], input: "")
        #expect(en.status == 0, "\(en.stderr)")
        let summary = try JSONSerialization.jsonObject(with: en.stdout) as? [String: Any]
        #expect(summary?["answered"] as? Int == 0)
        let store = try ProgressStore(path: db)
        #expect(try store.knownKeys(source: "bank/b").map(\.item).sorted() == ["q1", "q2", "q3"])
        // The next day, the English session reviews what was learned in Russian.
        let next = try study(common.map { $0 == "2026-11-22" ? "2026-11-29" : $0 } + ["--locale", "en", "bank", "b"], input: "2\n2\n2\n2\n2\n2\n")
        #expect(next.output.contains("3 to review"), "\(next.output)")
        #expect(next.output.contains("Question 1?"))
    }

    @Test("a content update keeps progress of the ids that remain, adds new ones as new, keeps removed ones as orphans")
    func contentUpdate() throws {
        let scratch = try Scratch()
        let store = try ProgressStore(path: scratch.url("p.sqlite"))
        let v1 = try material(count: 6, in: scratch)
        let session = try StudySession(material: v1, store: store, scheduler: fsrs, calendar: .utc, limits: SessionLimits(newPerDay: 6), now: day0)
        for _ in 0..<6 { try session.answer(.multipleChoice(.rightFirstTry), at: day0) }
        let before = try store.items(source: "bank/b")

        let v2 = try material(count: 6, in: scratch, removing: ["q2"], adding: ["q7"])
        let later = day0.addingTimeInterval(30 * 86_400)
        let updated = try StudySession(material: v2, store: store, scheduler: fsrs, calendar: .utc, limits: SessionLimits(newPerDay: 5), now: later)
        let after = try store.items(source: "bank/b")
        #expect(after.count == 6)
        #expect(after[ItemKey(source: "bank/b", item: "q2")]?.orphan == true)
        #expect(after[ItemKey(source: "bank/b", item: "q2")]?.state == before[ItemKey(source: "bank/b", item: "q2")]?.state)
        #expect(updated.plan.new.map(\.key.item) == ["q7"])
        #expect(Set(updated.plan.reviews.map(\.key.item)) == ["q1", "q3", "q4", "q5", "q6"])
        // Back in a later version, the orphan is live again with its progress.
        _ = try StudySession(material: v1, store: store, scheduler: fsrs, calendar: .utc, now: later)
        #expect(try store.item(ItemKey(source: "bank/b", item: "q2"))?.orphan == false)
    }

    @Test("the daily new limit does not pile up over missed days; the review cap leaves the rest for tomorrow")
    func limits() throws {
        let scratch = try Scratch()
        let store = try ProgressStore(path: scratch.url("p.sqlite"))
        let bank = try material(count: 40, in: scratch)
        let limits = SessionLimits(newPerDay: 4, reviewsPerDay: 3)
        let first = try StudySession(material: bank, store: store, scheduler: fsrs, calendar: .utc, limits: limits, now: day0)
        #expect(first.plan.new.map(\.key.item) == ["q1", "q2", "q3", "q4"])
        while first.next != nil { try first.answer(.multipleChoice(.rightFirstTry), at: day0.addingTimeInterval(3600)) }
        // The same day: nothing new is left.
        #expect(try StudySession(material: bank, store: store, scheduler: fsrs, calendar: .utc, limits: limits, now: day0.addingTimeInterval(7200)).plan.new.isEmpty)
        // Ten days away: still 4 new, not 40; 4 reviews are due, 3 fit under the cap.
        let later = try StudySession(material: bank, store: store, scheduler: fsrs, calendar: .utc, limits: limits, now: day0.addingTimeInterval(10 * 86_400))
        #expect(later.plan.new.map(\.key.item) == ["q5", "q6", "q7", "q8"])
        #expect(later.plan.reviews.count == 3)
        #expect(later.plan.reviewsOverCap == 1)
    }

    @Test("new items continue where the learner stopped, and an undone first answer makes its item new again")
    func newItemFrontier() throws {
        let scratch = try Scratch()
        let store = try ProgressStore(path: scratch.url("p.sqlite"))
        let bank = try material(count: 600, in: scratch)
        var day = day0
        for expected in [["q1", "q2"], ["q3", "q4"]] {
            let session = try StudySession(material: bank, store: store, scheduler: fsrs, calendar: .utc, limits: SessionLimits(newPerDay: 2, reviewsPerDay: 0), now: day)
            #expect(session.plan.new.map(\.key.item) == expected)
            while session.next != nil { try session.answer(.multipleChoice(.rightFirstTry), at: day) }
            day = day.addingTimeInterval(86_400)
        }
        // Each new item answered at the frontier moved it on: q1–q4 are behind it.
        #expect(try store.newFrontier(source: "bank/b", fingerprint: bank.fingerprint) == 4)
        // Items imported from elsewhere (q5–q500 seen on another device) move the frontier on.
        let imported = bank.items[4..<500].map {
            ItemProgress(key: $0.key, state: fsrs.newState(at: StudyMoment(day0)), due: .date(day0.addingTimeInterval(90 * 86_400)), introduced: day0, lastReview: day0, reviews: 1, lapses: 0)
        }
        try store.importItems(Array(imported))
        let later = try StudySession(material: bank, store: store, scheduler: fsrs, calendar: .utc, limits: SessionLimits(newPerDay: 1, reviewsPerDay: 0), now: day)
        #expect(later.plan.new.map(\.key.item) == ["q501"])
        try later.answer(.multipleChoice(.wrong), at: day)
        try later.undo()
        let again = try StudySession(material: bank, store: store, scheduler: fsrs, calendar: .utc, limits: SessionLimits(newPerDay: 1, reviewsPerDay: 0), now: day)
        #expect(again.plan.new.map(\.key.item) == ["q501"])
    }

    @Test("a card studied both ways: the other direction is buried until tomorrow")
    func siblings() throws {
        let scratch = try Scratch()
        let store = try ProgressStore(path: scratch.url("p.sqlite"))
        let cards = deck(count: 3, bothWays: true)
        let session = try StudySession(material: cards, store: store, scheduler: fsrs, calendar: .utc, limits: SessionLimits(newPerDay: 10), now: day0)
        #expect(session.plan.new.map(\.key.description) == ["deck/d/w1", "deck/d/w2", "deck/d/w3"])
        #expect(session.plan.buriedSiblings == 3)
        for _ in 0..<3 { try session.answer(.grade(4), at: day0) }
        let tomorrow = try StudySession(material: cards, store: store, scheduler: fsrs, calendar: .utc, limits: SessionLimits(newPerDay: 10), now: day0.addingTimeInterval(86_400))
        #expect(tomorrow.plan.new.map(\.key.description) == ["deck/d/w1:reverse", "deck/d/w2:reverse", "deck/d/w3:reverse"])
    }

    @Test("FSRS reviews come lowest predicted recall first")
    func reviewOrder() throws {
        let scratch = try Scratch()
        let store = try ProgressStore(path: scratch.url("p.sqlite"))
        let bank = try material(count: 3, in: scratch)
        // q1 learned well long ago, q2 failed, q3 hard: all due 60 days later.
        for (item, answers) in [("q1", [4, 4]), ("q2", [1, 1]), ("q3", [2, 2])] {
            for (n, grade) in answers.enumerated() {
                try store.record(ItemKey(source: "bank/b", item: item), answer: .grade(grade), at: day0.addingTimeInterval(Double(n) * 86_400), scheduler: fsrs)
            }
        }
        let plan = try StudySession.plan(material: bank, store: store, scheduler: fsrs, calendar: .utc, limits: SessionLimits(), now: day0.addingTimeInterval(60 * 86_400))
        #expect(plan.reviews.map(\.key.item) == ["q2", "q3", "q1"])
        // A session first syncs the content, then places rows by their key tags: the same order.
        let session = try StudySession(material: bank, store: store, scheduler: fsrs, calendar: .utc, now: day0.addingTimeInterval(60 * 86_400))
        #expect(try store.contentFingerprint(source: "bank/b") == bank.fingerprint)
        #expect(session.plan.reviews.map(\.key.item) == ["q2", "q3", "q1"])
    }

    @Test("load balancing moves a due day inside Anki's fuzz range to the least busy day")
    func loadBalancing() {
        #expect(LoadBalancer.range(forDays: 2) == 2...2)
        #expect(LoadBalancer.range(forDays: 10) == 8...12)
        #expect(LoadBalancer.range(forDays: 100) == 93...107)
        let load = [8: 5, 9: 3, 10: 9, 11: 1, 12: 1]
        #expect(LoadBalancer.pick(days: 10) { load[$0] ?? 0 } == 11)
        #expect(LoadBalancer.pick(days: 2) { _ in 0 } == 2)
    }

    @Test("the balancer's range is Anki's fuzz range as the engine writes it, for every interval from 1 day to 100 years")
    func balancerUsesTheEngineFuzzRange() {
        // The formula the balancer carried before it asked FSRSFuzz.
        func written(_ days: Int) -> ClosedRange<Int> {
            guard days >= 3 else { return days...days }
            let d = Double(days)
            let delta = 1.0 + 0.15 * (min(d, 7) - 2.5) + 0.1 * max(0, min(d, 20) - 7) + 0.05 * max(0, d - 20)
            let low = max(2, Int((d - delta).rounded()))
            return low...max(low, Int((d + delta).rounded()))
        }
        let differing = (1...36_500).filter { LoadBalancer.range(forDays: $0) != written($0) }
        #expect(differing.isEmpty)
    }

    @Test("load balancing spreads items answered alike over the days of their fuzz range")
    func loadBalancingSpreads() throws {
        let scratch = try Scratch()
        let store = try ProgressStore(path: scratch.url("p.sqlite"))
        let sm2 = AnyScheduler.standard(.sm2, calendar: .utc, fuzz: false)
        // 30 items, each answered 5, 5, 5: SM-2 gives every one of them the same third interval.
        var days: [Int] = []
        var unbalanced: Set<Int> = []
        var random = SplitMix64(seed: 1)
        for n in 0..<30 {
            let key = ItemKey(source: "bank/b", item: "q\(n)")
            var at = day0
            for _ in 0..<2 {
                let record = try store.record(key, answer: .grade(5), at: at, scheduler: sm2)
                guard case .date(let due) = record.after.due else { return }
                at = due
            }
            let state = try #require(try store.item(key)).state
            if case .days(let d) = try sm2.review(state, answer: .grade(5), at: StudyMoment(at), random: &random).interval { unbalanced.insert(d) }
            let last = try store.record(key, answer: .grade(5), at: at, scheduler: sm2, balance: LoadBalancer(calendar: .utc))
            guard case .date(let due) = last.after.due else { return }
            days.append(LearnerCalendar.utc.days(from: at, to: due))
        }
        // Without balancing all 30 would fall on one day; balanced, they fill its range evenly.
        #expect(unbalanced.count == 1)
        #expect(Set(days) == Set(LoadBalancer.range(forDays: try #require(unbalanced.first))))
        let counts = Dictionary(grouping: days, by: { $0 }).mapValues(\.count)
        #expect(counts.values.max()! - counts.values.min()! <= 1, "\(counts)")
    }

    @Test("a damaged file, a newer schema, a folder, a missing folder: a clear error and the file untouched")
    func badDatabases() throws {
        let scratch = try Scratch()
        try scratch.write("junk.sqlite", "this is not a database, just text that fills the header and more")
        let junk = try scratch.bytes("junk.sqlite")
        #expect { try ProgressStore(path: scratch.url("junk.sqlite")) } throws: { ($0 as? ProgressError)?.code == .damagedDatabase }
        #expect(try scratch.bytes("junk.sqlite") == junk)
        // Zeros are what a file being created by another process reads as for a moment; a file
        // that stays zeros is damaged all the same, once that moment has passed.
        try Data(count: 4096).write(to: URL(fileURLWithPath: scratch.url("zeros.sqlite")))
        #expect { try ProgressStore(path: scratch.url("zeros.sqlite")) } throws: { ($0 as? ProgressError)?.code == .damagedDatabase }
        #expect(try scratch.bytes("zeros.sqlite") == [UInt8](repeating: 0, count: 4096))

        // A real database whose header was overwritten in the middle of its schema page.
        let path = scratch.url("torn.sqlite")
        let store = try ProgressStore(path: path)
        try store.record(ItemKey(source: "bank/b", item: "q1"), answer: .grade(3), at: day0, scheduler: fsrs)
        _ = store
        var bytes = try fileBytes(path)
        for i in 100..<min(bytes.count, 4000) { bytes[i] = 0xA5 }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        try? FileManager.default.removeItem(atPath: path + "-wal")
        try? FileManager.default.removeItem(atPath: path + "-shm")
        #expect { try ProgressStore(path: path) } throws: { ($0 as? ProgressError)?.code == .damagedDatabase }
        #expect(try fileBytes(path) == bytes)

        // A database from a newer schema.
        let newer = scratch.url("newer.sqlite")
        _ = try ProgressStore(path: newer)
        let queue = try DatabaseQueue(path: newer)
        try queue.write { try $0.execute(sql: "INSERT INTO grdb_migrations VALUES ('v9: from the future')") }
        try queue.close()
        let newerBytes = try fileBytes(newer)
        #expect { try ProgressStore(path: newer) } throws: { ($0 as? ProgressError)?.code == .newerSchema }
        #expect(try fileBytes(newer) == newerBytes)

        #expect { try ProgressStore(path: scratch.path) } throws: { ($0 as? ProgressError)?.code == .isFolder }
        #expect { try ProgressStore(path: scratch.url("no/such/folder/p.sqlite")) } throws: { ($0 as? ProgressError)?.code == .notWritable }
    }

    // MARK: - The learner's seed

    @Test("a database at the previous schema version gets a learner's seed, which then stays the same on every open; its progress is kept")
    func learnerSeedMigration() throws {
        let scratch = try Scratch()
        let path = scratch.url("v1.sqlite")
        // The file the previous version made: schema v1 only, with one item learned.
        let key = ItemKey(source: "bank/b", item: "q1")
        let learned = ItemProgress(
            key: key, state: fsrs.newState(at: StudyMoment(day0)), due: .date(day0.addingTimeInterval(86_400)), introduced: day0, lastReview: day0,
            reviews: 1, lapses: 0)
        let old = try DatabasePool(path: path)
        try ProgressStore.migrator.migrate(old, upTo: "v1: items, review log, session days")
        try old.write { db in try ProgressStore.save(learned, db: db) }
        #expect(try old.read { db in try db.tableExists("learner") } == false)
        try old.close()

        let store = try ProgressStore(path: path)
        let seed = store.learnerSeed
        #expect(try store.item(key) == learned)
        #expect(try store.pool.read { db in try Int64.fetchOne(db, sql: "SELECT seed FROM learner") } == Int64(bitPattern: seed))
        for _ in 0..<3 { #expect(try ProgressStore(path: path).learnerSeed == seed) }
        #expect(try store.pool.read { db in try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations") } == ProgressStore.migrator.migrations)
    }

    @Test("each new learner draws a seed of their own")
    func learnerSeedsDiffer() throws {
        let scratch = try Scratch()
        let seeds = try (0..<8).map { try ProgressStore(path: scratch.url("p\($0).sqlite")).learnerSeed }
        #expect(Set(seeds).count == 8, "\(seeds)")
        #expect(try ProgressStore(path: scratch.url("p0.sqlite")).learnerSeed == seeds[0])
    }

    @Test("several connections creating one new database at once all open it, and the schema is made once")
    func concurrentCreation() throws {
        let scratch = try Scratch()
        // Each round a fresh file and 4 openers released together. Three races lived here: the loser
        // of the migration re-ran v1 ("table item already exists"), an opener that looked at a file
        // being created called it damaged ("no such table: grdb_migrations"), and one that read the
        // header of a file whose first page was not written yet saw zeros ("not SQLite's header").
        for round in 0..<100 {
            let path = scratch.url("race-\(round).sqlite")
            let failures = Locked<[String]>([])
            let start = DispatchSemaphore(value: 0)
            let group = DispatchGroup()
            for _ in 0..<4 {
                group.enter()
                Thread.detachNewThread {
                    start.wait()
                    do { _ = try ProgressStore(path: path) } catch { failures.append("\(error)") }
                    group.leave()
                }
            }
            for _ in 0..<4 { start.signal() }
            group.wait()
            #expect(failures.value.isEmpty, "round \(round): \(failures.value)")
            let store = try ProgressStore(path: path)
            #expect(try store.integrityCheck() == ["ok"])
            let queue = try DatabaseQueue(path: path)
            #expect(try queue.read { try String.fetchAll($0, sql: "SELECT identifier FROM grdb_migrations") } == ProgressStore.migrator.migrations)
            try queue.close()
        }
    }

    @Test("study simulate: FSRS-6 over a learner whose memory is FSRS-6 recalls about 90% at review")
    func simulation() throws {
        let result = try Simulation(scheduler: .fsrs6, cards: 1_000, days: 120, newPerDay: 10).run()
        #expect(result.introduced == 1_000)
        let retention = try #require(result.retention)
        #expect(retention > 0.85 && retention < 0.95, "\(retention)")
        let leitner = try Simulation(scheduler: .leitner, cards: 1_000, days: 120, newPerDay: 10).run()
        #expect(leitner.daily.count == 120)
        #expect(leitner.meanReviews > 0)
    }
}
