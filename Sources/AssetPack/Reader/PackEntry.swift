/// One entry of a pack: its path, its size and its checksum.
public struct PackEntry: Sendable, Hashable {
    /// How an entry's bytes are stored in the zip.
    public enum Compression: Sendable, Hashable, CustomStringConvertible {
        /// As they are (zip method 0): every entry of a pack.
        case stored
        /// Deflated (zip method 8): entries of other zips, inflated when read.
        case deflated
        /// Another zip method, which cannot be read.
        case unsupported(method: UInt16)

        init(method: UInt16) {
            switch method {
            case ZipConstants.methodStored: self = .stored
            case ZipConstants.methodDeflated: self = .deflated
            default: self = .unsupported(method: method)
            }
        }

        /// `stored`, `deflated` or `method N`.
        public var description: String {
            switch self {
            case .stored: "stored"
            case .deflated: "deflated"
            case .unsupported(let method): "method \(method)"
            }
        }
    }

    /// The entry's path inside the pack (`Images/latin/a@2x.png`), made from ``pathBytes``.
    public var path: String { String(decoding: pathBytes, as: UTF8.self) }
    /// The path's UTF-8 bytes: a view of the pack's path table (no copy per entry; an entry
    /// kept after its pack is gone keeps that table alive).
    public let pathBytes: ArraySlice<UInt8>
    /// The entry's position in the pack (its central directory record's number).
    let entryNumber: Int
    /// The size of the entry's bytes.
    public let size: UInt64
    /// The CRC-32 of the entry's bytes, as recorded.
    public let crc32: UInt32
    /// How the bytes are stored.
    public let compression: Compression

    /// Whether the entry is a directory entry (another zip's `name/`).
    public var isDirectory: Bool { pathBytes.last == UInt8(ascii: "/") }
}

extension Pack {
    /// The entries of a pack in pack order, created on demand.
    public struct Entries: RandomAccessCollection, Sendable {
        let pack: Pack
        let entryCount: Int
        public var startIndex: Int { 0 }
        public var endIndex: Int { entryCount }
        public subscript(position: Int) -> PackEntry {
            precondition(position >= 0 && position < entryCount, "Pack.Entries index out of range")
            return pack.makeEntry(position)
        }
    }

    /// Where and how an entry is stored in the zip: what `packtool ls -l` and `zipinfo` show.
    public struct ZipDetails: Sendable, Hashable {
        /// Where the entry's local header starts.
        public let localHeaderOffset: UInt64?
        /// Where the entry's bytes start.
        public let dataOffset: UInt64
        /// The size as stored (the deflated size of a deflated entry).
        public let storedSize: UInt64
        /// Whether the entry is encrypted (such entries cannot be read).
        public let isEncrypted: Bool
    }

    /// Where and how `entry` is stored (reads its local header in a zip without a pack index).
    public func zipDetails(of entry: PackEntry) throws(PackError) -> ZipDetails {
        let number = entry.entryNumber
        let row = table.row(number)
        let localHeaderOffset = table.localHeaderOffset(number)
        return ZipDetails(
            localHeaderOffset: localHeaderOffset == .max ? nil : localHeaderOffset,
            dataOffset: try dataOffset(entryNumber: number), storedSize: table.compressedSize(number),
            isEncrypted: row.flags & ZipConstants.flagEncrypted != 0)
    }

    /// An item of a directory listing: a file, or a subdirectory.
    public struct DirectoryItem: Sendable, Hashable {
        /// The item's name inside the directory (no `/`).
        public let name: String
        /// The full path (a directory's path has no trailing `/`).
        public let path: String
        /// The entry, for a file; `nil` for a subdirectory.
        public let entry: PackEntry?
        /// Whether the item is a subdirectory.
        public var isDirectory: Bool { entry == nil }
    }

    /// The files and subdirectories directly inside the directory at `path` (`""` for the top),
    /// in path order; the pack's own index is not listed.
    ///
    /// O(log n + k) for a directory with k entries below it: entries are kept in path order, so a
    /// directory's entries are contiguous.
    public func contentsOfDirectory(atPath path: String) -> [DirectoryItem] {
        var prefix = Array(path.utf8)
        while prefix.last == UInt8(ascii: "/") { prefix.removeLast() }
        if !prefix.isEmpty { prefix.append(UInt8(ascii: "/")) }
        var items: [DirectoryItem] = []
        var position = table.lowerBound(prefix)
        while position < table.count {
            let number = table.sorted(position)
            let bytes = table.pathBytes(number)
            guard bytes.starts(with: prefix) else { break }
            let rest = bytes.dropFirst(prefix.count)
            position += 1
            // The pack's own index (the only entry under .pack/) is not content.
            if number >= count { continue }
            if let slash = rest.firstIndex(of: UInt8(ascii: "/")), slash != rest.index(before: rest.endIndex) {
                let name = rest[..<slash]
                items.append(
                    DirectoryItem(
                        name: String(decoding: name, as: UTF8.self),
                        path: String(decoding: prefix + name, as: UTF8.self), entry: nil))
                // Skip everything under this subdirectory: all paths starting with prefix + name + "/".
                var bound = prefix + name
                bound.append(UInt8(ascii: "/") + 1)
                position = max(position, table.lowerBound(bound))
            } else if !rest.isEmpty {
                let name = rest.last == UInt8(ascii: "/") ? rest.dropLast() : rest
                if rest.last == UInt8(ascii: "/"), items.last?.name == String(decoding: name, as: UTF8.self) {
                    continue
                }
                items.append(
                    DirectoryItem(
                        name: String(decoding: name, as: UTF8.self),
                        path: String(decoding: prefix + name, as: UTF8.self),
                        entry: rest.last == UInt8(ascii: "/") ? nil : makeEntry(number)))
            }
        }
        return items
    }
}
