import Foundation
import SystemPackage

/// An opened pack: a read-only, memory-mapped zip with O(1) lookup by path.
///
/// ```swift
/// let pack = try Pack(contentsOf: url)                           // or Pack(path:)
/// let bytes = try pack.data(forPath: "Images/latin/a@2x.png")   // zero-copy view
/// let png = bytes.data                                           // Data, still no copy
/// for item in pack.contentsOfDirectory(atPath: "Decks") { print(item.name) }
/// ```
///
/// What a pack shows is its content: ``count``, ``entries``, lookups and directory listings
/// leave out the pack's own index (`.pack/index.json`), which ``metadata`` and ``indexData()``
/// give instead.
///
/// Opening a pack written by the builder reads only the end of the file and the JSON index
/// that the end record's comment points to; it never walks the central directory. It checks the
/// end records, the index's bounds and CRC, and that every indexed entry lies inside the file,
/// before the central directory. Any other zip (Info-ZIP, Python, libzip, ZIPFoundation) is
/// opened through its central directory; its deflated entries are inflated into owned buffers.
///
/// A `Pack` is immutable and `Sendable`: any number of threads may read it without locks.
///
/// - Important: The mapping contract. A mapped pack's file must never be truncated or rewritten
///   in place while it is open: touching a page that no longer exists kills the process with
///   `SIGBUS`, which no Swift code can catch. Replace packs by writing a new file and renaming it
///   over the old one (the builder does), so open readers keep their old, intact file. For
///   untrusted or removable files, open with ``PackBackend/read``, which turns such failures into
///   errors.
public final class Pack: Sendable {
    /// The path the pack was opened from.
    public let path: String
    /// The pack's own description from its index; `nil` for a zip without a pack index.
    public let metadata: PackMetadata?
    /// The file's identity (device, inode, size, modification time) when it was opened.
    public let fileIdentity: FileIdentity
    /// The backend reading the file.
    public let backend: PackBackend

    let source: ByteSource
    let table: EntryTable
    let endRecord: EndRecord

    /// Opens the pack at `path`.
    ///
    /// - Throws: ``PackError`` naming the pack and what is wrong with it.
    public init(path: String, backend: PackBackend = .mapped) throws(PackError) {
        self.path = path
        self.backend = backend
        do throws(PackError) {
            let (source, identity) = try ByteSource.open(path: path, backend: backend)
            self.source = source
            fileIdentity = identity
            (endRecord, metadata, table) = try Self.open(source)
        } catch {
            throw error.at(file: path)
        }
        hasIndex = metadata != nil
        self.count = hasIndex ? table.count - 1 : table.count
    }

    /// A pack over a source already open (``openHashed(path:check:)``).
    init(source: ByteSource, identity: FileIdentity, path: String) throws(PackError) {
        self.path = path
        backend = .read
        self.source = source
        fileIdentity = identity
        do throws(PackError) {
            (endRecord, metadata, table) = try Self.open(source)
        } catch {
            throw error.at(file: path)
        }
        hasIndex = metadata != nil
        self.count = hasIndex ? table.count - 1 : table.count
    }

    /// Opens the pack at a file URL (one from `Bundle.module.url(forResource:withExtension:)`,
    /// say).
    ///
    /// - Throws: ``PackError/Code/invalidArgument`` for a URL that is not a file URL, or what
    ///   opening by path throws.
    public convenience init(contentsOf url: URL, backend: PackBackend = .mapped) throws(PackError) {
        try self.init(path: try filePath(of: url), backend: backend)
    }

    /// The file system path of a file URL, as the library's URL entry points read it.
    ///
    /// - Throws: ``PackError/Code/invalidArgument`` for a URL that is not a file URL.
    package static func path(of url: URL) throws(PackError) -> String { try filePath(of: url) }

    /// Opens the pack at `path`.
    public convenience init(path: FilePath, backend: PackBackend = .mapped) throws(PackError) {
        try self.init(path: path.string, backend: backend)
    }

    /// Opens a pack held in memory (downloaded, or embedded); the bytes are copied once.
    ///
    /// - Parameters:
    ///   - bytes: the pack's bytes.
    ///   - name: how errors name this pack.
    public init<C: Collection<UInt8>>(bytes: C, name: String) throws(PackError) {
        path = name
        backend = .mapped
        let byteCount = bytes.count
        fileIdentity = FileIdentity(device: 0, inode: 0, size: UInt64(byteCount), modificationSeconds: 0, modificationNanoseconds: 0)
        do throws(PackError) {
            let storage = try ByteStorage.heap(capacity: byteCount) { buffer in
                buffer.copyBytes(from: bytes)
                return byteCount
            }
            source = .mapped(storage)
            (endRecord, metadata, table) = try Self.open(source)
        } catch {
            throw error.at(file: name)
        }
        hasIndex = metadata != nil
        self.count = hasIndex ? table.count - 1 : table.count
    }

    /// The size of the pack file in bytes.
    public var fileSize: UInt64 { source.size }

    /// The number of content entries (the pack's own index is not one of them).
    ///
    /// Stored, like ``hasIndex``: every lookup reads it, and deriving it from ``metadata`` copied
    /// that struct (strings and all) on each read.
    public let count: Int

    /// Whether the pack has our index (`false` for other zips).
    public let hasIndex: Bool

    /// The content entries in pack order (the order of the central directory).
    public var entries: Entries { Entries(pack: self, entryCount: count) }

    /// Every zip entry in pack order, the pack's own index included (for tools that show the
    /// zip as it is).
    package var zipEntries: Entries { Entries(pack: self, entryCount: table.count) }

    /// The entry at `path`, if there is one. O(1).
    ///
    /// Paths are matched byte for byte; a path that is not found is retried in NFC, the form the
    /// builder stores names in.
    public func entry(forPath path: String) -> PackEntry? {
        entryNumber(forPath: path).map { makeEntry($0) }
    }

    /// Whether the pack has an entry at `path`.
    public func contains(_ path: String) -> Bool { entryNumber(forPath: path) != nil }

    /// The bytes of the entry at `path`: a zero-copy view for stored entries of a mapped pack.
    ///
    /// - Throws: ``PackError/Code/entryNotFound`` if there is no such entry, or the reasons
    ///   ``data(for:)`` gives.
    public func data(forPath path: String) throws(PackError) -> PackData {
        guard let number = entryNumber(forPath: path) else {
            throw PackError(.entryNotFound, at: .pack(self.path, entry: path))
        }
        return try data(entryNumber: number)
    }

    /// The bytes of `entry`.
    ///
    /// - Throws: ``PackError`` for encrypted entries, unsupported methods, corrupt deflated data
    ///   and, with the read backend, I/O errors.
    public func data(for entry: PackEntry) throws(PackError) -> PackData {
        try data(entryNumber: entry.entryNumber)
    }

    /// The SHA-256 of the entry's bytes as the pack's index lists it: format 2 lists one for every
    /// entry; `nil` for format-1 packs and zips without an index. ``verify()`` checks it against
    /// the bytes; a delivery client compares it to tell which entries changed.
    public func sha256(of entry: PackEntry) throws(PackError) -> EntryHash? {
        try sha256(entryNumber: entry.entryNumber)
    }

    /// The listed SHA-256 of entry `number` (a content entry).
    package func sha256(entryNumber number: Int) throws(PackError) -> EntryHash? {
        guard hasIndex, number < table.hashedCount else { return nil }
        let indexOffset = table.row(table.count - 1).dataOffset
        let at = indexOffset + UInt64(table.hashPositions[number])
        let digits = try source.bytes(at: at, count: 64)
        guard let hash = digits.withUnsafeBytes({ EntryHash(hexDigits: $0) }) else {
            // The parser checked these digits when the pack was opened; the file changed since.
            throw PackError(.badIndex, "the SHA-256 listed for entry \(number) is not hex", at: .pack(path, offset: at))
        }
        return hash
    }

    /// The JSON index as stored in the pack, or `nil` for a zip without one.
    public func indexData() throws(PackError) -> PackData? {
        guard hasIndex else { return nil }
        return try data(entryNumber: table.count - 1)
    }

    // MARK: - Internals shared with listing and verification

    /// The bytes of the zip entry at `path`, the pack's own index included (for tools that show
    /// the zip as it is: `packtool cat PACK .pack/index.json`).
    package func zipData(forPath path: String) throws(PackError) -> PackData {
        guard let number = path.utf8.elementsEqual(PackPath.indexPath.utf8) && hasIndex ? table.count - 1 : entryNumber(forPath: path)
        else { throw PackError(.entryNotFound, at: .pack(self.path, entry: path)) }
        return try data(entryNumber: number)
    }

    /// The entry number of the content entry at `path` (never the pack's index): O(1), no
    /// allocation.
    package func entryNumber(forPath path: String) -> Int? {
        var path = path
        let found: Int?
        if let exact = path.withUTF8({ table.lookup(UnsafeRawBufferPointer($0)) }) {
            found = exact
        } else {
            guard path.utf8.contains(where: { $0 >= 0x80 }) else { return nil }
            var normalized = path.precomposedStringWithCanonicalMapping
            guard !normalized.utf8.elementsEqual(path.utf8) else { return nil }
            found = normalized.withUTF8 { table.lookup(UnsafeRawBufferPointer($0)) }
        }
        guard let found, found < count else { return nil }
        return found
    }

    /// The entry with number `number` (any zip entry, the index included).
    package func makeEntry(_ number: Int) -> PackEntry {
        let row = table.row(number)
        return PackEntry(
            pathBytes: table.pathBytes(number), entryNumber: number, size: row.size, crc32: row.crc32,
            compression: PackEntry.Compression(method: row.method))
    }

    /// Where the entry's data starts. For a foreign zip this reads the entry's local header and
    /// checks that it agrees with the central directory record (name, method, flags, and CRC and
    /// sizes unless a data descriptor carries them), so what is served is what the directory
    /// describes.
    func dataOffset(entryNumber number: Int) throws(PackError) -> UInt64 {
        let row = table.row(number)
        if row.dataOffset != .max { return row.dataOffset }
        let headerOffset = table.localHeaderOffset(number)
        let compressedSize = table.compressedSize(number)
        let local = try LocalHeader.parse(in: source, headerOffset: headerOffset, limit: endRecord.directoryOffset)
        guard local.dataOffset <= endRecord.directoryOffset, compressedSize <= endRecord.directoryOffset - local.dataOffset
        else {
            throw PackError(
                .entryOutOfBounds,
                "\(compressedSize) bytes at \(local.dataOffset) run past the central directory at \(endRecord.directoryOffset)",
                at: .pack(path, entry: table.path(number), offset: headerOffset))
        }
        if let mismatch = local.disagreement(
            withName: table.pathBytes(number), method: row.method, flags: row.flags, crc32: row.crc32,
            size: row.size, compressedSize: compressedSize)
        {
            throw PackError(.headerMismatch, mismatch, at: .pack(path, entry: table.path(number), offset: headerOffset))
        }
        return local.dataOffset
    }

    func data(entryNumber number: Int) throws(PackError) -> PackData {
        // The hot path: a stored entry of a mapped pack opened through its index, whose bounds
        // were checked at open. A view into the mapping, nothing else.
        let row = table.row(number)
        if row.dataOffset != .max, row.method == ZipConstants.methodStored, case .mapped(let storage) = source {
            return PackData(storage: storage, start: Int(row.dataOffset), count: Int(row.size))
        }
        do throws(PackError) {
            return try readData(row, number)
        } catch {
            var located = error
            if located.location.entry == nil { located.location.entry = table.path(number) }
            if located.location.offset == nil {
                located.location.offset = row.dataOffset == .max ? table.localHeaderOffset(number) : row.dataOffset
            }
            throw located.at(file: path)
        }
    }

    private func readData(_ row: IndexRow, _ number: Int) throws(PackError) -> PackData {
        if row.dataOffset != .max, row.method == ZipConstants.methodStored {
            return try source.bytes(at: row.dataOffset, count: Int(row.size))
        }
        guard row.flags & ZipConstants.flagEncrypted == 0 else { throw PackError(.encrypted) }
        let offset = try dataOffset(entryNumber: number)
        let compressedSize = table.compressedSize(number)
        guard compressedSize <= UInt64(Int.max) else { throw PackError(.tooLarge) }
        let raw = try source.bytes(at: offset, count: Int(compressedSize))
        switch row.method {
        case ZipConstants.methodStored:
            guard compressedSize == row.size else {
                throw PackError(.sizeMismatch, "stored entry has size \(row.size) but \(compressedSize) bytes")
            }
            return raw
        case ZipConstants.methodDeflated:
            return try Inflater.inflate(raw, size: row.size, crc32: row.crc32)
        default:
            throw PackError(.unsupportedMethod, "method \(row.method)")
        }
    }
}
