import Foundation
import StudyEngine

// Replay: what each event does to an item's progress. One pure function, used both when a
// device records an answer and when a merged log is replayed, so the two can never differ.

/// An event as the log holds it locally: the event, its arrival number, and whether an undo
/// cancelled it.
package struct LoggedEvent: Sendable, Hashable {
    /// The event.
    package var event: ProgressEvent
    /// Its arrival number in this file's log (the order it arrived here in).
    package var seq: Int64
    /// An undo of the same key in the log cancels it: replay skips it.
    package var cancelled: Bool

    /// Marks the events of one key that an undo among them cancels. An undo names the event it
    /// takes back by id and carries the same key, so a key's own events say which of them count,
    /// whatever order they arrived in.
    static func markCancelled(_ events: inout [LoggedEvent]) {
        var targets = Set<EventID>()
        for logged in events where logged.event.kind == .undo {
            if let target = EventID(bytes: logged.event.payload) { targets.insert(target) }
        }
        guard !targets.isEmpty else { return }
        for index in events.indices where targets.contains(events[index].event.id) { events[index].cancelled = true }
    }
}

/// Applies events to item progress. Schedulers and calendars are made once per (kind, time zone,
/// fuzz): replaying a merged log asks for them once per answer.
struct Replayer {
    private struct SchedulerName: Hashable {
        var kind: SchedulerKind
        var zone: String
        var fuzz: Bool
    }
    private var schedulers: [SchedulerName: AnyScheduler] = [:]
    private var calendars: [String: LearnerCalendar] = [:]
    /// The scheduler and the calendar asked for last: a merge's answers mostly name the same
    /// ones, and comparing the name costs less than hashing it for the dictionary.
    private var lastScheduler: (name: SchedulerName, scheduler: AnyScheduler)?
    /// The last scheduler as the FSRS scheduler it is (`nil` for another kind): replay reviews
    /// an FSRS state with it directly, without opening the type-erased scheduler and state.
    private var lastFSRS: FSRSScheduler?
    private var lastCalendar: (zone: String, calendar: LearnerCalendar)?
    private let decoder = ProgressStore.decoder

    /// The standard scheduler `kind` on calendar days in `zone` (empty: 24-hour periods).
    mutating func scheduler(_ kind: SchedulerKind, zone: String, fuzz: Bool) -> AnyScheduler {
        let name = SchedulerName(kind: kind, zone: zone, fuzz: fuzz)
        if lastScheduler?.name == name, let last = lastScheduler { return last.scheduler }
        let made = schedulers[name] ?? AnyScheduler.standard(kind, calendar: calendar(zone: zone), fuzz: fuzz)
        schedulers[name] = made
        lastScheduler = (name, made)
        lastFSRS = made.base as? FSRSScheduler
        return made
    }

    /// Makes ``scheduler(_:zone:fuzz:)`` the last one (and `lastFSRS` its FSRS scheduler)
    /// without handing a copy of it out: replay of an FSRS item uses `lastFSRS` alone.
    private mutating func selectScheduler(_ kind: SchedulerKind, zone: String, fuzz: Bool) {
        if lastScheduler?.name == SchedulerName(kind: kind, zone: zone, fuzz: fuzz) { return }
        _ = scheduler(kind, zone: zone, fuzz: fuzz)
    }

    /// ``calendar(zone:)``, made once per zone name, confined to this replayer
    /// (``LearnerCalendar/confined()``: its offset lookups take no lock). A replayer lives inside
    /// one transaction on one thread, and its calendars and schedulers never leave it.
    mutating func calendar(zone: String) -> LearnerCalendar {
        if let last = lastCalendar, last.zone == zone { return last.calendar }
        let made = calendars[zone] ?? Self.calendar(zone: zone).confined()
        calendars[zone] = made
        lastCalendar = (zone, made)
        return made
    }

    /// Calendar days in the time zone named `zone` (UTC for a name this system does not know),
    /// or 24-hour periods for an empty name.
    static func calendar(zone: String) -> LearnerCalendar {
        if zone.isEmpty { return .elapsed24Hours }
        // Made once per process: a calendar's table of offsets fills a year at a time from
        // Foundation (1,461 lookups), and every merge used to start a new one.
        madeCalendars.lock.lock()
        defer { madeCalendars.lock.unlock() }
        if let made = madeCalendars.byZone[zone] { return made }
        let made = LearnerCalendar.local(TimeZone(identifier: zone) ?? TimeZone(secondsFromGMT: 0) ?? .current)
        madeCalendars.byZone[zone] = made
        return made
    }

    /// The calendars ``calendar(zone:)`` made, by zone name.
    private final class MadeCalendars: @unchecked Sendable {
        // @unchecked: `byZone` is read and written only under `lock`.
        let lock = NSLock()
        var byZone: [String: LearnerCalendar] = [:]
    }
    private static let madeCalendars = MadeCalendars()

    /// The name a calendar travels under: its time zone's identifier, or empty for 24-hour periods.
    static func zoneName(_ calendar: LearnerCalendar) -> String { calendar.timeZone?.identifier ?? "" }

    /// What an answer event does: the progress after it and whether it counts as recalled, or
    /// `nil` when it cannot apply (a payload this version cannot read, a scheduler it does not
    /// know, an answer the item's scheduler refuses): replay then skips it, on every device alike.
    mutating func answer(_ event: ProgressEvent, to progress: ItemProgress?) -> (after: ItemProgress, recalled: Bool)? {
        guard let payload = AnswerPayload(bytes: event.payload) else { return nil }
        let moment = event.moment
        switch payload.mode {
        case .recorded(let recalled, let after):
            guard var after = try? decoder.decode(ItemProgress.self, from: Data(after)) else { return nil }
            after.key = event.key
            after.orphan = progress?.orphan ?? false
            return (after, recalled)
        case .standard(let name, let zone, let fuzz, let balance):
            // An item keeps the scheduler that wrote its state; a new one gets the event's.
            guard let kind = progress?.state.kind ?? SchedulerKind(rawValue: name) else { return nil }
            let scheduler = scheduler(kind, zone: zone, fuzz: fuzz)
            let studyMoment = StudyMoment(moment, sessionDay: payload.sessionDay)
            let state = progress?.state ?? scheduler.newState(at: studyMoment)
            var random = SplitMix64(seed: UInt64(bitPattern: event.wall))
            guard var scheduled = try? scheduler.review(state, answer: payload.answer, at: studyMoment, random: &random) else { return nil }
            if balance != 0 {
                scheduled = LoadBalancer.move(scheduled, by: balance, at: moment, calendar: calendar(zone: zone))
            }
            let recalled = scheduler.recalled(payload.answer)
            let after = ItemProgress(
                key: event.key, state: scheduled.state, due: scheduled.due, introduced: progress?.introduced ?? moment,
                lastReview: moment, reviews: (progress?.reviews ?? 0) + 1, lapses: (progress?.lapses ?? 0) + (recalled ? 0 : 1),
                orphan: progress?.orphan ?? false)
            return (after, recalled)
        }
    }

    /// ``apply(_:to:)`` in place: a merge replays 100,000 answers, and the progress is updated
    /// where it is instead of copied into a new value for each (same result, field for field).
    mutating func apply(_ event: ProgressEvent, to progress: inout ItemProgress?) {
        withUnsafePointer(to: event) { apply($0, to: &progress) }
    }

    /// ``apply(_:to:)-(ProgressEvent,_)`` of the event at `event`: a merge's events are read in
    /// place from their buffer (passing one by value copied it, strings and payload, each time).
    mutating func apply(_ event: UnsafePointer<ProgressEvent>, to progress: inout ItemProgress?) {
        guard event.pointee.kind == .answer, progress != nil, let payload = standardAnswer(event.pointee.payload),
            var current = progress.take()
        else {
            progress = apply(event.pointee, to: progress)
            return
        }
        // As `answer(_:to:)` does for an item already seen: its own scheduler, its introduction,
        // key and orphan flag kept (the key as the event spells it).
        let wall = event.pointee.wall
        let moment = Date(timeIntervalSince1970: Double(wall) / 1000)
        let zone = payload.zone
        let fuzz = payload.fuzz
        let balance = payload.balance
        selectScheduler(current.state.kind, zone: zone, fuzz: fuzz)
        let studyMoment = StudyMoment(moment, sessionDay: payload.sessionDay)
        var random = SplitMix64(seed: UInt64(bitPattern: wall))
        let recalled: Bool
        // The FSRS scheduler copied out once (each `lastFSRS!` copied it, its arrays and calendar retained).
        if let fsrs = lastFSRS, current.state.kind == fsrs.kind, let state = current.state.value(as: FSRSState.self) {
            // What `AnyScheduler.review` and `LoadBalancer.move` do, on the FSRS state itself:
            // one type-erased state made at the end instead of one per step.
            guard var scheduled = try? fsrs.review(state, answer: payload.answer, at: studyMoment, random: &random) else {
                progress = current
                return
            }
            if balance != 0 {
                scheduled = LoadBalancer.move(scheduled, by: balance, at: moment, calendar: calendar(zone: zone)) { state, due in
                    state.rescheduled(to: due)
                }
            }
            recalled = fsrs.recalled(payload.answer)
            current.state = CardState(fsrs.kind, scheduled.state)
            current.due = scheduled.due
        } else {
            let scheduler = scheduler(current.state.kind, zone: zone, fuzz: fuzz)
            guard var scheduled = try? scheduler.review(current.state, answer: payload.answer, at: studyMoment, random: &random) else {
                progress = current
                return
            }
            if balance != 0 {
                scheduled = LoadBalancer.move(scheduled, by: balance, at: moment, calendar: calendar(zone: zone))
            }
            recalled = scheduler.recalled(payload.answer)
            current.state = scheduled.state
            current.due = scheduled.due
        }
        // Compared first: the row's key is almost always spelled as the event's, and assigning
        // retained the event's three strings and released the row's.
        if current.key != event.pointee.key { current.key = event.pointee.key }
        current.lastReview = moment
        current.reviews = current.reviews + 1
        current.lapses = current.lapses + (recalled ? 0 : 1)
        progress = current
    }

    /// The scheduler name and time zone (their UTF-8 bytes) of the last standard answer payload
    /// ``standardAnswer(_:)`` decoded, and the zone as a string. A merge's answers mostly carry
    /// the same two: equal bytes are compared in place instead of decoded again (two strings
    /// made and checked per answer).
    private var lastNames: (scheduler: [UInt8], zone: [UInt8], zoneName: String)?

    /// The fields of a standard answer payload, as ``AnswerPayload/init(bytes:)`` reads and
    /// checks them; `nil` for a recorded answer or bytes that are not a payload (replay's slow
    /// path decides what they do).
    mutating func standardAnswer(_ bytes: [UInt8]) -> (answer: Answer, sessionDay: Int?, zone: String, fuzz: Bool, balance: Int)? {
        var reader = ByteReader(bytes)
        guard let head = AnswerPayload.head(&reader), head.flags & ~1 == 0 else { return nil }
        // The names the last payload had (valid UTF-8 then, so now), then what init(bytes:) reads after them.
        if let last = lastNames, reader.blob(equals: last.scheduler) == true, reader.blob(equals: last.zone) == true,
            let fuzz = reader.byte(), let balance = reader.signed(), let days = Int(exactly: balance), days.magnitude <= 100_000,
            reader.isAtEnd
        {
            return (head.answer, head.sessionDay, last.zoneName, fuzz != 0, days)
        }
        guard let payload = AnswerPayload(bytes: bytes), case .standard(let name, let zone, let fuzz, let balance) = payload.mode else { return nil }
        lastNames = (Array(name.utf8), Array(zone.utf8), zone)
        return (payload.answer, payload.sessionDay, zone, fuzz, balance)
    }

    /// What any event does to its item's progress (`nil`: unseen). Events of other kinds, and
    /// those that cannot apply, leave it as it is.
    mutating func apply(_ event: ProgressEvent, to progress: ItemProgress?) -> ItemProgress? {
        switch event.kind {
        case .answer:
            return answer(event, to: progress)?.after ?? progress
        case .setProgress:
            guard var set = try? decoder.decode(ItemProgress.self, from: Data(event.payload)) else { return progress }
            set.key = event.key
            set.orphan = progress?.orphan ?? false
            return set
        case .reset:
            return nil
        default:
            return progress
        }
    }

    /// Replays one item's events (in log order) from unseen; with `records`, also the log's view
    /// of each answer (before, after, recalled; a cancelled one as if it had applied).
    mutating func replay(_ events: [LoggedEvent], records: ((LoggedEvent, ItemProgress?, ItemProgress, Bool) -> Void)? = nil) -> ItemProgress? {
        var progress: ItemProgress?
        for logged in events {
            if let records, logged.event.kind == .answer, let result = answer(logged.event, to: progress) {
                records(logged, progress, result.after, result.recalled)
            }
            if !logged.cancelled { progress = apply(logged.event, to: progress) }
        }
        return progress
    }
}

/// The Leitner session-day counter of a deck from its completion events, in log order: one more
/// for each new learner date.
func sessionDayCounter(from events: [LoggedEvent]) -> (day: Int, completedOn: String?)? {
    var day = 1
    var completedOn: String?
    var any = false
    for logged in events where !logged.cancelled && logged.event.kind == .sessionDayCompleted {
        let date = String(decoding: logged.event.payload, as: UTF8.self)
        any = true
        if date != completedOn {
            day += 1
            completedOn = date
        }
    }
    return any ? (day, completedOn) : nil
}
