import ArgumentParser
import AssetPack

extension PackTool {
    struct Cat: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Write an entry's bytes to standard output.")

        @OptionGroup var pack: PackArgument

        @Argument(help: "The entry's path inside the pack.")
        var path: String

        func run() throws {
            try reportingErrors {
                // The read backend: a pack that is truncated or fails under us is an error, not SIGBUS.
                let bytes = try pack.open(backend: .read).data(forPath: path)
                try bytes.withUnsafeBytes { try Output.write($0) }
            }
        }
    }

    struct Verify: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Check the whole pack: headers, index, CRC-32 of every entry, overlaps and names.")

        @OptionGroup var pack: PackArgument

        func run() throws {
            try reportingErrors {
                let opened = try pack.open(backend: .read)
                let report = try opened.verify()
                try Output.line(
                    "\(opened.path): OK, \(report.entryCount) entries, \(report.checkedBytes) bytes checked")
            }
        }
    }

    struct Info: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show what a pack says about itself.")

        @OptionGroup var pack: PackArgument

        func run() throws {
            try reportingErrors {
                let pack = try pack.open()
                var lines: [(String, String)] = [("path", pack.path)]
                var contentBytes: UInt64 = 0
                var storedBytes: UInt64 = 0
                for entry in pack.entries {
                    contentBytes += entry.size
                    storedBytes += entry.compressedSize
                }
                if let metadata = pack.metadata {
                    let index = pack.entries[pack.count - 1]
                    lines += [
                        ("format", "pack/\(metadata.formatVersion)"),
                        ("name", metadata.name),
                        ("locale", metadata.locale ?? "none (base pack)"),
                        ("content version", metadata.contentVersion ?? "none"),
                        ("entries", "\(metadata.entryCount) (+ index)"),
                        ("alignment", "\(metadata.alignment)"),
                        ("digest", metadata.digest),
                        ("file size", "\(pack.fileSize) bytes"),
                        ("content size", "\(contentBytes - index.size) bytes"),
                        ("index size", "\(index.size) bytes"),
                    ]
                } else {
                    let deflated = pack.entries.filter { $0.method == 8 }.count
                    lines += [
                        ("format", "zip (no pack index)"),
                        ("entries", "\(pack.count) (\(pack.count - deflated) stored, \(deflated) deflated)"),
                        ("file size", "\(pack.fileSize) bytes"),
                        ("content size", "\(contentBytes) bytes (\(storedBytes) as stored)"),
                    ]
                }
                for (key, value) in lines { try Output.line((key + ":").padding(17) + value) }
            }
        }
    }

    struct Index: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print the pack's JSON index.",
            discussion: "For a zip without an index, prints the index a pack of the same entries would have.")

        @OptionGroup var pack: PackArgument

        func run() throws {
            try reportingErrors {
                let pack = try pack.open()
                if let index = try pack.indexData() {
                    try index.withUnsafeBytes { try Output.write($0) }
                } else {
                    let json = try pack.synthesizedIndex()
                    try json.withUnsafeBytes { try Output.write($0) }
                }
            }
        }
    }

    struct Extract: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Extract entries into a folder, never writing outside it.",
            discussion: """
                Refuses unsafe names (nothing is extracted then), never creates or follows symbolic \
                links, and never overwrites an existing file without --force. Each file is written \
                under a temporary name and renamed into place once its CRC-32 checks out.
                """)

        @OptionGroup var pack: PackArgument

        @Option(name: .shortAndLong, help: "The folder to extract into (created if missing).")
        var output: String = "."

        @Flag(help: "Overwrite existing files.")
        var force = false

        @Argument(help: "Entries or folders to extract (default: all).")
        var paths: [String] = []

        func run() throws {
            try reportingErrors {
                let opened = try pack.open(backend: .read)
                let extractor = PackExtractor(pack: opened, overwrite: force)
                let count = try extractor.extract(try extractor.select(paths), to: output)
                try Output.line("\(output): \(count) files extracted")
            }
        }
    }
}
