import ArgumentParser
import AssetPack
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
                printed as FILE: ITEM: reason and nothing is written. The pack is written next to \
                OUT, verified, synced and renamed over OUT.

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

        func run() throws {
            try reportingErrors {
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
                    timestamp: timestamp)
                // The options first: a malformed locale is an error before any content is read.
                try options.check()
                try validate(
                    base: base ?? settings.base.map(relative), reference: reference ?? settings.reference.map(relative))
                var builder = PackBuilder(options: options)
                try builder.addDirectory(atPath: source)
                let report = try builder.write(to: output)
                try Output.line(
                    "\(report.path): \(plural(report.metadata.entryCount, "entry", "entries")), "
                        + "\(report.contentBytes) content bytes, \(report.fileSize) bytes in all "
                        + "(index \(report.indexSize) bytes)")
            }
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
                Output.error("packtool: \(source)/\(problem.description)")
            }
            throw ExitCode(1)
        }
    }
}

/// A pack file or a source folder, as a content source. Anything else (a FIFO, a device) is
/// refused as not a regular file, without waiting on it.
func contentSource(_ path: String) throws -> any ContentSource {
    if SourceFolder.kind(of: path) == .folder { return FolderSource(root: path) }
    return try Pack(path: path)
}

func plural(_ count: Int, _ one: String, _ many: String) -> String { "\(count) \(count == 1 ? one : many)" }
