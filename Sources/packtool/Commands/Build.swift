import ArgumentParser
import AssetLibrary
import AssetPack
import ErrorReporting
import Foundation
import StudyContent

extension PackTool {
    struct Build: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Pack a folder into a pack, checking its decks and question banks.",
            discussion: """
                Entries are sorted, stored, stamped with one fixed time (SOURCE_DATE_EPOCH when set, \
                else 1980-01-01) and mode 0644, and aligned. Hidden files are skipped. Decks \
                (Decks/*.json|tsv|csv) and banks (Banks/ID/) are validated first; every problem is \
                printed as FILE:LINE: ITEM: reason and nothing is written. The pack is written next \
                to OUT, verified, synced and renamed over OUT.

                Incremental: when OUT already holds the pack of the same inputs (a stamp of the \
                files' paths, sizes, times and identities and of the options, kept beside OUT in \
                .NAME.pack.stamp), nothing is read or written and build says "up to date"; when \
                the pack comes out byte-identical, OUT is kept as it was. --force always builds.

                Defaults for the options may be kept in SOURCE/.pack.json: {"name", "locale", \
                "contentVersion", "alignment", "base", "reference"} (base and reference relative \
                to SOURCE). Options given on the command line win.
                """)

        @Argument(help: "The folder to pack.")
        var source: String

        @Option(name: .shortAndLong, help: "The pack to write.")
        var output: String

        @Option(help: "Align each entry's data to this many bytes (a power of two, 1-32768; default 16).")
        var align: Int?

        @Option(help: "The pack's name in its index (default: OUT's base name).")
        var name: String?

        @Option(help: "The BCP 47 language tag of a locale pack (omit for a base pack).")
        var locale: String?

        @Option(help: "The content's version, recorded in the index.")
        var contentVersion: String?

        @Option(help: "A base pack or source folder where pictures referenced by decks and banks may be.")
        var base: String?

        @Option(help: "The development-locale pack or folder whose banks this translation must match.")
        var reference: String?

        @Option(help: "The pack format: 2 (default: every entry's SHA-256 in the index) or 1 (CRC-32 only; kept for this release only, for readers older than format 2).")
        var format: Int = 2

        @Flag(help: "Build even when OUT is up to date (its stamp matches the inputs).")
        var force = false

        @Option(help: "Keep the stamp and the temporary file in this folder (created if missing, on OUT's file system) instead of beside OUT.")
        var workDirectory: String?

        @Option(help: "How problems are printed: plain (packtool: …) or compiler (FILE:LINE: error: …, for IDEs and build logs).")
        var messageFormat: MessageFormat = .plain

        /// How problems are printed.
        enum MessageFormat: String, ExpressibleByArgument, CaseIterable {
            case plain
            case compiler
        }

        func run() throws {
            do {
                try build()
            } catch let error as any LibraryError where messageFormat == .compiler {
                // Content files are named relative to the source folder, in the message too.
                let location = error.location
                if error is ContentError {
                    Output.error(compilerLine(file: location.file.map { source + "/" + $0 }, line: location.line, error.description))
                } else {
                    Output.error(compilerLine(file: location.file, line: location.line, error.description.dropPath(location.file)))
                }
                throw ExitCode(1)
            }
        }

        /// The build, with errors reported by `reportingErrors` (plain) or thrown to `run`.
        func build() throws {
            func body() throws {
                let settingsFile = source + "/" + PackBuildSettings.fileName
                let settings = try PackBuildSettings.load(fromFolder: source)
                var timestamp: Int64?
                if let epoch = ProcessInfo.processInfo.environment["SOURCE_DATE_EPOCH"], !epoch.isEmpty {
                    guard let seconds = Int64(epoch), seconds >= 0 else {
                        throw PackError(.invalidArgument, "SOURCE_DATE_EPOCH is not a number of seconds: \(epoch)")
                    }
                    timestamp = seconds
                }
                let relative = { (path: String) in path.hasPrefix("/") ? path : source + "/" + path }
                let options = PackBuilder.Options(
                    name: name ?? settings.name, alignment: align ?? settings.alignment ?? 16,
                    locale: locale ?? settings.locale, contentVersion: contentVersion ?? settings.contentVersion,
                    timestamp: timestamp, format: format)
                if format == 1 {
                    Output.error("packtool: warning: --format 1 is deprecated and will be removed in the next release; format 2 lists every entry's SHA-256")
                }
                // The options first: a malformed locale is an error before any content is read.
                do throws(PackError) {
                    try options.check()
                } catch {
                    // The tag came from the settings file unless the command line gave one.
                    var located = error
                    if locale == nil, settings.locale != nil { located.location.file = settingsFile }
                    throw located
                }
                let basePath = base ?? settings.base.map(relative)
                let referencePath = reference ?? settings.reference.map(relative)
                var builder = PackBuilder(options: options)
                try builder.addDirectory(atPath: source)
                // Everything the pack and its checks depend on, for the stamp: the settings
                // file's text, and what the base and reference hold.
                var extraInputs = ["settings": String(decoding: (try? readRegularFile(settingsFile, limit: 1 << 20)) ?? [], as: UTF8.self)]
                for (key, path) in [("base", basePath), ("reference", referencePath)] {
                    if let path { extraInputs[key] = try stamp(of: path) }
                }
                if let workDirectory { try PackExtractor.makeFolders(workDirectory) }
                if !force, let report = builder.upToDateReport(at: output, extraInputs: extraInputs, workFolder: workDirectory) {
                    try Output.line("\(report.path): up to date")
                    return
                }
                try validate(base: basePath, reference: referencePath)
                let report = try builder.writeIfChanged(
                    to: output, extraInputs: extraInputs, force: force, workFolder: workDirectory)
                let summary =
                    "\(plural(report.metadata.entryCount, "entry", "entries")), \(report.contentBytes) content bytes, "
                    + "\(report.fileSize) bytes in all (index \(report.indexSize) bytes)"
                switch report.outcome {
                case .written, .upToDate: try Output.line("\(report.path): \(summary)")
                case .unchanged: try Output.line("\(report.path): unchanged (built again, byte for byte the same; the file was kept)")
                }
            }
            if messageFormat == .compiler { try body() } else { try reportingErrors(body) }
        }

        /// What a base or reference holds, for the stamp: a pack's file identity, or a folder's
        /// listing.
        func stamp(of path: String) throws -> String {
            if SourceFolder.kind(of: path) == .folder {
                var listing = PackBuilder()
                try listing.addDirectory(atPath: path)
                return listing.stampDigest(destination: path)
            }
            let identity = try FileIdentity(path: path)
            return "\(identity.device) \(identity.inode) \(identity.size) \(identity.modificationSeconds).\(identity.modificationNanoseconds)"
        }

        /// `FILE:LINE: error: MESSAGE`, as compilers print it (line 1 where there is no line), so
        /// SwiftPM and Xcode show the problem beside the file.
        func compilerLine(file: String?, line: Int?, _ message: String) -> String {
            var path = file ?? source
            if !path.hasPrefix("/") { path = FileManager.default.currentDirectoryPath + "/" + path }
            return "\(path):\(line ?? 1): error: \(message)"
        }

        /// Checks decks and banks; prints every problem once and fails if there is any.
        func validate(base: String?, reference: String?) throws {
            let content = FolderSource(root: source)
            var problems = ContentValidator(content: content, pictures: try base.map(contentSource)).validate()
            if let reference {
                problems += ContentValidator(content: content).compareTranslations(with: try contentSource(reference))
            }
            guard !problems.isEmpty else { return }
            var printed = Set<String>()
            for problem in problems where printed.insert(problem.description).inserted {
                switch messageFormat {
                case .plain: Output.error("packtool: \(source)/\(problem.description)")
                case .compiler:
                    var rest = problem
                    rest.location.line = nil
                    let message = rest.description.dropPath(problem.location.file)
                    Output.error(compilerLine(file: problem.location.file.map { source + "/" + $0 }, line: problem.location.line, message))
                }
            }
            throw ExitCode(1)
        }
    }
}

extension String {
    /// The message without its leading `PATH: ` (or `PATH:LINE: `), which a compiler-style line
    /// already gives.
    func dropPath(_ path: String?) -> String {
        guard let path, hasPrefix(path) else { return self }
        var rest = dropFirst(path.count)
        if rest.first == ":" {
            rest = rest.dropFirst()
            rest = rest.drop(while: \.isNumber)
            if rest.first == ":" { rest = rest.dropFirst() }
        }
        return String(rest.drop(while: { $0 == " " }))
    }
}

/// A pack file or a source folder, as a content source. Anything else (a FIFO, a device) is
/// refused as not a regular file, without waiting on it.
func contentSource(_ path: String) throws -> any ContentSource {
    if SourceFolder.kind(of: path) == .folder { return FolderSource(root: path) }
    return try Pack(path: path)
}

func plural(_ count: Int, _ one: String, _ many: String) -> String { "\(count) \(count == 1 ? one : many)" }
