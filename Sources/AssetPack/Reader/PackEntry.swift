/// One entry of a pack: its path and where and how its bytes are stored.
public struct PackEntry: Sendable, Hashable {
    /// The entry's path inside the pack (`Images/latin/a@2x.png`), made from ``pathBytes``.
    public var path: String { String(decoding: pathBytes, as: UTF8.self) }
    /// The path's UTF-8 bytes: a view of the pack's path table (no copy per entry; an entry
    /// kept after its pack is gone keeps that table alive).
    public let pathBytes: ArraySlice<UInt8>
    /// The entry's position in the pack (its central directory record's number).
    public let entryNumber: Int
    /// The size of the entry's bytes.
    public let size: UInt64
    /// The size as stored (equal to ``size`` for stored entries).
    public let compressedSize: UInt64
    /// The CRC-32 of the entry's bytes, as recorded.
    public let crc32: UInt32
    /// The zip compression method (0 stored, 8 deflated).
    public let method: UInt16
    /// Whether the entry is encrypted (such entries cannot be read).
    public let isEncrypted: Bool
    /// Where the data starts, when known without reading the local header.
    let knownDataOffset: UInt64?
    /// Where the local header starts, when known (foreign zips).
    public let localHeaderOffset: UInt64?

    /// Whether the entry is a folder entry (a foreign zip's `name/`).
    public var isDirectory: Bool { pathBytes.last == UInt8(ascii: "/") }

    /// A short name for the method: `stored`, `deflated` or `method N`.
    public var methodName: String {
        switch method {
        case ZipConstants.methodStored: "stored"
        case ZipConstants.methodDeflated: "deflated"
        default: "method \(method)"
        }
    }
}

extension Pack {
    /// The entries of a pack in pack order, created on demand.
    public struct Entries: RandomAccessCollection, Sendable {
        let pack: Pack
        public var startIndex: Int { 0 }
        public var endIndex: Int { pack.count }
        public subscript(position: Int) -> PackEntry { pack.makeEntry(position) }
    }

    /// The entry with number `entryNumber` (0 ..< ``count``), in pack order.
    public func entry(at entryNumber: Int) -> PackEntry { makeEntry(entryNumber) }

    /// The number of the entry at `path`, if there is one: O(1), no allocation.
    public func entryNumber(of path: String) -> Int? { entryNumber(forPath: path) }

    /// Where `entry`'s data starts in the file (reads the local header for foreign zips).
    public func dataOffset(of entry: PackEntry) throws(PackError) -> UInt64 {
        if let known = entry.knownDataOffset { return known }
        return try dataOffset(entryNumber: entry.entryNumber)
    }

    /// An item of a folder listing: a file, or a sub-folder.
    public struct FolderItem: Sendable, Hashable {
        /// The item's name inside the folder (no `/`).
        public let name: String
        /// The full path (a folder's path has no trailing `/`).
        public let path: String
        /// The entry, for a file; `nil` for a sub-folder.
        public let entry: PackEntry?
        public var isFolder: Bool { entry == nil }
    }

    /// The files and sub-folders directly inside `folder` (`""` for the top), in path order.
    ///
    /// O(log n + k) for a folder with k entries below it: entries are kept in path order, so a
    /// folder's entries are contiguous.
    public func contentsOfFolder(_ folder: String) -> [FolderItem] {
        var prefix = Array(folder.utf8)
        while prefix.last == UInt8(ascii: "/") { prefix.removeLast() }
        if !prefix.isEmpty { prefix.append(UInt8(ascii: "/")) }
        var items: [FolderItem] = []
        var position = table.lowerBound(prefix)
        while position < table.count {
            let number = table.sorted(position)
            let bytes = table.pathBytes(number)
            guard bytes.starts(with: prefix) else { break }
            let rest = bytes.dropFirst(prefix.count)
            position += 1
            if let slash = rest.firstIndex(of: UInt8(ascii: "/")), slash != rest.index(before: rest.endIndex) {
                let name = rest[..<slash]
                items.append(
                    FolderItem(
                        name: String(decoding: name, as: UTF8.self),
                        path: String(decoding: prefix + name, as: UTF8.self), entry: nil))
                // Skip everything under this sub-folder: all paths starting with prefix + name + "/".
                var bound = prefix + name
                bound.append(UInt8(ascii: "/") + 1)
                position = max(position, table.lowerBound(bound))
            } else if !rest.isEmpty {
                let name = rest.last == UInt8(ascii: "/") ? rest.dropLast() : rest
                if rest.last == UInt8(ascii: "/"), items.last?.name == String(decoding: name, as: UTF8.self) {
                    continue
                }
                items.append(
                    FolderItem(
                        name: String(decoding: name, as: UTF8.self),
                        path: String(decoding: prefix + name, as: UTF8.self),
                        entry: rest.last == UInt8(ascii: "/") ? nil : makeEntry(number)))
            }
        }
        return items
    }
}
