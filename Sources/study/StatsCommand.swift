import ArgumentParser
import CommandLineSupport
import Foundation
import StudyEngine
import StudyResearch
import StudyProgress
import StudyStrings
import StudySync

/// `study stats`: the due forecast, retention, streak and level; the Leitner calendar.
struct StatsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stats",
        abstract: "Show a deck's or bank's due forecast, retention, streak and level, and the Leitner calendar.",
        discussion: "In the learner's language (--locale: en, ru, zh-Hans or pa); --json does not translate.")

    @OptionGroup var learner: LearnerOptions

    @Option(help: "Days of forecast.")
    var days = 30

    @Flag(help: "Print JSON.")
    var json = false

    func validate() throws {
        guard (1...365).contains(days) else { throw ValidationError("--days is 1 to 365, not \(days)") }
    }

    func run() throws {
        let material = try learner.material()
        let text = try learner.text()
        let store = try ProgressStore(path: try learner.databasePath())
        let now = try learner.startTime()
        let calendar = learner.calendar
        let figures = try ProgressStatistics(material: material, store: store, calendar: calendar, now: now, days: days)
        let progress = try store.items(source: material.source)
        let leitner = progress.values.contains { $0.state.kind == .leitner }
        let grid = leitner ? LeitnerGrid(progress: progress, firstDay: try store.sessionDay(source: material.source).day) : nil
        let sync = try SyncStatus(store: store)
        if json {
            struct Output: Encodable {
                var figures: ProgressStatistics
                var retention: Double?
                var leitner: [String]?
                var sync: SyncStatus
            }
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            say(String(decoding: try encoder.encode(Output(figures: figures, retention: figures.retention, leitner: grid?.lines, sync: sync)), as: UTF8.self))
            return
        }
        let level = LearnerLevel.named(figures.level).map(text.name(of:)) ?? figures.level
        say(text("stats.header", material.title, material.source, figures.seen, figures.total, level))
        // Rounded as printf's %.0f rounds (half to even), as this line always has.
        let retention = figures.retention.map { text("stats.retention", Int(($0 * 100).rounded(.toNearestOrEven)), figures.reviews30Days) }
        say((retention ?? text("stats.retention.none")) + text("stats.streak", figures.streak))
        say(text("stats.levels", LearnerLevel.allCases.map { "\(text.name(of: $0)) \(figures.levels[$0.description] ?? 0)" }.joined(separator: " · ")))
        say("")
        say(text("stats.forecast", days))
        let peak = max(figures.forecast.max() ?? 0, 1)
        let dates = figures.forecast.indices.map { Self.dayLabel(calendar.adding(days: $0, to: now), zone: learner.zone, language: text.language) }
        let width = dates.map(displayWidth).max() ?? 0
        for (offset, count) in figures.forecast.enumerated() {
            let bar = String(repeating: "█", count: (count * 40 + peak - 1) / peak)
            say("  \(paddedToWidth(dates[offset], width)) │\(bar) \(count)")
        }
        if let grid {
            say("")
            say(text("stats.leitner"))
            for line in Self.lines(of: grid, text: text) { say("  " + line) }
        }
        say("")
        say(text("stats.sync", sync.device, sync.events, String(sync.stateHash.prefix(16))))
        for device in sync.devices {
            let name = text(device.device == sync.device ? "stats.sync.thisDevice" : "stats.sync.otherDevice", device.device)
            say("  " + (device.lastSync.map { text("stats.sync.last", name, $0) } ?? text("stats.sync.never", name)))
        }
    }
}

extension StatsCommand {
    /// `11-22 Sun`: the month and day, and the weekday in `language` (`11-22 Вс`, `11-22 周日`,
    /// `11-22 ਐਤ`); English as it has always been printed (`en_US_POSIX`).
    static func dayLabel(_ day: Date, zone: TimeZone, language: String) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: language == "en" ? "en_US_POSIX" : language)
        formatter.timeZone = zone
        formatter.dateFormat = "MM-dd EEE"
        return formatter.string(from: day)
    }

    /// The Leitner grid in the learner's words: a header of session days, a row per level
    /// (`level 1 (count) ■ · ■ …`), then the retired items; the labels padded to one column.
    static func lines(of grid: LeitnerGrid, text: StudyText) -> [String] {
        let days = grid.firstDay..<(grid.firstDay + grid.days)
        let header = text("leitner.sessionDay")
        let levels = (1...LeitnerScheduler.levels).map { text("leitner.level", $0) }
        // English: `session day   ` and `level 1     1 `, 14 columns each.
        let column = max(displayWidth(header) + 3, (levels.map(displayWidth).max() ?? 0) + 7)
        var lines = [paddedToWidth(header, column) + days.map { String(format: "%3d", $0) }.joined()]
        for (index, label) in levels.enumerated() {
            let cells = days.map { LeitnerScheduler.reviews(level: index + 1, onSessionDay: $0) ? "  ■" : "  ·" }
            lines.append(paddedToWidth(label, column - 6) + rightAligned(String(grid.counts[index]), width: 5) + " " + cells.joined())
        }
        lines.append(text("leitner.retired", grid.retired))
        return lines
    }
}

/// `study simulate`: a learner model over a deck, day by day, with one scheduler.
struct SimulateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "simulate",
        abstract: "Simulate a learner studying a deck every day and report the daily workload and retention.",
        discussion: """
            The learner's memory of each card follows FSRS-6 with its default parameters; each review \
            is recalled with that model's probability (seeded), and the scheduler only sees right or \
            wrong. Every day: all due reviews, then the new cards.
            """)

    @Option(help: ArgumentHelp("The scheduler: \(SchedulerKind.allCases.map(\.rawValue).joined(separator: ", ")).", valueName: "name"))
    var scheduler: SchedulerKind

    @Option(help: "Days to simulate.")
    var days: Int

    @Option(help: "Cards in the deck.")
    var cards = 10_000

    @Option(name: .customLong("new"), help: "New cards a day.")
    var newPerDay = 20

    @Option(help: "The random seed.")
    var seed: UInt64 = 1

    @Flag(help: "Print JSON.")
    var json = false

    func validate() throws {
        guard (1...3650).contains(days) else { throw ValidationError("--days is 1 to 3650, not \(days)") }
        guard (1...1_000_000).contains(cards) else { throw ValidationError("--cards is 1 to 1,000,000, not \(cards)") }
        guard newPerDay >= 1 else { throw ValidationError("--new is at least 1, not \(newPerDay)") }
    }

    func run() throws {
        let started = Date()
        let result = try Simulation(scheduler: scheduler, cards: cards, days: days, newPerDay: newPerDay, seed: seed).run()
        let seconds = Date().timeIntervalSince(started)
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            say(String(decoding: try encoder.encode(result), as: UTF8.self))
            return
        }
        say("\(scheduler.rawValue): \(cards) cards, \(newPerDay) new a day, \(days) days (simulated in \(String(format: "%.2f", seconds)) s)")
        say("week   reviews/day   most   new   recalled")
        for week in stride(from: 0, to: result.daily.count, by: 7) {
            let slice = result.daily[week..<min(week + 7, result.daily.count)]
            let reviews = slice.reduce(0) { $0 + $1.reviews }
            let recalled = slice.reduce(0) { $0 + $1.recalled }
            let share = reviews == 0 ? "–" : String(format: "%.1f%%", Double(recalled) * 100 / Double(reviews))
            say(String(format: "%4d   %11.1f   %4d   %3d   ", week / 7 + 1, Double(reviews) / Double(slice.count), slice.map(\.reviews).max() ?? 0, slice.reduce(0) { $0 + $1.new }) + share)
        }
        say(String(format: "reviews a day: mean %.1f, most %d · recalled at review: %@ · cards introduced: %d · mean recall of them the day after: %.1f%%",
                   result.meanReviews, result.maxReviews, result.retention.map { String(format: "%.1f%%", $0 * 100) } ?? "–",
                   result.introduced, result.knownAtEnd * 100))
    }
}
