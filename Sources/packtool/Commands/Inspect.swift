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
                let bytes = try pack.open(backend: .read).zipData(forPath: path)
                try bytes.withUnsafeBytes { try Output.write($0) }
            }
        }
    }

    struct Verify: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Check the whole pack: headers, index, every entry's CRC-32 and SHA-256, overlaps and names.",
            discussion: """
                Reads the file with pread, so a damaged or truncated file is an error, never a crash. \
                A format-2 pack's entries are checked against the SHA-256 its index lists (bytes \
                changed so that their CRC-32 still matches are found); format 1 by CRC-32 only.
                With --json: {"path", "ok": true, "format", "entries", "checkedBytes", "sha256Checked"}, or on failure \
                {"path", "ok": false, "error": {"code", "message", "path", "entry", "offset"}} \
                (the line on standard error and exit status 1 too).
                """)

        @OptionGroup var pack: PackArgument

        @Flag(help: "Print the result as one JSON object (the fields are in the discussion above).")
        var json = false

        func run() throws {
            try reportingErrors {
                let opened: Pack
                let report: VerificationReport
                do throws(PackError) {
                    opened = try pack.open(backend: .read)
                    report = try opened.verify()
                } catch {
                    if json { try Output.json(.object([("path", .string(pack.pack)), ("ok", .bool(false)), ("error", error.json)])) }
                    throw error
                }
                if json {
                    try Output.json(
                        .object([
                            ("path", .string(opened.path)), ("ok", .bool(true)),
                            ("format", .string(opened.metadata.map { "pack/\($0.formatVersion)" } ?? "zip")),
                            ("entries", .number(report.entryCount)), ("checkedBytes", .unsigned(report.checkedBytes)),
                            ("sha256Checked", .number(report.hashedEntries)),
                        ]))
                } else {
                    let how = report.hashedEntries > 0 ? "CRC-32 and SHA-256" : "CRC-32"
                    try Output.line(
                        "\(opened.path): OK, \(report.entryCount) entries, \(report.checkedBytes) bytes checked (\(how))")
                }
            }
        }
    }

    struct Info: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show what a pack says about itself.",
            discussion: """
                With --json, one object. A pack: {"path", "format": "pack/2" (or "pack/1"), "name", "locale" \
                (null for a base pack), "contentVersion" (or null), "entries" (content entries), \
                "alignment", "digest", "fileSize", "contentSize", "indexSize"}. Any other zip: \
                {"path", "format": "zip", "entries", "stored", "deflated", "fileSize", \
                "contentSize", "storedSize"}. Sizes are in bytes.
                """)

        @OptionGroup var pack: PackArgument

        @Flag(help: "Print one JSON object (the fields are in the discussion above).")
        var json = false

        func run() throws {
            try reportingErrors {
                let pack = try pack.open()
                var contentBytes: UInt64 = 0
                var storedBytes: UInt64 = 0
                var deflated = 0
                for entry in pack.entries {
                    contentBytes += entry.size
                    storedBytes += try pack.zipDetails(of: entry).storedSize
                    if entry.compression == .deflated { deflated += 1 }
                }
                var fields: [(key: String, label: String, value: JSON)] = [("path", "path", .string(pack.path))]
                if let metadata = pack.metadata {
                    let indexSize = UInt64(try pack.indexData()?.count ?? 0)
                    fields += [
                        ("format", "format", .string("pack/\(metadata.formatVersion)")),
                        ("name", "name", .string(metadata.name)),
                        ("locale", "locale", .optional(metadata.locale)),
                        ("contentVersion", "content version", .optional(metadata.contentVersion)),
                        ("entries", "entries", .number(metadata.entryCount)),
                        ("alignment", "alignment", .number(metadata.alignment)),
                        ("digest", "digest", .string(metadata.digest)),
                        ("fileSize", "file size", .unsigned(pack.fileSize)),
                        ("contentSize", "content size", .unsigned(contentBytes)),
                        ("indexSize", "index size", .unsigned(indexSize)),
                    ]
                } else {
                    fields += [
                        ("format", "format", .string("zip")), ("entries", "entries", .number(pack.count)),
                        ("stored", "stored", .number(pack.count - deflated)), ("deflated", "deflated", .number(deflated)),
                        ("fileSize", "file size", .unsigned(pack.fileSize)),
                        ("contentSize", "content size", .unsigned(contentBytes)),
                        ("storedSize", "stored size", .unsigned(storedBytes)),
                    ]
                }
                if json {
                    try Output.json(.object(fields.map { ($0.key, $0.value) }))
                    return
                }
                for field in fields {
                    let text: String
                    switch (field.key, field.value) {
                    case ("format", .string(let value)): text = value == "zip" ? "zip (no pack index)" : value
                    case ("locale", .null): text = "none (base pack)"
                    case ("contentVersion", .null): text = "none"
                    case ("entries", .number(let value)) where pack.metadata != nil: text = "\(value) (+ index)"
                    case (_, .string(let value)): text = value
                    case (_, .number(let value)): text = String(value)
                    case (_, .unsigned(let value)): text = field.label.hasSuffix("size") ? "\(value) bytes" : String(value)
                    default: text = field.value.text
                    }
                    try Output.line((field.label + ":").padding(17) + text)
                }
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
