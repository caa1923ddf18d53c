import ArgumentParser
import Foundation
import StudyEngine
import StudyResearch
import StudyProgress
import StudySync

/// `study stats`: the due forecast, retention, streak and level; the Leitner calendar.
struct StatsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stats",
        abstract: "Show a deck's or bank's due forecast, retention, streak and level, and the Leitner calendar.")

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
        say("\(material.title) (\(material.source)) · \(figures.seen) of \(figures.total) seen · level: \(figures.level)")
        let retention = figures.retention.map { String(format: "%.0f%% of %d reviews", $0 * 100, figures.reviews30Days) } ?? "no reviews yet"
        say("retention, last 30 days: \(retention) · streak: \(figures.streak) day\(figures.streak == 1 ? "" : "s")")
        say("levels: " + LearnerLevel.allCases.map { "\($0) \(figures.levels[$0.description] ?? 0)" }.joined(separator: " · "))
        say("")
        say("due in the next \(days) days")
        let peak = max(figures.forecast.max() ?? 0, 1)
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = learner.zone
        formatter.dateFormat = "MM-dd EEE"
        for (offset, count) in figures.forecast.enumerated() {
            let day = calendar.adding(days: offset, to: now)
            let bar = String(repeating: "█", count: (count * 40 + peak - 1) / peak)
            say("  \(formatter.string(from: day)) │\(bar) \(count)")
        }
        if let grid {
            say("")
            say("Leitner calendar (■: the level comes up that session day)")
            for line in grid.lines { say("  " + line) }
        }
        say("")
        say("sync: this device \(sync.device) · \(sync.events) events · state \(sync.stateHash.prefix(16))")
        for device in sync.devices {
            let mark = device.device == sync.device ? " (this one)" : ""
            say("  device \(device.device)\(mark): last sync \(device.lastSync ?? "never")")
        }
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
