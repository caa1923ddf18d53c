#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Builds a pack: a standard, uncompressed, deterministic, aligned zip with a JSON index.
///
/// ```swift
/// var builder = PackBuilder(options: .init(name: "letters", alignment: 16))
/// try builder.addFolder("Packs/letters")
/// try builder.add(path: "notes/extra.txt", contents: Array("hello".utf8))
/// let report = try builder.write(to: "out/letters.pack")
/// ```
///
/// Entries are sorted by their UTF-8 path bytes, stored (never compressed), stamped with one fixed
/// time and mode 0644, and their data aligned with an Android 0xD935 extra block. Names are checked
/// and NFC-normalized as they are added; names that collide on a case-insensitive file system are
/// an error naming both. Source files are read ahead on worker threads. The pack is written to a
/// temporary file next to the destination, its records checked (``Pack/verify()`` without
/// re-reading the data, whose CRC-32s were computed as it was written), synced and renamed over
/// the destination, so the destination is always either the complete old pack or the complete
/// new one.
public struct PackBuilder {
    /// How a pack is built.
    public struct Options: Sendable, Equatable {
        /// The pack's name for its index; `nil` uses the destination's base name.
        public var name: String?
        /// The alignment of every entry's data: a power of two from 1 to 32,768.
        public var alignment: Int
        /// The BCP 47 tag of a locale pack; `nil` for a base pack.
        public var locale: String?
        /// A free-form content version.
        public var contentVersion: String?
        /// The entries' timestamp, in seconds since 1970 (e.g. `SOURCE_DATE_EPOCH`); `nil` for
        /// the DOS epoch, 1980-01-01.
        public var timestamp: Int64?

        public init(
            name: String? = nil, alignment: Int = 16, locale: String? = nil, contentVersion: String? = nil,
            timestamp: Int64? = nil
        ) {
            self.name = name
            self.alignment = alignment
            self.locale = locale
            self.contentVersion = contentVersion
            self.timestamp = timestamp
        }
    }

    /// What a build wrote.
    public struct Report: Sendable, Equatable {
        public var path: String
        public var metadata: PackMetadata
        public var fileSize: UInt64
        public var contentBytes: UInt64
        public var indexSize: UInt64
    }

    enum Contents {
        case bytes([UInt8])
        case file(SourceFile)
    }

    struct Entry {
        var path: String
        var utf8: [UInt8]
        /// Where the entry came from, for messages (the file on disk, or the name as given).
        var origin: String
        var contents: Contents
    }

    public let options: Options
    private(set) var entries: [Entry] = []
    /// Simulated disk faults (tests only).
    var faults: WriteFaults?

    public init(options: Options = Options()) {
        self.options = options
    }

    /// The number of entries added so far.
    public var count: Int { entries.count }

    /// Adds an entry with the given bytes.
    ///
    /// - Throws: ``PackError/Code/unsafeName`` if `path` is not a safe name.
    public mutating func add<C: Collection<UInt8>>(path: String, contents: C) throws(PackError) {
        try add(path: path, origin: path, contents: .bytes(Array(contents)))
    }

    /// Adds an entry whose bytes are read from `file` when the pack is written.
    public mutating func add(path: String, contentsOf file: String) throws(PackError) {
        var info = stat()
        guard stat(file, &info) == 0 else { throw PackError.errno(errno, "cannot stat", path: file) }
        guard (info.st_mode & S_IFMT) == S_IFREG else { throw PackError(.io, "not a regular file", path: file) }
        try add(path: path, origin: file, contents: .file(SourceFile(path: file, listed: FileIdentity(info))))
    }

    /// Adds every regular file under `folder`, named by its path relative to `folder`.
    ///
    /// Hidden files and folders (names starting with `.`, such as `.DS_Store` or `.git`) are
    /// skipped. Symbolic links are followed; a link that leads back into a folder being walked
    /// is an error.
    public mutating func addFolder(_ folder: String) throws(PackError) {
        var visited: [FolderWalker.Identity] = []
        for file in try FolderWalker.files(in: folder, visited: &visited) {
            try add(path: file.relativePath, origin: file.source.path, contents: .file(file.source))
        }
    }

    private mutating func add(path: String, origin: String, contents: Contents) throws(PackError) {
        let normalized: String
        do {
            normalized = try PackPath.normalized(path)
        } catch {
            var located = error
            located.path = origin == path ? nil : origin
            throw located
        }
        if normalized.hasPrefix(".pack/") {
            throw PackError(.unsafeName, "the .pack/ folder is reserved for the index", entry: path)
        }
        entries.append(Entry(path: normalized, utf8: Array(normalized.utf8), origin: origin, contents: contents))
    }

    /// Writes the pack to `destination` atomically and checks it.
    @discardableResult
    public func write(to destination: String) throws(PackError) -> Report {
        guard options.alignment >= 1, options.alignment <= 32_768, options.alignment & (options.alignment - 1) == 0
        else {
            throw PackError(.invalidArgument, "alignment \(options.alignment) is not a power of two from 1 to 32768")
        }
        var timestamp = DOSTimestamp.epoch
        if let seconds = options.timestamp {
            guard let converted = DOSTimestamp(unixTime: seconds) else {
                throw PackError(.invalidArgument, "timestamp \(seconds) is past 2107, the end of DOS time")
            }
            timestamp = converted
        }
        let sorted = try Self.sortedCheckingCollisions(entries)
        let name = options.name ?? Self.defaultName(for: destination)
        let publisher = try AtomicPublisher(destination: destination)
        do throws(PackError) {
            let layout = PackLayout(alignment: options.alignment, timestamp: timestamp)
            let output = try OutputFile(creating: publisher.temporaryPath, faults: faults)
            var written: [PackLayout.Written] = []
            written.reserveCapacity(sorted.count + 1)
            var digest = ManifestDigest(
                name: name, locale: options.locale, contentVersion: options.contentVersion,
                alignment: options.alignment)
            var contentBytes: UInt64 = 0
            let reader = SourceReader(sorted)
            for (number, entry) in sorted.enumerated() {
                let result: PackLayout.Written
                switch reader.take(number) {
                case .loaded(let bytes, let crc32):
                    result = try layout.writeEntry(name: entry.utf8, bytes: bytes, crc32: crc32, to: output)
                case .failed(let error): throw error
                case .inline: result = try layout.writeEntry(entry, to: output)
                }
                digest.add(path: entry.utf8, size: result.size, crc32: result.crc32)
                contentBytes += result.size
                written.append(result)
            }
            let metadata = PackMetadata(
                name: name, locale: options.locale, contentVersion: options.contentVersion,
                alignment: options.alignment, entryCount: sorted.count, digest: digest.finish())
            let indexEntries = written.enumerated().map {
                IndexedEntry(
                    number: $0, path: $1.name, dataOffset: $1.dataOffset, size: $1.size, crc32: $1.crc32)
            }
            let json = IndexWriter.json(metadata: metadata, entries: indexEntries)
            let index = try layout.writeEntry(
                Entry(path: PackPath.indexPath, utf8: Array(PackPath.indexPath.utf8), origin: "index",
                    contents: .bytes(json)), to: output)
            written.append(index)
            try layout.writeDirectory(
                written, comment: IndexLocation(offset: index.dataOffset, size: index.size, crc32: index.crc32).comment,
                to: output)
            try output.flush()
            let fileSize = output.position
            try publisher.publish(output)
            return Report(
                path: destination, metadata: metadata, fileSize: fileSize, contentBytes: contentBytes,
                indexSize: UInt64(json.count))
        } catch {
            publisher.discard()
            throw error
        }
    }

    /// Sorts by UTF-8 bytes; duplicate names, case/normalization collisions and a file that is
    /// also a folder's name are errors naming both sources.
    static func sortedCheckingCollisions(_ entries: [Entry]) throws(PackError) -> [Entry] {
        let sorted = entries.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        for (a, b) in zip(sorted, sorted.dropFirst()) where a.utf8 == b.utf8 {
            // The same name twice, or two names equal once NFC-normalized.
            if a.origin.utf8.elementsEqual(b.origin.utf8) { throw PackError(.duplicateName, "added twice", entry: a.path) }
            throw PackError(
                .nameCollision, "\"\(a.origin)\" and \"\(b.origin)\" differ only by Unicode normalization",
                entry: a.path)
        }
        var keys = CollisionKeys(capacity: sorted.count)
        for (number, entry) in sorted.enumerated() {
            keys.makeKey(entry.utf8[...])
            if let other = keys.insert(number) {
                throw PackError(
                    .nameCollision,
                    "\"\(sorted[other].origin)\" and \"\(entry.origin)\" differ only by case or Unicode normalization",
                    entry: entry.path)
            }
        }
        // A file whose name is also a folder's. Entries under one folder are contiguous in byte
        // order, so a folder is checked at the first entry under it: the folders the entry does
        // not share with the one before it, deepest first.
        var previous: [UInt8] = []
        for entry in sorted {
            let name = entry.utf8
            var end = name.count
            while let slash = name[..<end].lastIndex(of: UInt8(ascii: "/")) {
                end = slash
                if previous.count > slash, previous[slash] == UInt8(ascii: "/"), previous[..<slash] == name[..<slash] { break }
                keys.makeKey(name[..<slash])
                if let file = keys.find().map({ sorted[$0] }) {
                    throw PackError(
                        .nameCollision, "\"\(file.origin)\" is a file and also a folder of \"\(entry.origin)\"",
                        entry: file.path)
                }
            }
            previous = name
        }
        return sorted
    }

    static func defaultName(for destination: String) -> String {
        var base = destination.split(separator: "/").last.map(String.init) ?? destination
        if base.hasSuffix(".pack") { base.removeLast(5) }
        return base
    }
}

/// The builder's collision keys (NFC, then lower case, as ``PackPath/collisionKey(_:)``) in one
/// byte arena with an open-addressing table: no string per entry for ASCII names.
struct CollisionKeys {
    private var arena: [UInt8] = []
    /// Entry k's key is `arena[starts[k]..<starts[k + 1]]`.
    private var starts: [Int] = [0]
    /// Entry number + 1; 0 is empty.
    private var slots: [Int32]
    /// The key being inserted or looked up.
    private var key: [UInt8] = []

    init(capacity: Int) {
        var size = 16
        while size < capacity * 2 { size <<= 1 }
        slots = [Int32](repeating: 0, count: size)
        starts.reserveCapacity(capacity + 1)
    }

    /// Makes `name`'s key the current one.
    mutating func makeKey(_ name: ArraySlice<UInt8>) {
        key.removeAll(keepingCapacity: true)
        if name.allSatisfy({ $0 < 0x80 }) {
            for byte in name { key.append(byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte) }
        } else {
            key.append(contentsOf: PackPath.collisionKey(String(decoding: name, as: UTF8.self)).utf8)
        }
    }

    /// Adds entry `number` (the next one) under the current key; returns the entry already
    /// there, if any.
    mutating func insert(_ number: Int) -> Int? {
        var slot = firstSlot()
        while slots[slot] != 0 {
            let other = Int(slots[slot]) - 1
            if matches(other) { return other }
            slot = (slot + 1) & (slots.count - 1)
        }
        slots[slot] = Int32(number + 1)
        arena.append(contentsOf: key)
        starts.append(arena.count)
        return nil
    }

    /// The entry whose key is the current one.
    func find() -> Int? {
        var slot = firstSlot()
        while slots[slot] != 0 {
            let other = Int(slots[slot]) - 1
            if matches(other) { return other }
            slot = (slot + 1) & (slots.count - 1)
        }
        return nil
    }

    private func firstSlot() -> Int {
        key.withUnsafeBytes { Int(truncatingIfNeeded: EntryTable.hash($0)) } & (slots.count - 1)
    }

    private func matches(_ entry: Int) -> Bool { arena[starts[entry]..<starts[entry + 1]].elementsEqual(key) }
}
