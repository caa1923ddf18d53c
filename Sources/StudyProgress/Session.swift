import Foundation
import StudyEngine

/// Daily limits of a session.
public struct SessionLimits: Sendable, Hashable {
    /// New items a day. Counted per learner date from the log, so days missed never add up.
    public var newPerDay: Int
    /// Reviews a day (the cap; the most overdue come first).
    public var reviewsPerDay: Int

    /// Limits; 10 new and 200 reviews a day by default.
    public init(newPerDay: Int = 10, reviewsPerDay: Int = 200) {
        self.newPerDay = newPerDay
        self.reviewsPerDay = reviewsPerDay
    }
}

/// Today's queue: the review round first, then new items in study order.
///
/// It holds positions in the material's ``StudyMaterial/items``, not copies of the items: a day
/// of 30,000 reviews is 30,000 integers.
public struct SessionPlan: Sendable {
    /// The material's items the positions index.
    public let items: [StudyMaterial.Item]
    /// Positions of the due reviews in the order shown: most overdue first, or lowest predicted
    /// recall for FSRS.
    public var reviewPositions: [Int]
    /// Positions of the new items, in the material's order, up to what the daily limit has left.
    public var newPositions: [Int]
    /// Due reviews over the daily cap, left for tomorrow.
    public var reviewsOverCap: Int
    /// Items skipped because a sibling (the same card, the other way) was studied today.
    public var buriedSiblings: Int
    /// New items already introduced today.
    public var newToday: Int
    /// Reviews already answered today.
    public var reviewsToday: Int

    /// Due reviews in the order shown.
    public var reviews: [StudyMaterial.Item] { reviewPositions.map { items[$0] } }
    /// New items in the material's order.
    public var new: [StudyMaterial.Item] { newPositions.map { items[$0] } }
    /// Positions of the reviews, then the new items.
    public var queuePositions: [Int] { reviewPositions + newPositions }
}

/// Plans and runs one day's session of a deck or bank: today's queue, the answers recorded one
/// transaction each, learning steps shown again in the same session, undo, and the Leitner
/// session-day counter advanced when the day's queue is done.
public final class StudySession {
    /// What is studied.
    public let material: StudyMaterial
    /// Where progress is kept.
    public let store: ProgressStore
    /// The scheduler for items this deck or bank has not seen; seen items keep their own.
    public let scheduler: AnyScheduler
    /// Whole days in the learner's time zone.
    public let calendar: LearnerCalendar
    /// Daily limits.
    public let limits: SessionLimits
    /// The plan made when the session started.
    public let plan: SessionPlan
    /// The Leitner session day this session counts as (1 on the first day).
    public let sessionDay: Int
    /// Positions (in the material's items) of what is still to show, in order.
    public private(set) var pending: [Int]
    /// The items still to show, in order.
    public var queue: [StudyMaterial.Item] { pending.map { material.items[$0] } }
    /// The answers of this session, in order (an undone one is removed).
    public private(set) var answered: [ReviewRecord] = []
    private let balancer: LoadBalancer?
    private var repeats: [ItemKey: Int] = [:]

    /// The most times a learning item comes back within one session.
    public static let maximumRepeats = 4

    /// Starts today's session: if the content changed since the last session, marks items no
    /// longer in it as orphans (and those back in it as live); then plans.
    public init(
        material: StudyMaterial, store: ProgressStore, scheduler: AnyScheduler, calendar: LearnerCalendar,
        limits: SessionLimits = SessionLimits(), balanceLoad: Bool = true, now: Date
    ) throws(ProgressError) {
        self.material = material
        self.store = store
        self.scheduler = scheduler
        self.calendar = calendar
        self.limits = limits
        balancer = balanceLoad ? LoadBalancer(calendar: calendar) : nil
        try store.syncContent(source: material.source, fingerprint: material.fingerprint, places: material.index)
        let counter = try store.sessionDay(source: material.source)
        sessionDay = counter.day
        plan = try Self.plan(material: material, store: store, scheduler: scheduler, calendar: calendar, limits: limits, sessionDay: counter.day, now: now)
        pending = plan.queuePositions
        // Nothing due and nothing new: the day's session is done as soon as it starts.
        if pending.isEmpty { try store.completeSessionDay(source: material.source, on: calendar.dateString(now)) }
    }

    /// Today's queue for `material` at `now`. It only reads: the content sync and the answers
    /// keep the new-item frontier, so planning twice gives the same plan and writes nothing.
    public static func plan(
        material: StudyMaterial, store: ProgressStore, scheduler: AnyScheduler, calendar: LearnerCalendar,
        limits: SessionLimits, sessionDay: Int? = nil, now: Date
    ) throws(ProgressError) -> SessionPlan {
        let source = material.source
        let today = calendar.startOfDay(now)
        let tomorrow = calendar.adding(days: 1, to: today)

        // What today already holds: new items introduced, reviews answered, items touched.
        var newToday = 0
        var reviewsToday = 0
        var touchedToday = Set<String>()
        for record in try store.reviews(source: source, since: today) {
            if record.before == nil { newToday += 1 } else { reviewsToday += 1 }
            touchedToday.insert(record.key.item)
        }

        // The review round: each due row placed in the content by its key's bytes. Orphans and items
        // of other content are left out.
        let rows = try store.dueColumns(source: source, before: tomorrow, sessionDay: sessionDay, places: material.index)
        // (position, the row's index), in the order shown.
        var due: [(position: Int, index: Int)] = []
        due.reserveCapacity(rows.count)
        for index in 0..<rows.count { due.append((rows.position[index], index)) }
        if scheduler.reviewOrder == .lowestPredictedRecall {
            // R = (1 + f·t/S)^(−d) falls as t/S grows, with the same f and d for every item:
            // lowest predicted recall first is largest elapsed time over stability first (items in
            // learning, without a stability, before all), ties in content order. The sort key is
            // the ratio's bit pattern, inverted (a non-negative Double orders as its bits do).
            let seconds = now.timeIntervalSince1970
            var order: [(key: UInt64, position: Int, index: Int)] = []
            order.reserveCapacity(due.count)
            for entry in due {
                let last = rows.lastReview[entry.index]
                let stability = rows.stability[entry.index]
                let elapsed = max(0, seconds - (last.isNaN ? seconds : last)) / 86_400
                let ratio = stability.isNaN ? Double.infinity : elapsed / max(stability, 0.001)
                order.append((~ratio.bitPattern, entry.position, entry.index))
            }
            order.sort { ($0.key, $0.position) < ($1.key, $1.position) }
            due = order.map { ($0.position, $0.index) }
        }
        var buried = 0
        var shown = Set<String>()
        var reviews: [Int] = []
        var overCap = 0
        let reviewRoom = max(0, limits.reviewsPerDay - reviewsToday)
        // Siblings exist only in a deck studied both ways.
        let siblings = material.hasSiblings
        reviews.reserveCapacity(min(due.count, reviewRoom))
        for (position, index) in due {
            // A sibling answered today, or already in today's round, waits for tomorrow.
            if siblings {
                let item = material.items[position].key.item
                let answeredItself = rows.lastReview[index] >= today.timeIntervalSince1970
                if shown.contains(item) || (touchedToday.contains(item) && !answeredItself) {
                    buried += 1
                    continue
                }
                shown.insert(item)
            }
            guard reviews.count < reviewRoom else {
                overCap += 1
                continue
            }
            reviews.append(position)
        }

        // New items in study order, up to what today's limit has left.
        var new: [Int] = []
        let newRoom = max(0, limits.newPerDay - newToday)
        if newRoom > 0 {
            // Items before the frontier have all been seen; from it, look each one up until the
            // day's new items are found (siblings of today's items are skipped, not counted).
            let frontier = min(try store.newFrontier(source: source, fingerprint: material.fingerprint), material.items.count)
            // Far from the end, one read of every seen item's place beats a lookup per item.
            let held = material.items.count - frontier > 512 ? try store.seenPlaces(source: source, places: material.index, count: material.items.count) : nil
            var start = frontier
            while new.count < newRoom, start < material.items.count {
                let window = material.items[start..<min(start + 256, material.items.count)]
                let unseen: [Int]
                if let held {
                    unseen = window.indices.filter { !held[$0] }.map { $0 - start }
                } else {
                    unseen = try store.unseen(window.lazy.map(\.key), limit: window.count)
                }
                for offset in unseen {
                    let position = start + offset
                    let item = material.items[position]
                    guard new.count < newRoom else { break }
                    if shown.contains(item.key.item) || touchedToday.contains(item.key.item) {
                        buried += 1
                        continue
                    }
                    new.append(position)
                    shown.insert(item.key.item)
                }
                start = window.endIndex
            }
        }
        return SessionPlan(
            items: material.items, reviewPositions: reviews, newPositions: new, reviewsOverCap: overCap, buriedSiblings: buried, newToday: newToday,
            reviewsToday: reviewsToday)
    }

    /// The next item to show, if any.
    public var next: StudyMaterial.Item? { pending.first.map { material.items[$0] } }

    /// Records `answer` to the first item of the queue (one transaction) and moves on. A learning
    /// item due again today comes back at the end of the queue (at most ``maximumRepeats`` times).
    @discardableResult
    public func answer(_ answer: Answer, duration: TimeInterval = 0, at moment: Date) throws(ProgressError) -> ReviewRecord {
        try self.answer(duration: duration, at: moment) { _ in answer }
    }

    /// Records the answer `makeAnswer` gives for the scheduler of the first item of the queue.
    private func answer(duration: TimeInterval, at moment: Date, _ makeAnswer: (AnyScheduler) -> Answer) throws(ProgressError) -> ReviewRecord {
        guard let position = pending.first else {
            throw ProgressError(.invalidAnswer, "the session has no item left to answer", at: .file(store.path))
        }
        let item = material.items[position]
        // The item's row is read once, inside the answer's transaction.
        let record = try store.record(
            item.key, at: moment, duration: duration, sessionDay: sessionDay, balance: balancer, position: position,
            scheduler: scheduler(forState:), answer: { makeAnswer($0) })
        pending.removeFirst()
        answered.append(record)
        if case .date(let due) = record.after.due, due < calendar.adding(days: 1, to: calendar.startOfDay(moment)),
            repeats[item.key, default: 0] < Self.maximumRepeats
        {
            repeats[item.key, default: 0] += 1
            pending.append(position)
        }
        if pending.isEmpty {
            try store.completeSessionDay(source: material.source, on: calendar.dateString(moment))
        }
        return record
    }

    /// Records a self-graded card's button (Again, Hard, Good, Easy) as the answer the item's
    /// scheduler makes of it (`ReviewScheduler/answer(forCardGrade:)`), and moves on
    /// as ``answer(_:duration:at:)`` does. The item's row is read once, in the answer's transaction.
    @discardableResult
    public func answer(cardGrade grade: CardGrade, duration: TimeInterval = 0, at moment: Date) throws(ProgressError) -> ReviewRecord {
        try answer(duration: duration, at: moment) { $0.answer(forCardGrade: grade) }
    }

    /// Takes back this session's last answer: the item's progress is exactly what it was, and the
    /// item is first in the queue again.
    @discardableResult
    public func undo() throws(ProgressError) -> StudyMaterial.Item {
        guard let last = answered.last, let position = material.positions[last.key] else {
            throw ProgressError(.nothingToUndo, "no answer in this session to take back", at: .file(store.path))
        }
        let item = material.items[position]
        try store.undo(last) { material.position(of: $0) }
        answered.removeLast()
        if let index = pending.lastIndex(of: position), repeats[item.key, default: 0] > 0 {
            pending.remove(at: index)
            repeats[item.key, default: 0] -= 1
        }
        pending.insert(position, at: 0)
        return item
    }

    /// Replaces today's queue with one item, due or not (a learner practising a question again):
    /// throws ``ProgressError/Code/unknownItem`` for an id the material does not have.
    public func focus(on item: String, direction: String = "") throws(ProgressError) {
        let key = ItemKey(source: material.source, item: item, direction: direction)
        guard let position = material.position(of: key) else {
            throw ProgressError(.unknownItem, "no item with this id in \(material.source)", at: .file(store.path, item: key.description))
        }
        pending = [position]
    }

    /// The scheduler for an item: the one that wrote its state (progress made with another
    /// scheduler keeps it), or the session's for a new item.
    public func scheduler(for key: ItemKey) throws(ProgressError) -> AnyScheduler {
        scheduler(forState: try store.item(key)?.state)
    }

    /// The scheduler for an item in `state` (`nil`: a new item).
    func scheduler(forState state: CardState?) -> AnyScheduler {
        guard let state, state.kind != scheduler.kind else { return scheduler }
        return AnyScheduler.standard(state.kind, calendar: calendar, fuzz: false)
    }
}
