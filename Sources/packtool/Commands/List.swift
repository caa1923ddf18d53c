import ArgumentParser
import AssetPack

extension PackTool {
    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "ls",
            abstract: "List the entries of a pack (or any zip) in pack order, the pack's index included.",
            discussion: """
                With -l: size, data offset, CRC-32, method and path, one entry per line (as zipinfo).
                With --json: one JSON array, an object per entry: {"path", "size", "compressedSize" \
                (the size as stored), "offset" (where the data starts), "crc32" (8 hex digits), \
                "method" ("stored", "deflated" or "method N")}.
                """)

        @OptionGroup var pack: PackArgument

        @Flag(name: .short, help: "Show size, data offset, CRC-32 and method.")
        var long = false

        @Flag(help: "Print a JSON array of entries (the fields are in the discussion above).")
        var json = false

        func run() throws {
            try reportingErrors {
                let pack = try pack.open()
                if json {
                    var entries: [JSON] = []
                    for entry in pack.zipEntries {
                        let details = try pack.zipDetails(of: entry)
                        entries.append(
                            .object([
                                ("path", .string(entry.path)), ("size", .unsigned(entry.size)),
                                ("compressedSize", .unsigned(details.storedSize)), ("offset", .unsigned(details.dataOffset)),
                                ("crc32", .string(hex(entry.crc32))), ("method", .string(entry.compression.description)),
                            ]))
                    }
                    try Output.json(.array(entries))
                } else if long {
                    for entry in pack.zipEntries {
                        let offset = try pack.zipDetails(of: entry).dataOffset
                        try Output.line(
                            pad(String(entry.size), 10) + " " + pad(String(offset), 12) + "  " + hex(entry.crc32)
                                + "  " + entry.compression.description.padding(8) + "  " + entry.path)
                    }
                } else {
                    for entry in pack.zipEntries { try Output.line(entry.path) }
                }
            }
        }
    }
}
