import ArgumentParser
import Foundation
import StudyProgress
import StudySync

/// Runs async work from a synchronous command and waits for it.
func waitFor<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) throws -> T {
    let box = ResultBox<T>()
    let done = DispatchSemaphore(value: 0)
    Task {
        do { box.result = .success(try await body()) } catch { box.result = .failure(error) }
        done.signal()
    }
    done.wait()
    switch box.result {
    case .success(let value): return value
    case .failure(let error): throw error
    case nil: throw SyncError(.cancelled, "the task ended without a result")
    }
}

private final class ResultBox<T>: @unchecked Sendable {
    // @unchecked: written once by the task before it signals, read after the wait.
    var result: Result<T, Error>?
}

/// The learner key: `--key FILE`, or the printable secret in STUDY_SYNC_KEY.
struct KeyOption: ParsableArguments {
    @Option(help: ArgumentHelp("The learner key file (study sync-key new). Default: the printable key in $STUDY_SYNC_KEY.", valueName: "file"))
    var key: String?

    func load() throws -> LearnerKey {
        if let key { return try LearnerKey(contentsOfFile: key) }
        if let text = ProcessInfo.processInfo.environment["STUDY_SYNC_KEY"], !text.isEmpty { return try LearnerKey(printable: text) }
        throw ValidationError("give the learner key: --key FILE, or STUDY_SYNC_KEY")
    }
}

/// `study sync`: sends this device's progress to a remote and merges the other devices'.
struct SyncCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync",
        abstract: "Sync a progress file with a folder or an S3-compatible store, end-to-end encrypted with the learner key.",
        discussion: """
            Sends the events this file has not sent yet and merges those of the learner's other devices; \
            every device that merged the same objects shows the same state hash (study stats --json). \
            For s3:// the credentials are AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and AWS_SESSION_TOKEN.
            """)

    @Option(help: ArgumentHelp("The progress database.", valueName: "path"))
    var db: String

    @Option(help: ArgumentHelp("A folder, or s3://BUCKET/PREFIX.", valueName: "remote"))
    var remote: String

    @Option(help: ArgumentHelp("The S3 endpoint (default: AWS's for the region).", valueName: "url"))
    var endpoint: String?

    @Option(help: ArgumentHelp("The S3 region the requests are signed for (default us-east-1).", valueName: "region"))
    var region: String?

    @OptionGroup var key: KeyOption

    @Flag(help: "Print JSON.")
    var json = false

    func validate() throws {
        if !remote.hasPrefix("s3://"), endpoint != nil || region != nil {
            throw ValidationError("--endpoint and --region are for s3:// remotes")
        }
    }

    func run() throws {
        let key = try key.load()
        let remote = try makeRemote(remote, endpoint: endpoint, region: region)
        let store = try ProgressStore(path: db)
        let sync = ProgressSync(store: store, remote: remote, key: key)
        let report = try waitFor { try await sync.sync() }
        let status = try SyncStatus(store: store)
        if json {
            struct Output: Encodable {
                var report: SyncReport
                var stateHash: String
                var device: String
            }
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            say(String(decoding: try encoder.encode(Output(report: report, stateHash: status.stateHash, device: status.device)), as: UTF8.self))
        } else {
            say(
                "sent \(report.eventsSent) events (\(report.bytesSent) bytes), received \(report.eventsReceived) (\(report.bytesReceived) bytes); "
                    + "\(report.requests) requests, \(String(format: "%.2f", report.seconds)) s; state \(status.stateHash.prefix(16))")
        }
        for refusal in report.refused {
            FileHandle.standardError.write(Data(("study: refused " + refusal.message + "\n").utf8))
        }
        for missing in report.missing {
            FileHandle.standardError.write(Data(("study: the store lacks objects of device " + missing + " (merged if they come back)\n").utf8))
        }
        if !report.refused.isEmpty { throw ExitCode(1) }
    }
}

/// A remote from the command line: a folder, or an S3 URL with credentials from the environment.
func makeRemote(_ text: String, endpoint: String?, region: String?) throws -> any SyncRemote {
    guard text.hasPrefix("s3://") else { return FolderRemote(root: text) }
    guard let credentials = StoreCredentials.fromEnvironment() else {
        throw SyncError(.invalidArgument, "an s3:// remote needs AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY", at: .file(text))
    }
    let stall = ProcessInfo.processInfo.environment["STUDY_SYNC_TIMEOUT"].flatMap(Double.init) ?? 20
    return try S3Remote(url: text, endpoint: endpoint, region: region, credentials: credentials, stallTimeout: stall)
}

/// `study sync-key new`: a new learner key.
struct SyncKeyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync-key", abstract: "Make a learner key for sync.", subcommands: [New.self])

    struct New: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Make a new learner key: print its printable form, or write it to a file (-o) only its owner can read.")

        @Option(name: .shortAndLong, help: ArgumentHelp("Write the key to this file (never over an existing one).", valueName: "file"))
        var output: String?

        func run() throws {
            let key = LearnerKey.generate()
            guard let output else {
                say(key.printable)
                return
            }
            try Self.writeNew(output, key.printable + "\n")
            say("learner \(key.learnerID): key written to \(output)")
        }

        /// Creates `path` for its owner only from the start (0600, `O_EXCL`: never over a file or
        /// through a link that stands there) and writes `text` to it. FileManager's createFile wrote
        /// a temporary file others could read, renamed it into place and only then made it 0600,
        /// so anyone watching the folder could open the key in between and keep it open.
        static func writeNew(_ path: String, _ text: String) throws {
            let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
            guard descriptor >= 0 else {
                let failure = errno
                if failure == EEXIST { throw SyncError(.fileSystem, "a file is already there; a key is never written over", at: .file(path)) }
                throw SyncError(.fileSystem, "cannot be written: \(String(cString: strerror(failure)))", at: .file(path))
            }
            let bytes = Array(text.utf8)
            var done = 0
            var failure: Int32 = 0
            while done < bytes.count {
                let written = bytes[done...].withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
                if written < 0 {
                    if errno == EINTR { continue }
                    failure = errno
                    break
                }
                done += written
            }
            if failure == 0, fsync(descriptor) != 0 { failure = errno }
            close(descriptor)
            if failure != 0 {
                unlink(path)
                throw SyncError(.fileSystem, "cannot be written: \(String(cString: strerror(failure)))", at: .file(path))
            }
        }
    }
}

/// `study backup`: the whole log in one sealed file.
struct BackupCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "backup", abstract: "Write a progress file's whole log to one file sealed with the learner key.")

    @Option(help: ArgumentHelp("The progress database.", valueName: "path"))
    var db: String

    @OptionGroup var key: KeyOption

    @Option(name: .shortAndLong, help: ArgumentHelp("The backup file to write.", valueName: "file"))
    var output: String

    func run() throws {
        let key = try key.load()
        let store = try ProgressStore(path: db)
        let output = self.output
        let count = try waitFor { try await ProgressBackup.write(store, key: key, to: output) }
        say("\(count) events written to \(output)")
    }
}

/// `study restore`: merges a backup.
struct RestoreCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "restore", abstract: "Merge a backup into a progress file (nothing there is lost or counted twice).")

    @Option(help: ArgumentHelp("The progress database.", valueName: "path"))
    var db: String

    @OptionGroup var key: KeyOption

    @Argument(help: "The backup file.")
    var backup: String

    func run() throws {
        let key = try key.load()
        let store = try ProgressStore(path: db)
        let backup = self.backup
        let added = try waitFor { try await ProgressBackup.restore(store, key: key, from: backup) }
        say("\(added) new events merged from \(backup); state \(try store.stateHash().prefix(16))")
    }
}
