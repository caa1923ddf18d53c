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
public struct SessionPlan: Sendable {
    /// Due reviews in the order shown: most overdue first, or lowest predicted recall for FSRS.
    public var reviews: [StudyMaterial.Item]
    /// New items, in the material's order, up to what the daily limit has left.
    public var new: [StudyMaterial.Item]
    /// Due reviews over the daily cap, left for tomorrow.
    public var reviewsOverCap: Int
    /// Items skipped because a sibling (the same card, the other way) was studied today.
    public var buriedSiblings: Int
    /// New items already introduced today.
    public var newToday: Int
    /// Reviews already answered today.
    public var reviewsToday: Int

    /// Reviews, then new items.
    public var queue: [StudyMaterial.Item] { reviews + new }
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
    /// The items still to show, in order.
    public private(set) var queue: [StudyMaterial.Item]
    /// The answers of this session, in order (an undone one is removed).
    public private(set) var answered: [ReviewRecord] = []
    private let balancer: LoadBalancer?
    private var repeats: [ItemKey: Int] = [:]

    /// The most times a learning item comes back within one session.
    public static let maximumRepeats = 4

    /// Starts today's session: marks items no longer in the content as orphans, then plans.
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
        try store.markOrphans(source: material.source, present: Set(material.positions.keys))
        let counter = try store.sessionDay(source: material.source)
        sessionDay = counter.day
        plan = try Self.plan(material: material, store: store, scheduler: scheduler, calendar: calendar, limits: limits, sessionDay: counter.day, now: now)
        queue = plan.queue
        // Nothing due and nothing new: the day's session is done as soon as it starts.
        if queue.isEmpty { try store.completeSessionDay(source: material.source, on: calendar.dateString(now)) }
    }

    /// Today's queue for `material` at `now`.
    public static func plan(
        material: StudyMaterial, store: ProgressStore, scheduler: AnyScheduler, calendar: LearnerCalendar,
        limits: SessionLimits, sessionDay: Int? = nil, now: Date
    ) throws(ProgressError) -> SessionPlan {
        let source = material.source
        let today = calendar.startOfDay(now)
        let tomorrow = calendar.adding(days: 1, to: today)
        let positions = material.positions

        // What today already holds: new items introduced, reviews answered, items touched.
        var newToday = 0
        var reviewsToday = 0
        var touchedToday = Set<String>()
        for record in try store.reviews(source: source, since: today) {
            if record.before == nil { newToday += 1 } else { reviewsToday += 1 }
            touchedToday.insert(record.key.item)
        }

        // The review round.
        var due = try store.dueItems(source: source, before: tomorrow, sessionDay: sessionDay).filter { positions[$0.key] != nil }
        if scheduler.kind == .fsrs6 || scheduler.kind == .fsrs5 {
            // FSRS's R = (1 + f·t/S)^(−d) falls as t/S grows, with the same f and d for every item:
            // lowest predicted recall first is largest elapsed time over stability first (items in
            // learning, without a stability, before all), ties in content order.
            let ranked = due.map { item -> (Double, Int, DueItem) in
                let ratio = item.stability.map { s in now.timeIntervalSince(item.lastReview ?? now) / 86_400 / max(s, 0.001) } ?? .infinity
                return (ratio, positions[item.key] ?? 0, item)
            }
            due = ranked.sorted { ($0.0, -$0.1) > ($1.0, -$1.1) }.map(\.2)
        }
        var buried = 0
        var shown = Set<String>()
        var reviews: [StudyMaterial.Item] = []
        var overCap = 0
        let reviewRoom = max(0, limits.reviewsPerDay - reviewsToday)
        for item in due {
            guard let position = positions[item.key] else { continue }
            let studyItem = material.items[position]
            // A sibling answered today, or already in today's round, waits for tomorrow.
            if shown.contains(item.key.item) || (touchedToday.contains(item.key.item) && !answeredToday(item, today: today)) {
                buried += 1
                continue
            }
            guard reviews.count < reviewRoom else {
                overCap += 1
                continue
            }
            reviews.append(studyItem)
            shown.insert(item.key.item)
        }

        // New items in study order, up to what today's limit has left.
        var new: [StudyMaterial.Item] = []
        let newRoom = max(0, limits.newPerDay - newToday)
        if newRoom > 0 {
            let known = try store.knownKeys(source: source)
            for item in material.items where !known.contains(item.key) {
                guard new.count < newRoom else { break }
                if shown.contains(item.key.item) || touchedToday.contains(item.key.item) {
                    buried += 1
                    continue
                }
                new.append(item)
                shown.insert(item.key.item)
            }
        }
        return SessionPlan(
            reviews: reviews, new: new, reviewsOverCap: overCap, buriedSiblings: buried, newToday: newToday,
            reviewsToday: reviewsToday)
    }

    /// Whether a due item was itself the one answered today (a learning step due again today),
    /// as opposed to its sibling.
    private static func answeredToday(_ item: DueItem, today: Date) -> Bool {
        guard let last = item.lastReview else { return false }
        return last >= today
    }

    /// The next item to show, if any.
    public var next: StudyMaterial.Item? { queue.first }

    /// Records `answer` to the first item of the queue (one transaction) and moves on. A learning
    /// item due again today comes back at the end of the queue (at most ``maximumRepeats`` times).
    @discardableResult
    public func answer(_ answer: Answer, duration: TimeInterval = 0, at moment: Date) throws(ProgressError) -> ReviewRecord {
        guard let item = queue.first else {
            throw ProgressError(.invalidAnswer, path: store.path, "the session has no item left to answer")
        }
        let scheduler = try self.scheduler(for: item.key)
        let record = try store.record(
            item.key, answer: answer, at: moment, duration: duration, scheduler: scheduler,
            sessionDay: sessionDay, balance: balancer)
        queue.removeFirst()
        answered.append(record)
        if case .date(let due) = record.after.due, due < calendar.adding(days: 1, to: calendar.startOfDay(moment)),
            repeats[item.key, default: 0] < Self.maximumRepeats
        {
            repeats[item.key, default: 0] += 1
            queue.append(item)
        }
        if queue.isEmpty {
            try store.completeSessionDay(source: material.source, on: calendar.dateString(moment))
        }
        return record
    }

    /// Takes back this session's last answer: the item's progress is exactly what it was, and the
    /// item is first in the queue again.
    @discardableResult
    public func undo() throws(ProgressError) -> StudyMaterial.Item {
        guard let last = answered.last, let position = material.positions[last.key] else {
            throw ProgressError(.nothingToUndo, path: store.path, "no answer in this session to take back")
        }
        let item = material.items[position]
        try store.undoLast(source: material.source)
        answered.removeLast()
        if let index = queue.lastIndex(of: item), repeats[item.key, default: 0] > 0 {
            queue.remove(at: index)
            repeats[item.key, default: 0] -= 1
        }
        queue.insert(item, at: 0)
        return item
    }

    /// The scheduler for an item: the one that wrote its state (progress made with another
    /// scheduler keeps it), or the session's for a new item.
    public func scheduler(for key: ItemKey) throws(ProgressError) -> AnyScheduler {
        guard let progress = try store.item(key), progress.state.kind != scheduler.kind else { return scheduler }
        return AnyScheduler.standard(progress.state.kind, calendar: calendar, fuzz: false)
    }
}
