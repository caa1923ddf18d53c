// The study engine's benchmark: replaying the 12k review log through FSRS-6, ours against
// py-fsrs 6.3.2 on the same log in the same run; `study evaluate` of all models; training FSRS-6;
// then progress and sessions (Progress.swift): today's queue, a durable answer against SQLite's C
// API, `study simulate`.
//   studybench [--log FILE] [--python PATH] [--oracle PATH] [--study PATH]
//   studybench --progress-only      (only the progress and session figures)
import Foundation
import StudyEngine
import StudyResearch

struct Options {
    var log = "Tests/StudyResearchTests/Fixtures/review-log-12k.csv"
    var python = ".build-venv/bin/python"
    var oracle = "Tests/StudyEngineTests/fsrs_oracle.py"
    var study = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("study").path

    init(_ arguments: [String]) throws {
        var rest = arguments.dropFirst()
        while let flag = rest.popFirst() {
            guard let value = rest.popFirst() else { throw Failure("\(flag) needs a value") }
            switch flag {
            case "--log": log = value
            case "--python": python = value
            case "--oracle": oracle = value
            case "--study": study = value
            default: throw Failure("unknown option \(flag); studybench [--log FILE] [--python PATH] [--oracle PATH] [--study PATH]")
            }
        }
    }
}

struct Failure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Seconds of the fastest of `runs` calls of `body`.
func best(of runs: Int, _ body: () throws -> Void) rethrows -> Double {
    var fastest = Double.infinity
    for _ in 0..<runs {
        let start = DispatchTime.now().uptimeNanoseconds
        try body()
        fastest = min(fastest, Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
    }
    return fastest
}

/// Runs a program to its end; returns its standard output, or throws with its standard error.
func run(_ executable: String, _ arguments: [String], input: Data? = nil) throws -> Data {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    let output = Pipe()
    let errors = Pipe()
    let stdin = Pipe()
    process.standardOutput = output
    process.standardError = errors
    process.standardInput = stdin
    try process.run()
    if let input { stdin.fileHandleForWriting.write(input) }
    try stdin.fileHandleForWriting.close()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    let message = errors.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else {
        throw Failure("\(executable) exited \(process.terminationStatus): \(String(decoding: message, as: UTF8.self))")
    }
    return data
}

func main() throws {
    let options = try Options(CommandLine.arguments)
    let log = try ReviewLog(contentsOfFile: options.log)
    let reviews = log.entries.count
    print("studybench: \(options.log), \(reviews) reviews of \(log.cards.count) cards; \(ProcessInfo.processInfo.activeProcessorCount) cores")

    // 1. Replay the log through FSRS-6 (fuzz off, py-fsrs's day count): ours.
    let scheduler = FSRSScheduler.fsrs6(calendar: .elapsed24Hours, fuzz: false)
    var ours: [FSRSState?] = []
    let oursSeconds = try best(of: 20) {
        // Per-card states in an array by the log's card numbers (py-fsrs keeps a dict by id).
        var cards = [FSRSState?](repeating: nil, count: log.cards.count)
        for entry in log.entries {
            let state = cards[entry.cardIndex] ?? scheduler.newState(at: StudyMoment(entry.time))
            cards[entry.cardIndex] = try scheduler.review(state, answer: .grade(entry.rating.rawValue), at: StudyMoment(entry.time)).state
        }
        ours = cards
    }

    // 2. The same replay in py-fsrs 6.3.2 (its own loop, timed inside Python, best of 3).
    struct Oracle: Decodable {
        var version: String
        var reviews: Int
        var seconds: Double
        var cards: [String: [Double]]
    }
    let request = try JSONSerialization.data(withJSONObject: ["mode": "replay-log", "log": options.log, "repeat": 3])
    let oracle = try JSONDecoder().decode(Oracle.self, from: run(options.python, [options.oracle], input: request))
    var largestGap = 0.0
    var numbers: [String: Int] = [:]
    for entry in log.entries { numbers[entry.cardID] = entry.cardIndex }
    for (card, values) in oracle.cards {
        guard let number = numbers[card], let state = ours[number], let s = state.stability, let d = state.difficulty, values.count == 2 else {
            throw Failure("card \(card) is missing from our replay")
        }
        largestGap = max(largestGap, abs(s - values[0]), abs(d - values[1]))
    }

    // 3. `study evaluate` of all models on the log: the release binary, start-up included.
    var evaluateOutput = Data()
    let evaluateSeconds = try best(of: 5) { evaluateOutput = try run(options.study, ["evaluate", "--log", options.log]) }
    let inProcessSeconds = best(of: 5) { _ = Evaluator.evaluate(log) }
    let parseSeconds = try best(of: 5) { _ = try ReviewLog(contentsOfFile: options.log) }

    // 4. Training FSRS-6 on the whole log.
    let cards = Evaluator.fsrsTrainingCards(log, before: log.entries.count)
    var training: FSRSTrainingResult?
    let trainingSeconds = best(of: 5) { training = FSRSTrainer().train(cards) }

    let oursRate = Double(reviews) / oursSeconds
    let theirRate = Double(oracle.reviews) / oracle.seconds
    func row(_ what: String, _ value: String, _ note: String) -> String {
        what.padding(toLength: 52, withPad: " ", startingAt: 0) + value.padding(toLength: 22, withPad: " ", startingAt: 0) + note
    }
    print("")
    print(row("measure", "figure", "note"))
    print(row("FSRS-6 replay of the log, this engine", String(format: "%.0f reviews/s", oursRate), String(format: "best of 20: %.2f ms", oursSeconds * 1_000)))
    print(row("FSRS-6 replay of the log, py-fsrs \(oracle.version)", String(format: "%.0f reviews/s", theirRate), String(format: "best of 3: %.0f ms", oracle.seconds * 1_000)))
    print(row("  ratio", String(format: "%.0f×", oursRate / theirRate), String(format: "final S and D of all cards agree within %.1e", largestGap)))
    print(row("study evaluate (release binary, all models)", String(format: "%.3f s", evaluateSeconds), String(format: "best of 5, start-up included; in-process: reading %.3f s, models %.3f s", parseSeconds, inProcessSeconds)))
    if let training {
        print(row("training FSRS-6 on the whole log", String(format: "%.3f s", trainingSeconds), String(format: "best of 5; %d scored reviews, loss %.4f → %.4f", training.scoredReviews, training.initialLoss, training.finalLoss)))
    }
    guard !evaluateOutput.isEmpty else { throw Failure("study evaluate printed nothing") }
}

do {
    if CommandLine.arguments.dropFirst().first != "--progress-only" { try main() }
    try progressBenchmarks()
} catch {
    FileHandle.standardError.write(Data("studybench: \(error)\n".utf8))
    exit(1)
}
