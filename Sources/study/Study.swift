import ArgumentParser
import Foundation
import AssetLibrary
import AssetPack
import ErrorReporting
import StudyEngine
import StudyProgress

/// `study`: what the study engine's schedulers do, on a review log or on a list of answers.
struct Study: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "study",
        abstract: "Study a deck or bank of the mounted packs, see progress and forecasts, simulate and check the schedulers.",
        subcommands: [
            SessionCommand.self, StatsCommand.self, SimulateCommand.self, Evaluate.self, Replay.self, SyncCommand.self, SyncKeyCommand.self,
            BackupCommand.self, RestoreCommand.self,
        ])
}

/// Runs `study` and turns every failure into one line: usage errors exit 64, bad input 1.
@main
enum Main {
    static func main() {
        do {
            var command = try Study.parseAsRoot()
            try command.run()
        } catch let error as any LibraryError {
            // Every library's error, one path: its one line.
            fail(ErrorReport.line(for: error), code: 1)
        } catch let error as CocoaError {
            fail(error.localizedDescription, code: 1)
        } catch {
            let code = Study.exitCode(for: error)
            if code == .success {
                print(Study.fullMessage(for: error))
                exit(0)
            }
            // One line: ArgumentParser's message may list choices on lines of their own.
            let message = Study.message(for: error).split(separator: "\n")
                .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }.joined(separator: " ")
            if error is ExitCode {
                exit(code.rawValue)
            }
            fail(message + " (see study --help)", code: code.rawValue)
        }
    }

    static func fail(_ message: String, code: Int32) -> Never {
        FileHandle.standardError.write(Data(("study: " + message + "\n").utf8))
        exit(code)
    }
}

extension SchedulerKind: ExpressibleByArgument {}
