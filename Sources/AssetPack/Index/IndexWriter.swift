/// Writes the JSON index: metadata, then the files nested one object per folder, each file an
/// array `[entryNumber, dataOffset, size, crc32]`. Entries must come sorted by path bytes, which
/// makes every folder's files contiguous and the output deterministic.
enum IndexWriter {
    static func json(metadata: PackMetadata, entries: [IndexedEntry]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(256 + entries.count * 48)
        out += Array("{\"format\":\(metadata.formatVersion),\"name\":".utf8)
        appendString(Array(metadata.name.utf8), to: &out)
        if let locale = metadata.locale {
            out += Array(",\"locale\":".utf8)
            appendString(Array(locale.utf8), to: &out)
        }
        if let version = metadata.contentVersion {
            out += Array(",\"contentVersion\":".utf8)
            appendString(Array(version.utf8), to: &out)
        }
        out += Array(",\"alignment\":\(metadata.alignment),\"entryCount\":\(metadata.entryCount),\"digest\":".utf8)
        appendString(Array(metadata.digest.utf8), to: &out)
        out += Array(",\"files\":{".utf8)
        var openFolders: [[UInt8]] = []
        var firstInObject = true
        for entry in entries {
            var components = entry.path.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false).map(Array.init)
            let file = components.removeLast()
            var shared = 0
            while shared < openFolders.count, shared < components.count, openFolders[shared] == components[shared] {
                shared += 1
            }
            while openFolders.count > shared {
                openFolders.removeLast()
                out.append(UInt8(ascii: "}"))
                firstInObject = false
            }
            for folder in components[shared...] {
                if !firstInObject { out.append(UInt8(ascii: ",")) }
                appendString(folder, to: &out)
                out += [UInt8(ascii: ":"), UInt8(ascii: "{")]
                openFolders.append(folder)
                firstInObject = true
            }
            if !firstInObject { out.append(UInt8(ascii: ",")) }
            appendString(file, to: &out)
            out += Array(":[\(entry.number),\(entry.dataOffset),\(entry.size),\(entry.crc32)]".utf8)
            firstInObject = false
        }
        out += [UInt8](repeating: UInt8(ascii: "}"), count: openFolders.count)
        out += Array("}}\n".utf8)
        return out
    }

    /// A JSON string: UTF-8 kept as is, `"` and `\` escaped, control characters as `\u00XX`.
    static func appendString(_ bytes: [UInt8], to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"):
                out += [UInt8(ascii: "\\"), byte]
            case 0..<0x20:
                out += Array("\\u00".utf8)
                let digits = Array("0123456789abcdef".utf8)
                out += [digits[Int(byte >> 4)], digits[Int(byte & 15)]]
            default:
                out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }
}
