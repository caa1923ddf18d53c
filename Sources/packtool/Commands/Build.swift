import ArgumentParser
import AssetPack

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension PackTool {
    struct Build: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Pack a folder into a pack.",
            discussion: """
                Entries are sorted, stored, stamped with one fixed time (SOURCE_DATE_EPOCH when set, \
                else 1980-01-01) and mode 0644, and aligned. Hidden files are skipped. The pack is \
                written next to OUT, verified, synced and renamed over OUT.
                """)

        @Argument(help: "The folder to pack.")
        var source: String

        @Option(name: .shortAndLong, help: "The pack to write.")
        var output: String

        @Option(help: "Align each entry's data to this many bytes (a power of two, 1-32768).")
        var align: Int = 16

        @Option(help: "The pack's name in its index (default: OUT's base name).")
        var name: String?

        @Option(help: "The BCP 47 language tag of a locale pack (omit for a base pack).")
        var locale: String?

        @Option(help: "The content's version, recorded in the index.")
        var contentVersion: String?

        func run() throws {
            try reportingErrors {
                var timestamp: Int64?
                if let epoch = getenv("SOURCE_DATE_EPOCH").map({ String(cString: $0) }), !epoch.isEmpty {
                    guard let seconds = Int64(epoch), seconds >= 0 else {
                        throw PackError(.invalidArgument, "SOURCE_DATE_EPOCH is not a number of seconds: \(epoch)")
                    }
                    timestamp = seconds
                }
                var builder = PackBuilder(
                    options: .init(
                        name: name, alignment: align, locale: locale, contentVersion: contentVersion,
                        timestamp: timestamp))
                try builder.addFolder(source)
                let report = try builder.write(to: output)
                try Output.line(
                    "\(report.path): \(plural(report.metadata.entryCount, "entry", "entries")), \(report.contentBytes) content bytes, "
                        + "\(report.fileSize) bytes in all (index \(report.indexSize) bytes)")
            }
        }
    }
}

func plural(_ count: Int, _ one: String, _ many: String) -> String { "\(count) \(count == 1 ? one : many)" }
