import ArgumentParser
import AssetPack

extension PackTool {
    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "ls",
            abstract: "List the entries of a pack in pack order.",
            discussion: "With -l: size, data offset, CRC-32, method and path, one entry per line.")

        @OptionGroup var pack: PackArgument

        @Flag(name: .short, help: "Show size, data offset, CRC-32 and method.")
        var long = false

        @Flag(help: "Print a JSON array of entries.")
        var json = false

        func run() throws {
            try reportingErrors {
                let pack = try pack.open()
                if json {
                    try Output.line("[")
                    for (position, entry) in pack.entries.enumerated() {
                        let comma = position + 1 < pack.count ? "," : ""
                        try Output.line(
                            "{\"path\":\(jsonString(entry.path)),\"size\":\(entry.size),"
                                + "\"compressedSize\":\(entry.compressedSize),\"offset\":\(try pack.dataOffset(of: entry)),"
                                + "\"crc32\":\"\(hex(entry.crc32))\",\"method\":\"\(entry.methodName)\"}\(comma)")
                    }
                    try Output.line("]")
                } else if long {
                    for entry in pack.entries {
                        let offset = try pack.dataOffset(of: entry)
                        try Output.line(
                            pad(String(entry.size), 10) + " " + pad(String(offset), 12) + "  " + hex(entry.crc32)
                                + "  " + entry.methodName.padding(8) + "  " + entry.path)
                    }
                } else {
                    for entry in pack.entries { try Output.line(entry.path) }
                }
            }
        }
    }
}

func pad(_ text: String, _ width: Int) -> String {
    String(repeating: " ", count: max(0, width - text.count)) + text
}

func hex(_ value: UInt32) -> String {
    let digits = String(value, radix: 16)
    return String(repeating: "0", count: 8 - digits.count) + digits
}

/// A JSON string literal for `text`.
func jsonString(_ text: String) -> String {
    var out = "\""
    for scalar in text.unicodeScalars {
        switch scalar {
        case "\"": out += "\\\""
        case "\\": out += "\\\\"
        case "\n": out += "\\n"
        case "\t": out += "\\t"
        case "\r": out += "\\r"
        case _ where String.isControl(scalar):
            let digits = String(scalar.value, radix: 16)
            out += "\\u" + String(repeating: "0", count: 4 - digits.count) + digits
        default: out.unicodeScalars.append(scalar)
        }
    }
    return out + "\""
}

extension String {
    func padding(_ width: Int) -> String { self + String(repeating: " ", count: max(0, width - count)) }
}
