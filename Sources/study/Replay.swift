import ArgumentParser
import Foundation
import StudyEngine

/// `study replay`: one item through a scheduler, answer by answer.
struct Replay: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show what a scheduler does with a list of answers: the state, the interval and the next due date after each.",
        discussion: """
            Answers: a grade (sm2: 0–5; fsrs6, fsrs5: 1–4 or again, hard, good, easy), right or \
            wrong (leitner, leitner-wallclock, half-life, hlr, staged), wrong:N for N wrong answers \
            in one session (staged), or a multiple-choice result mc:first, mc:retry, mc:wrong \
            (any scheduler; mapped to q 5/3/2, Good/Hard/Again, right/right/wrong).
            Without --gaps every answer is given when the item falls due, learning steps and \
            same-day repeats included. For leitner the deck does one session a day; with --gaps, \
            the whole days of a gap are completed session days.
            """)

    @Option(help: ArgumentHelp("The scheduler: \(SchedulerKind.allCases.map(\.rawValue).joined(separator: ", ")).", valueName: "name"))
    var scheduler: SchedulerKind

    @Option(help: ArgumentHelp("The answers, comma-separated (see above).", valueName: "a,b,c"))
    var answers: String

    @Option(help: ArgumentHelp("The time from each answer to the next, comma-separated, one fewer than the answers: days (2, 0.5) or a unit (10m, 4h, 3d).", valueName: "d1,d2,..."))
    var gaps: String?

    @Option(help: ArgumentHelp("When the first answer is given: YYYY-MM-DD (09:00 local) or an ISO 8601 time. Default: now.", valueName: "date"))
    var start: String?

    @Option(name: .customLong("time-zone"), help: ArgumentHelp("The learner's time zone, whose calendar days the intervals count (an IANA name).", valueName: "zone"))
    var timeZone = "UTC"

    @Option(help: "The seed of the random source (FSRS fuzz).")
    var seed: UInt64 = 1

    @Flag(name: .customLong("no-fuzz"), help: "Turn FSRS fuzz off (to compare with another implementation).")
    var noFuzz = false

    @Flag(help: "Print JSON instead of a table.")
    var json = false

    func validate() throws {
        guard let zone = TimeZone(identifier: timeZone) else {
            throw ValidationError("--time-zone: unknown time zone '\(timeZone)'")
        }
        let scheduler = AnyScheduler.standard(self.scheduler, calendar: .local(zone), fuzz: !noFuzz)
        let parsed = try Self.parseAnswers(answers)
        for (index, answer) in parsed.enumerated() {
            do {
                try scheduler.validate(answer.answer)
            } catch {
                throw ValidationError("--answers: answer \(index + 1) '\(answer.text)': \(error.detail)")
            }
        }
        if let gaps {
            let parsedGaps = try Self.parseGaps(gaps)
            guard parsedGaps.count == parsed.count - 1 else {
                throw ValidationError("--gaps: \(parsed.count) answers need \(parsed.count - 1) gaps, got \(parsedGaps.count)")
            }
        }
        if let start { _ = try Self.parseStart(start, zone: zone) }
    }

    /// One answer as typed and as the engine takes it.
    struct ParsedAnswer {
        var text: String
        var answer: Answer
    }

    static func parseAnswers(_ text: String) throws -> [ParsedAnswer] {
        let tokens = text.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
        guard !tokens.isEmpty, !text.trimmingCharacters(in: .whitespaces).isEmpty else {
            throw ValidationError("--answers: give at least one answer")
        }
        return try tokens.enumerated().map { index, token in
            let lower = token.lowercased()
            let answer: Answer
            switch lower {
            case "right": answer = .right
            case "wrong": answer = .wrong
            case "again": answer = .grade(1)
            case "hard": answer = .grade(2)
            case "good": answer = .grade(3)
            case "easy": answer = .grade(4)
            case "mc:first": answer = .multipleChoice(.rightFirstTry)
            case "mc:retry": answer = .multipleChoice(.rightAfterWrongTry)
            case "mc:wrong": answer = .multipleChoice(.wrong)
            default:
                if let grade = Int(lower) {
                    answer = .grade(grade)
                } else if lower.hasPrefix("wrong:"), let count = Int(lower.dropFirst(6)) {
                    answer = .incorrect(answers: count)
                } else {
                    throw ValidationError("--answers: answer \(index + 1) '\(token)' is not a grade, right, wrong, wrong:N, again/hard/good/easy or mc:first/mc:retry/mc:wrong")
                }
            }
            return ParsedAnswer(text: token, answer: answer)
        }
    }

    /// Gaps in seconds.
    static func parseGaps(_ text: String) throws -> [TimeInterval] {
        try text.split(separator: ",", omittingEmptySubsequences: false).enumerated().map { index, raw in
            let token = raw.trimmingCharacters(in: .whitespaces).lowercased()
            var number = Substring(token)
            var unit = 86_400.0
            if let last = token.last, "mhd".contains(last) {
                number = token.dropLast()
                unit = last == "m" ? 60 : last == "h" ? 3_600 : 86_400
            }
            guard let value = Double(number), value.isFinite, value >= 0, value * unit < 1e11 else {
                throw ValidationError("--gaps: gap \(index + 1) '\(raw)' is not a duration like 2, 0.5, 10m, 4h or 3d")
            }
            return value * unit
        }
    }

    /// `YYYY-MM-DD` (09:00 in `zone`) or an ISO 8601 time with an offset.
    static func parseStart(_ text: String, zone: TimeZone) throws -> Date {
        let iso = ISO8601DateFormatter()
        iso.formatOptions = [.withInternetDateTime]
        if let date = iso.date(from: text) { return date }
        iso.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = iso.date(from: text) { return date }
        let day = DateFormatter()
        day.locale = Locale(identifier: "en_US_POSIX")
        day.timeZone = zone
        day.dateFormat = "yyyy-MM-dd HH:mm"
        if text.count == 10, let date = day.date(from: text + " 09:00") { return date }
        throw ValidationError("--start: '\(text)' is not YYYY-MM-DD or an ISO 8601 time like 2026-01-05T09:00:00Z")
    }

    /// One line of the replay.
    struct Step: Encodable {
        var number: Int
        var answer: String
        var at: Date
        var state: CardState
        var summary: String
        var intervalDays: Double?
        var interval: String
        var due: Date?
        var dueSessionDay: Int?
    }

    struct Output: Encodable {
        var scheduler: String
        var timeZone: String
        var steps: [Step]
    }

    func run() throws {
        let zone = TimeZone(identifier: timeZone) ?? TimeZone(secondsFromGMT: 0) ?? .current
        let calendar = LearnerCalendar.local(zone)
        let engine = AnyScheduler.standard(scheduler, calendar: calendar, fuzz: !noFuzz)
        let parsed = try Self.parseAnswers(answers)
        let gapSeconds = try gaps.map(Self.parseGaps)
        let first = try start.map { try Self.parseStart($0, zone: zone) } ?? Date(timeIntervalSince1970: (Date().timeIntervalSince1970 / 60).rounded(.down) * 60)
        var random = SplitMix64(seed: seed)
        var now = first
        var sessionDay = 1
        var state = engine.newState(at: StudyMoment(now, sessionDay: sessionDay))
        var steps: [Step] = []
        var nextDue: Due = .date(now)
        for (index, item) in parsed.enumerated() {
            if index > 0 {
                if let gapSeconds {
                    now = now.addingTimeInterval(gapSeconds[index - 1])
                    sessionDay += Int((gapSeconds[index - 1] / 86_400).rounded(.down))
                } else {
                    switch nextDue {
                    case .date(let due): now = max(now, due)
                    case .sessionDay(let day):
                        now = calendar.adding(days: day - sessionDay, to: now)
                        sessionDay = day
                    case .never:
                        throw StudyEngineError(.itemRetired, "answer \(index + 1): the item was retired (or burned) by answer \(index) and is not due again", at: .field("answers"))
                    }
                }
            }
            let result: Scheduled<CardState>
            do {
                result = try engine.review(state, answer: item.answer, at: StudyMoment(now, sessionDay: sessionDay), random: &random)
            } catch {
                var placed = error
                placed.detail = "answer \(index + 1) '\(item.text)': " + error.detail
                throw placed
            }
            state = result.state
            nextDue = result.due
            var step = Step(number: index + 1, answer: item.text, at: now, state: state, summary: state.description, intervalDays: result.interval.days, interval: Self.format(result.interval))
            switch result.due {
            case .date(let due): step.due = due
            case .sessionDay(let day):
                step.dueSessionDay = day
                step.due = calendar.adding(days: day - sessionDay, to: now)
            case .never: break
            }
            steps.append(step)
        }
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            encoder.dateEncodingStrategy = .iso8601
            print(String(decoding: try encoder.encode(Output(scheduler: scheduler.rawValue, timeZone: timeZone, steps: steps)), as: UTF8.self))
        } else {
            print(table(steps, zone: zone), terminator: "")
        }
    }

    func table(_ steps: [Step], zone: TimeZone) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = zone
        formatter.dateFormat = "yyyy-MM-dd HH:mm"
        let stateWidth = max(5, steps.map(\.summary.count).max() ?? 0) + 2
        var text = "\(scheduler.rawValue), times in \(timeZone)\n"
        text += Evaluate.pad("#", 4) + Evaluate.pad("answer", 9) + Evaluate.pad("at", 18) + Evaluate.pad("state", stateWidth) + Evaluate.pad("interval", 22) + "due\n"
        for step in steps {
            var due = step.due.map { formatter.string(from: $0) } ?? "never"
            if let day = step.dueSessionDay { due = "session day \(day) (\(due))" }
            text += Evaluate.pad(String(step.number), 4) + Evaluate.pad(step.answer, 9) + Evaluate.pad(formatter.string(from: step.at), 18)
                + Evaluate.pad(step.summary, stateWidth) + Evaluate.pad(step.interval, 22) + due + "\n"
        }
        return text
    }

    /// `1 d`, `0.0069 d (10 min)`, `0.1667 d (4 h)`, `2 session days`, `—`.
    static func format(_ interval: Interval) -> String {
        switch interval {
        case .days(let n): return "\(n) d"
        case .sessionDays(let n): return n == 1 ? "1 session day" : "\(n) session days"
        case .never: return "—"
        case .duration(let seconds):
            let days = String(format: "%.4f d", seconds / 86_400)
            let minutes = seconds / 60
            if minutes < 60 {
                return days + " (" + (minutes == minutes.rounded() ? String(Int(minutes)) : String(format: "%.1f", minutes)) + " min)"
            }
            let hours = minutes / 60
            return days + " (" + (hours == hours.rounded() ? String(Int(hours)) : String(format: "%.1f", hours)) + " h)"
        }
    }

    static func formatUTC(_ date: Date) -> String {
        let iso = ISO8601DateFormatter()
        iso.formatOptions = [.withInternetDateTime]
        return iso.string(from: date)
    }
}
