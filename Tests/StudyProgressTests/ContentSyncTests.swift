import Foundation
import GRDB
import StudyContent
import StudyEngine
import Testing
import TestSupport

@testable import StudyProgress

@Suite("Content sync and planning: places by key, one write at sync, none while planning")
struct ContentSyncTests {
    let fsrs = AnyScheduler.standard(.fsrs6, calendar: .utc, fuzz: false)

    /// A deck of `ids` as study material.
    func deck(_ ids: [String]) -> StudyMaterial {
        StudyMaterial(deck: Deck(id: "d", title: "Deck", cards: ids.map { Card(id: $0, front: "f \($0)", back: "b \($0)") }))
    }

    /// Every card of `material` seen, reviewed yesterday, all due today.
    func importAllDue(_ material: StudyMaterial, into store: ProgressStore) throws {
        let yesterday = day0.addingTimeInterval(-86_400)
        try store.importItems(material.items.enumerated().map { index, item in
            let state = FSRSState(phase: .review, step: nil, stability: 1 + Double(index), difficulty: 5, lastReview: yesterday, due: yesterday)
            return ItemProgress(key: item.key, state: CardState(.fsrs6, state), due: .date(yesterday), introduced: yesterday, lastReview: yesterday, reviews: 1, lapses: 0)
        })
    }

    // MARK: - Planning only reads

    @Test("planning writes nothing: the file's data_version and its bytes are the same after a plan")
    func planWritesNothing() throws {
        let scratch = try Scratch()
        let path = scratch.url("p.sqlite")
        let store = try ProgressStore(path: path)
        let bank = try material(count: 40, in: scratch)
        // Some seen, some new, a synced content row: every branch of the plan runs.
        let session = try StudySession(material: bank, store: store, scheduler: fsrs, calendar: .utc, limits: SessionLimits(newPerDay: 5), now: day0)
        while session.next != nil { try session.answer(.multipleChoice(.rightFirstTry), at: day0) }
        let observer = try DatabaseQueue(path: path)
        let version = try observer.read { db in try Int.fetchOne(db, sql: "PRAGMA data_version") }
        let bytes = try fileBytes(path)
        let wal = try? fileBytes(path + "-wal")
        let later = day0.addingTimeInterval(3 * 86_400)
        let first = try StudySession.plan(material: bank, store: store, scheduler: fsrs, calendar: .utc, limits: SessionLimits(newPerDay: 5), now: later)
        let second = try StudySession.plan(material: bank, store: store, scheduler: fsrs, calendar: .utc, limits: SessionLimits(newPerDay: 5), now: later)
        #expect(first.queuePositions == second.queuePositions)
        #expect(!first.newPositions.isEmpty && !first.reviewPositions.isEmpty)
        #expect(try observer.read { db in try Int.fetchOne(db, sql: "PRAGMA data_version") } == version)
        #expect(try fileBytes(path) == bytes)
        #expect((try? fileBytes(path + "-wal")) == wal)
    }

    // MARK: - Places after a content update

    @Test("after a content update every due item is shown at its new place, in the order the old place rewrite gave")
    func placesAfterUpdate() throws {
        let scratch = try Scratch()
        let store = try ProgressStore(path: scratch.url("p.sqlite"))
        let before = deck((1...50).map { "w\($0)" })
        try importAllDue(before, into: store)
        let limits = SessionLimits(newPerDay: 0, reviewsPerDay: 1_000)
        let old = try StudySession(material: before, store: store, scheduler: fsrs, calendar: .utc, limits: limits, now: day0)
        #expect(old.plan.reviews.count == 50)
        // Two cards added at the top, w7 and w30 removed: every other card moves.
        let after = deck(["n1", "n2"] + (1...50).filter { $0 != 7 && $0 != 30 }.map { "w\($0)" })
        let new = try StudySession(material: after, store: store, scheduler: fsrs, calendar: .utc, limits: limits, now: day0)
        // What the old sync gave: each item at `after.position(of:)`, removed ones left out.
        let expected = old.plan.reviews.map(\.key).compactMap { after.position(of: $0) }
        #expect(new.plan.reviewPositions == expected)
        #expect(new.plan.reviews.map(\.key) == expected.map { after.items[$0].key })
        #expect(!new.plan.reviews.contains { $0.key.item == "w7" || $0.key.item == "w30" })
        // The removed ones are orphans, kept; back in the content they are live again.
        let items = try store.items(source: "deck/d")
        #expect(items.values.filter(\.orphan).map(\.key.item).sorted() == ["w30", "w7"])
        let restored = try StudySession(material: before, store: store, scheduler: fsrs, calendar: .utc, limits: limits, now: day0)
        #expect(restored.plan.reviews.map(\.key) == old.plan.reviews.map(\.key))
        #expect(try store.items(source: "deck/d").values.filter(\.orphan).isEmpty)
    }

    @Test("rows written by an older version (a place, or NULL, in the position column) are placed by their key")
    func legacyPlaces() throws {
        let scratch = try Scratch()
        let path = scratch.url("p.sqlite")
        let store = try ProgressStore(path: path)
        let material = deck((1...20).map { "w\($0)" })
        try importAllDue(material, into: store)
        let limits = SessionLimits(newPerDay: 0, reviewsPerDay: 1_000)
        let expected = try StudySession(material: material, store: store, scheduler: fsrs, calendar: .utc, limits: limits, now: day0).plan.reviewPositions
        // An older version kept places in the rows, stale after its last content update, and
        // wrote the fingerprint without a prefix.
        let queue = try DatabaseQueue(path: path)
        try queue.write { db in
            try db.execute(sql: "UPDATE item SET position = CASE WHEN item = 'w3' THEN NULL ELSE 19 - (reviews + length(item)) % 7 END")
            try db.execute(sql: "UPDATE content SET fingerprint = ?", arguments: [material.fingerprint])
        }
        try queue.close()
        let plan = try StudySession(material: material, store: store, scheduler: fsrs, calendar: .utc, limits: limits, now: day0).plan
        #expect(plan.reviewPositions == expected)
        #expect(try store.contentFingerprint(source: "deck/d") == material.fingerprint)
    }

    @Test("the new-item frontier: set by the sync at the first unseen place, moved on by answers, moved back by an undo")
    func frontier() throws {
        let scratch = try Scratch()
        let store = try ProgressStore(path: scratch.url("p.sqlite"))
        let material = deck((1...10).map { "w\($0)" })
        try importAllDue(deck((1...4).map { "w\($0)" } + ["w6"]), into: store)
        let session = try StudySession(material: material, store: store, scheduler: fsrs, calendar: .utc, limits: SessionLimits(newPerDay: 2, reviewsPerDay: 0), now: day0)
        #expect(try store.newFrontier(source: "deck/d", fingerprint: material.fingerprint) == 4)
        #expect(session.plan.new.map(\.key.item) == ["w5", "w7"])
        try session.answer(.grade(3), at: day0)
        // w5 answered at the frontier; w6 was seen already, so the next unseen is w7, but the
        // frontier only promises a lower bound.
        #expect(try store.newFrontier(source: "deck/d", fingerprint: material.fingerprint) == 5)
        try session.undo()
        #expect(try store.newFrontier(source: "deck/d", fingerprint: material.fingerprint) == 4)
    }
}

/// The tag a row stores and the place hint it carries: right while the content has not moved the
/// item, never wrong when it has.
@Suite("Position index: tags with a place hint")
struct PositionIndexTests {
    static func keys(_ ids: [String]) -> [ItemKey] { ids.map { ItemKey(source: "bank/b", item: $0) } }

    @Test("a tag finds its item with the hint, without it, and after the item moved")
    func hints() {
        let index = PositionIndex(Self.keys(["a", "b", "c", "d"]))
        let c = ItemKey(source: "bank/b", item: "c")
        #expect(PositionIndex.isTag(PositionIndex.tag(of: c, place: 2)))
        #expect(index.position(tag: PositionIndex.tag(of: c, place: 2)) == .some(.some(2)))
        #expect(index.position(tag: PositionIndex.tag(of: c)) == .some(.some(2)))
        // Written when c was first; the content has moved it: the hint is ignored.
        #expect(index.position(tag: PositionIndex.tag(of: c, place: 0)) == .some(.some(2)))
        #expect(index.position(tag: PositionIndex.tag(of: c, place: 99)) == .some(.some(2)))
        // A key the content no longer has, whatever its hint says.
        let gone = ItemKey(source: "bank/b", item: "z")
        #expect(index.position(tag: PositionIndex.tag(of: gone, place: 1)) == .some(nil))
        // The same tags in a content that moved every item one place on.
        let moved = PositionIndex(Self.keys(["new", "a", "b", "c", "d"]))
        #expect(moved.position(tag: PositionIndex.tag(of: c, place: 2)) == .some(.some(3)))
    }

    @Test("a key that appears twice is placed at its first item, hinted or not")
    func duplicates() {
        let index = PositionIndex(Self.keys(["a", "b", "a"]))
        let a = ItemKey(source: "bank/b", item: "a")
        #expect(index.position(tag: PositionIndex.tag(of: a, place: 2)) == .some(.some(0)))
        #expect(index.position(tag: PositionIndex.tag(of: a, place: 0)) == .some(.some(0)))
    }
}
