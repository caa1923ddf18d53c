/// Writes the JSON index: metadata, then the files nested one object per folder, each file an
/// array `[entryNumber, dataOffset, size, crc32, "sha256"]` (format 2; format 1 has no hash).
/// Entries must come sorted by path bytes, which makes every folder's files contiguous and the
/// output deterministic.
enum IndexWriter {
    static func json(metadata: PackMetadata, entries: [ZipEntryLocation]) -> [UInt8] {
        var out: [UInt8] = []
        let hashed = metadata.formatVersion >= 2
        out.reserveCapacity(256 + entries.count * (hashed ? 116 : 48))
        out += Array("{\"format\":\(metadata.formatVersion),\"name\":".utf8)
        JSONEscape.append(Array(metadata.name.utf8), to: &out)
        if let locale = metadata.locale {
            out += Array(",\"locale\":".utf8)
            JSONEscape.append(Array(locale.utf8), to: &out)
        }
        if let version = metadata.contentVersion {
            out += Array(",\"contentVersion\":".utf8)
            JSONEscape.append(Array(version.utf8), to: &out)
        }
        out += Array(",\"alignment\":\(metadata.alignment),\"entryCount\":\(metadata.entryCount),\"digest\":".utf8)
        JSONEscape.append(Array(metadata.digest.utf8), to: &out)
        out += Array(",\"files\":{".utf8)
        // The folders open in `out`, as ranges of the previous entry's path.
        var previous: [UInt8] = []
        var openFolders: [Range<Int>] = []
        var firstInObject = true
        for entry in entries {
            let path = entry.path
            // The folders this path shares with the previous one stay open; the rest close.
            var shared = 0
            var componentStart = 0
            while shared < openFolders.count {
                let folder = openFolders[shared]
                let end = componentStart + folder.count
                guard end < path.count, path[end] == UInt8(ascii: "/"),
                    path[componentStart..<end].elementsEqual(previous[folder])
                else { break }
                shared += 1
                componentStart = end + 1
            }
            if openFolders.count > shared {
                out += repeatElement(UInt8(ascii: "}"), count: openFolders.count - shared)
                openFolders.removeLast(openFolders.count - shared)
                firstInObject = false
            }
            while let slash = path[componentStart...].firstIndex(of: UInt8(ascii: "/")) {
                if !firstInObject { out.append(UInt8(ascii: ",")) }
                JSONEscape.append(path[componentStart..<slash], to: &out)
                out += [UInt8(ascii: ":"), UInt8(ascii: "{")]
                openFolders.append(componentStart..<slash)
                firstInObject = true
                componentStart = slash + 1
            }
            if !firstInObject { out.append(UInt8(ascii: ",")) }
            JSONEscape.append(path[componentStart...], to: &out)
            out.append(UInt8(ascii: ":"))
            out.append(UInt8(ascii: "["))
            appendDecimal(UInt64(entry.number), to: &out)
            out.append(UInt8(ascii: ","))
            appendDecimal(entry.dataOffset, to: &out)
            out.append(UInt8(ascii: ","))
            appendDecimal(entry.size, to: &out)
            out.append(UInt8(ascii: ","))
            appendDecimal(UInt64(entry.crc32), to: &out)
            if hashed {
                out += [UInt8(ascii: ","), UInt8(ascii: "\"")]
                entry.sha256?.withHexDigits { out.append(contentsOf: $0) }
                out.append(UInt8(ascii: "\""))
            }
            out.append(UInt8(ascii: "]"))
            firstInObject = false
            previous = path
        }
        out += [UInt8](repeating: UInt8(ascii: "}"), count: openFolders.count)
        out += Array("}}\n".utf8)
        return out
    }

    /// `value` in decimal, without going through a String.
    static func appendDecimal(_ value: UInt64, to out: inout [UInt8]) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var rest = value
            var start = 20
            repeat {
                start -= 1
                digits[start] = UInt8(ascii: "0") + UInt8(rest % 10)
                rest /= 10
            } while rest > 0
            out.append(contentsOf: UnsafeBufferPointer(rebasing: digits[start...]))
        }
    }
}
