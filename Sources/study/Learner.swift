import ArgumentParser
import AssetLibrary
import AssetPack
import Foundation
import StudyContent
import StudyEngine
import StudyProgress
import StudyStrings

extension StudyMaterial.Kind: ExpressibleByArgument {}

/// What `session` and `stats` share: the packs, the learner's language, the database, the clock.
struct LearnerOptions: ParsableArguments {
    @Option(name: .customLong("packs"), parsing: .upToNextOption, help: ArgumentHelp("The packs to mount: base packs, then locale packs (their order is their priority).", valueName: "pack"))
    var packs: [String] = []

    @Option(help: ArgumentHelp("The learner's language (BCP 47): the content's, through the packs' locale chain, and the tool's own words (en, ru, zh-Hans, pa; ru-RU falls back to ru, others to en). Default: the development locale, en.", valueName: "tag"))
    var locale: String?

    @Option(help: ArgumentHelp("The progress database. Default: $XDG_DATA_HOME/asset-packs/progress.sqlite (~/.local/share when unset).", valueName: "path"))
    var db: String?

    @Option(name: .customLong("time-zone"), help: ArgumentHelp("The learner's time zone: whole days are its calendar days (an IANA name). Default: the system's.", valueName: "zone"))
    var timeZone: String?

    @Option(help: ArgumentHelp("The session's clock: YYYY-MM-DD (09:00 local) or an ISO 8601 time; answers then come 10 s apart. Default: the real clock.", valueName: "date"))
    var now: String?

    @Argument(help: "deck or bank.")
    var kind: StudyMaterial.Kind

    @Argument(help: "The deck or bank id.")
    var id: String

    func validate() throws {
        guard !packs.isEmpty else { throw ValidationError("--packs: give at least one pack") }
        if let timeZone, TimeZone(identifier: timeZone) == nil {
            throw ValidationError("--time-zone: unknown time zone '\(timeZone)'")
        }
        if let now { _ = try Replay.parseStart(now, zone: zone) }
    }

    var zone: TimeZone { timeZone.flatMap(TimeZone.init(identifier:)) ?? .current }
    var calendar: LearnerCalendar { .local(zone) }

    /// The first moment of the session.
    func startTime() throws -> Date { try now.map { try Replay.parseStart($0, zone: zone) } ?? Date() }

    /// The database path: `--db`, or under `$XDG_DATA_HOME` (created if missing).
    func databasePath() throws -> String {
        if let db { return db }
        let environment = ProcessInfo.processInfo.environment
        let base = environment["XDG_DATA_HOME"].flatMap { $0.isEmpty ? nil : $0 }
            ?? ((environment["HOME"] ?? NSHomeDirectory()) + "/.local/share")
        let folder = base + "/asset-packs"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        return folder + "/progress.sqlite"
    }

    /// Mounts the packs (a later pack over an earlier one of the same kind) and sets the locale.
    func makeStore() throws -> AssetStore {
        let store = AssetStore()
        for path in packs { _ = try store.mount(path: path) }
        if let locale { try store.setLocale(locale) }
        return store
    }

    /// The tool's words in the learner's language: `--locale` through the same fallback chain as
    /// the packs (`ru-RU` → `ru` → `en`).
    func text() throws(StringCatalogError) -> StudyText { try StudyText.bundled(locale: locale) }

    /// The deck or bank in the learner's language.
    func material(bothWays: Bool = false) throws -> StudyMaterial {
        try StudyMaterial.load(kind, id: id, from: try makeStore().currentView, bothWays: bothWays)
    }
}

/// Prints a line to standard output at once (a session is interactive).
func say(_ line: String = "") {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

/// Wraps `text` at `width` columns, indented by `indent`.
func wrapped(_ text: String, width: Int = 78, indent: String = "") -> [String] {
    var lines: [String] = []
    var line = indent
    for word in text.split(separator: " ") {
        if line.count + word.count + 1 > width, line.count > indent.count {
            lines.append(line)
            line = indent
        }
        line += (line.count > indent.count ? " " : "") + word
    }
    if line.count > indent.count { lines.append(line) }
    return lines
}

extension Date {
    /// `2026-11-22 09:00` in `zone`.
    func formatted(in zone: TimeZone) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = zone
        formatter.dateFormat = "yyyy-MM-dd HH:mm"
        return formatter.string(from: self)
    }
}
