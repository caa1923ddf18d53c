import Foundation
import StudyEngine
import Testing

@Suite("Calendar days in the learner's time zone")
struct CalendarTests {
    let vancouver = LearnerCalendar.local(TimeZone(identifier: "America/Vancouver") ?? .current)

    @Test("a 1-day interval across the spring-forward night keeps 09:00 local (23 hours later)")
    func springForward() throws {
        // 2026-03-08 02:00 PST → PDT in Vancouver.
        let saturday = utc("2026-03-07T17:00:00Z")  // 09:00 PST
        let sunday = vancouver.adding(days: 1, to: saturday)
        #expect(sunday == utc("2026-03-08T16:00:00Z"))  // 09:00 PDT
        #expect(sunday.timeIntervalSince(saturday) == 23 * 3_600)
        #expect(vancouver.days(from: saturday, to: sunday) == 1)
    }

    @Test("a 1-day interval across the fall-back night keeps 09:00 local (25 hours later)")
    func fallBack() {
        let saturday = utc("2026-10-31T16:00:00Z")  // 09:00 PDT
        let sunday = vancouver.adding(days: 1, to: saturday)
        #expect(sunday == utc("2026-11-01T17:00:00Z"))  // 09:00 PST
        #expect(vancouver.days(from: saturday, to: sunday) == 1)
    }

    @Test("days are counted by local date: 23:30 to 00:30 next day is 1 day, 00:30 to 23:30 is 0")
    func localDates() {
        let lateEvening = utc("2026-06-02T06:30:00Z")  // 23:30 PDT on June 1
        #expect(vancouver.days(from: lateEvening, to: lateEvening.plus(minutes: 60)) == 1)
        let earlyMorning = utc("2026-06-02T07:30:00Z")  // 00:30 PDT on June 2
        #expect(vancouver.days(from: earlyMorning, to: earlyMorning.plus(minutes: 23 * 60)) == 0)
        #expect(LearnerCalendar.elapsed24Hours.days(from: lateEvening, to: lateEvening.plus(minutes: 60)) == 0)
    }

    @Test("FSRS in Vancouver: a card due the day after the spring-forward night is due at 09:00 local and counts as a day later")
    func fsrsAcrossDST() throws {
        let fsrs = FSRSScheduler.fsrs6(calendar: vancouver, fuzz: false)
        let saturday = utc("2026-03-07T17:00:00Z")
        let card = FSRSState(phase: .review, step: nil, stability: 0.5, difficulty: 5, lastReview: saturday.plus(minutes: -10), due: saturday)
        let result = try fsrs.review(card, answer: .grade(3), at: StudyMoment(saturday))
        #expect(result.interval == .days(1))
        #expect(result.due == .date(utc("2026-03-08T16:00:00Z")))
        // Reviewed when due (23 h later) it is a next-day review, not a same-day one.
        let next = try fsrs.review(result.state, answer: .grade(3), at: StudyMoment(utc("2026-03-08T16:00:00Z")))
        let sameDay = try fsrs.review(result.state, answer: .grade(3), at: StudyMoment(saturday.plus(minutes: 60)))
        #expect(next.state.stability != sameDay.state.stability)
        #expect(fsrs.retrievability(result.state, at: utc("2026-03-08T16:00:00Z")) < 1)
    }

    @Test("SM-2 in Vancouver: every interval lands at the same local time, whatever the DST changes")
    func sm2AcrossDST() throws {
        let sm2 = SM2Scheduler(calendar: vancouver)
        var now = utc("2026-01-05T17:00:00Z")  // 09:00 PST
        var state = sm2.newState(at: StudyMoment(now))
        var localHours: Set<Int> = []
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "America/Vancouver") ?? .current
        for _ in 0..<6 {
            let result = try sm2.review(state, answer: .grade(5), at: StudyMoment(now))
            state = result.state
            now = state.due
            localHours.insert(calendar.component(.hour, from: now))
        }
        #expect(localHours == [9])
    }
}

// MARK: - The fast paths are Foundation's answers

extension CalendarTests {
    /// Foundation's Gregorian calendar in `zone`, the reference.
    static func foundation(_ zone: TimeZone) -> Calendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        return calendar
    }

    @Test("adding days and the start of a day are Foundation's, bit for bit, in every time zone at random instants (1970–2100, milliseconds)")
    func fastPathsEverywhere() {
        var random = SplitMix64(seed: 2026)
        var compared = 0
        for name in TimeZone.knownTimeZoneIdentifiers {
            guard let zone = TimeZone(identifier: name) else { continue }
            let calendar = LearnerCalendar.local(zone)
            let reference = Self.foundation(zone)
            for _ in 0..<40 {
                let date = Date(timeIntervalSince1970: Double(random.next() % 4_102_444_800_000) / 1000)
                let days = [Int(random.next() % 7) - 3, Int(random.next() % 801) - 400, Int(random.next() % 36_500)][Int(random.next() % 3)]
                #expect(calendar.adding(days: days, to: date) == reference.date(byAdding: .day, value: days, to: date), "\(name) \(date) + \(days)")
                #expect(calendar.startOfDay(date) == reference.startOfDay(for: date), "\(name) \(date)")
                compared += 1
            }
        }
        #expect(compared > 10_000)
    }

    @Test(
        "adding days and the start of a day are Foundation's from instants around every transition: DST, half-hour DST, midnight DST, date-line jumps",
        arguments: ["Europe/Berlin", "America/Vancouver", "Australia/Lord_Howe", "America/Santiago", "Pacific/Apia", "Pacific/Kiritimati"])
    func fastPathsAroundTransitions(_ name: String) throws {
        let zone = try #require(TimeZone(identifier: name))
        let calendar = LearnerCalendar.local(zone)
        let reference = Self.foundation(zone)
        var point = Date(timeIntervalSince1970: 0)
        var transitions = 0
        while let next = zone.nextDaylightSavingTimeTransition(after: point), next.timeIntervalSince1970 < 2_524_608_000 {
            point = next
            transitions += 1
            for delta in stride(from: -9_000.0, through: 9_000.0, by: 1_800.0) {
                let date = next.addingTimeInterval(delta + 0.125)
                #expect(calendar.startOfDay(date) == reference.startOfDay(for: date), "\(name) \(date)")
                for days in [1, 7, 30, 365, -1] {
                    #expect(calendar.adding(days: days, to: date) == reference.date(byAdding: .day, value: days, to: date), "\(name) \(date) + \(days)")
                }
            }
        }
        #expect(transitions > 0)
    }
}
