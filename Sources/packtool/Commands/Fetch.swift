import ArgumentParser
import AssetDelivery
import AssetPack
import Dispatch
import ErrorReporting
import Foundation
import PackTrust

extension PackTool {
    struct Fetch: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Install or update packs from a signed catalog: only the locales asked for, only changed entries, resumable.",
            discussion: """
                The same installer an app uses (AssetDelivery): verifies the catalog against --root \
                (and any newer roots), then for the base packs and each locale's fallback chain \
                fetches only the entries no installed pack has, resumes after a kill, verifies the \
                file against the catalog and renames it into place. One installer per folder: a \
                second one fails at once, or with --wait waits. A progress line on a terminal, one \
                summary line otherwise; with --json one object: {"catalogVersion", "installed", \
                "updated", "unchanged", "bytesFetched", "bytesReused", "requests", "seconds", \
                "state" ("first run", "verified" or "rebuilt: REASON"), "pending" (why the newest \
                publication is not installed yet, or null), "wholeFiles"}.
                """)

        @Argument(help: "The repository's URL (where catalog.json is).")
        var url: String

        @Option(help: "The folder of installed packs (created if missing).")
        var into: String

        @Option(help: "The root the app ships (root.json).")
        var root: String

        @Option(help: "A locale to make available, with its fallback chain (repeatable; default: the development locale).")
        var locale: [String] = []

        @Option(help: "Only packs with this name (repeatable).")
        var pack: [String] = []

        @Option(help: "Seconds without data before a request fails.")
        var timeout: Double = 15

        @Option(help: "Seconds the whole update may take.")
        var deadline: Double = 3600

        @Flag(help: "Wait while another installer works on the folder, instead of failing.")
        var wait = false

        @Flag(help: "Print one JSON object.")
        var json = false

        func run() throws {
            try reportingErrors {
                guard let base = URL(string: url.hasSuffix("/") ? url : url + "/"), base.scheme != nil else {
                    throw TrustError(.invalidArgument, "\(url) is not a URL")
                }
                let trusted = try readRoot(root)
                let installer = try PackInstaller(
                    folder: into, repository: base, root: trusted, transport: URLSessionTransport(stallTimeout: timeout),
                    whenBusy: wait ? .wait : .fail, deadline: deadline)
                let terminal = isatty(2) == 1 && !json
                let outcome = Outcome()
                let done = DispatchSemaphore(value: 0)
                let locales = locale.isEmpty ? [installer.developmentLocale] : locale
                let names = pack
                Task {
                    if terminal {
                        Task {
                            for await event in installer.events where event.phase == .fetching && event.bytesTotal > 0 {
                                let percent = Int(Double(event.bytesDone) / Double(event.bytesTotal) * 100)
                                FileHandle.standardError.write(Data("\r\(event.pack ?? ""): \(percent)% of \(event.bytesTotal) bytes   ".utf8))
                            }
                        }
                    }
                    do {
                        outcome.set(.success(try await installer.makeAvailable(locales: locales, names: names)))
                    } catch {
                        outcome.set(.failure(error))
                    }
                    done.signal()
                }
                done.wait()
                if terminal { FileHandle.standardError.write(Data("\r".utf8)) }
                switch outcome.value {
                case .success(let report):
                    if json {
                        try Output.json(
                            .object([
                                ("catalogVersion", .number(report.catalogVersion)), ("installed", .array(report.installed.map(JSON.string))),
                                ("updated", .array(report.updated.map(JSON.string))), ("unchanged", .array(report.unchanged.map(JSON.string))),
                                ("bytesFetched", .unsigned(report.bytesFetched)), ("bytesReused", .unsigned(report.bytesReused)),
                                ("requests", .number(report.requests)), ("seconds", .double(report.seconds)),
                                ("state", .string(report.trustState.summary)), ("pending", .optional(report.pending)),
                                ("wholeFiles", .bool(report.wholeFiles)),
                            ]))
                    } else {
                        try Output.line(
                            "\(into): catalog version \(report.catalogVersion): \(report.installed.count) installed, \(report.updated.count) updated, "
                                + "\(report.unchanged.count) unchanged; \(report.bytesFetched) bytes fetched, \(report.bytesReused) reused, "
                                + "\(report.requests) requests, \(String(format: "%.2f", report.seconds)) s"
                                + (report.pending.map { "; pending: " + $0 } ?? ""))
                    }
                case .failure(let error as DeliveryError):
                    if json {
                        try Output.json(.object([("ok", .bool(false)), ("error", error.json)]))
                    }
                    throw error
                case .failure(let error):
                    throw error
                case nil:
                    throw DeliveryError(.cancelled, "the installer did not finish")
                }
            }
        }
    }
}

/// The installer's result, handed from its task to the command's thread.
final class Outcome: @unchecked Sendable {
    private let lock = NSLock()
    private var result: Result<InstallReport, Error>?

    func set(_ value: Result<InstallReport, Error>) { lock.withLock { result = value } }
    var value: Result<InstallReport, Error>? { lock.withLock { result } }
}
