import Foundation
import SystemPackage

/// Builds a pack: a standard, uncompressed, deterministic, aligned zip with a JSON index.
///
/// ```swift
/// var builder = PackBuilder(options: .init(name: "letters", alignment: 16))
/// try builder.addDirectory(atPath: "Packs/letters")
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
        /// The pack format: 2 (the default) lists every entry's SHA-256 in the index and digests
        /// them; 1 lists CRC-32s only. Format 1 is kept for one release, for readers that predate
        /// format 2, and will then be removed.
        public var format: Int

        /// The pack formats this library writes.
        public static let writableFormats = 1...2

        /// Options for a build; the defaults make a format-2 base pack aligned to 16 bytes, named
        /// after its file, stamped 1980-01-01.
        public init(
            name: String? = nil, alignment: Int = 16, locale: String? = nil, contentVersion: String? = nil,
            timestamp: Int64? = nil, format: Int = 2
        ) {
            self.format = format
            self.name = name
            self.alignment = alignment
            self.locale = locale
            self.contentVersion = contentVersion
            self.timestamp = timestamp
        }

        /// Checks the options: alignment, timestamp and locale tag.
        ///
        /// - Throws: ``PackError/Code/invalidArgument`` or ``PackError/Code/malformedLocale``.
        public func check() throws(PackError) { _ = try validated() }

        /// Checks the options; returns the entries' DOS timestamp.
        func validated() throws(PackError) -> DOSTimestamp {
            guard isValidAlignment(alignment) else {
                throw PackError(.invalidArgument, "alignment \(alignment) is not a power of two from 1 to \(ZipConstants.maxAlignment)")
            }
            if let name, let problem = PackMetadata.nameProblem(name) {
                throw PackError(.invalidArgument, "pack name \"\(name)\": \(problem)")
            }
            if let locale {
                _ = try LocaleTag(locale)
                if let problem = PackMetadata.localeProblem(locale) { throw PackError(.malformedLocale, problem) }
            }
            guard Self.writableFormats.contains(format) else {
                throw PackError(.invalidArgument, "format \(format) is not 1 or 2")
            }
            guard let seconds = timestamp else { return .epoch }
            guard let converted = DOSTimestamp(unixTime: seconds) else {
                throw PackError(.invalidArgument, "timestamp \(seconds) is past 2107, the end of DOS time")
            }
            return converted
        }
    }

    /// What a build wrote.
    public struct Report: Sendable, Equatable {
        /// The pack written.
        public var path: String
        /// What its index says about it (name, locale, entry count, digest).
        public var metadata: PackMetadata
        /// The pack's size in bytes.
        public var fileSize: UInt64
        /// The bytes of all content entries.
        public var contentBytes: UInt64
        /// The size of the JSON index in bytes.
        public var indexSize: UInt64
        /// What the write did to the destination.
        public var outcome: Outcome = .written
    }

    /// What a write did to the destination.
    public enum Outcome: Sendable, Equatable {
        /// The pack was written and renamed into place.
        case written
        /// The destination already held the pack of these inputs (its stamp matched): nothing was
        /// read or written.
        case upToDate
        /// The pack was built again (the inputs' stamp differed, as after a `git checkout` that
        /// touches modification times) and came out byte-identical: the destination was kept as it
        /// was, its modification time and identity unchanged.
        case unchanged
    }

    enum Contents {
        case bytes([UInt8])
        case file(ListedSourceFile)
    }

    /// An entry added but not written yet: its normalized path, where it came from, and its bytes
    /// or the source file they will be read from when the pack is laid out.
    struct PendingEntry {
        var path: String
        var utf8: [UInt8]
        /// Where the entry came from, for messages (the file on disk, or the name as given).
        var origin: String
        var contents: Contents
    }

    /// How the pack is built.
    public let options: Options
    private(set) var entries: [PendingEntry] = []
    /// Simulated disk faults (tests only).
    var faults: WriteFaults?

    /// A builder with no entries yet.
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

    /// Adds an entry whose bytes are read from the file at `url` when the pack is written.
    public mutating func add(path: String, contentsOf url: URL) throws(PackError) {
        try add(path: path, contentsOfFile: try filePath(of: url))
    }

    /// Adds an entry whose bytes are read from `file` when the pack is written.
    ///
    /// - Throws: ``PackError/Code/notRegularFile`` unless `file` is a regular file (a symbolic
    ///   link to one is followed).
    public mutating func add(path: String, contentsOfFile file: String) throws(PackError) {
        let status: Stat
        switch Platform.system({ try FilePath(file).stat() }) {
        case .success(let found): status = found
        case .failure(let error): throw PackError.system(error, "cannot stat", at: .file(file))
        }
        guard status.type == .regular else {
            throw PackError(.notRegularFile, "it is \(FileAccess.describe(status.type))", at: .file(file))
        }
        try add(path: path, origin: file, contents: .file(ListedSourceFile(path: file, listed: FileIdentity(status))))
    }

    /// Adds every regular file under the directory at `url`, named by its path relative to it
    /// (see ``addDirectory(atPath:)``).
    public mutating func addDirectory(at url: URL) throws(PackError) {
        try addDirectory(atPath: try filePath(of: url))
    }

    /// Adds every regular file under the directory at `path` (see ``addDirectory(atPath:)``).
    public mutating func addDirectory(at path: FilePath) throws(PackError) {
        try addDirectory(atPath: path.string)
    }

    /// Adds every regular file under `directory`, named by its path relative to `directory`.
    ///
    /// Hidden files and folders (names starting with `.`, such as `.DS_Store` or `.git`) are
    /// skipped. Symbolic links are followed; a link that leads back into a folder being walked
    /// is an error.
    public mutating func addDirectory(atPath directory: String) throws(PackError) {
        for file in try FolderWalker.files(in: directory) {
            try add(path: file.relativePath, origin: file.source.path, contents: .file(file.source))
        }
    }

    private mutating func add(path: String, origin: String, contents: Contents) throws(PackError) {
        let normalized: String
        do {
            normalized = try PackPath.normalized(path)
        } catch {
            var located = error
            located.location.file = origin == path ? nil : origin
            throw located
        }
        if normalized.hasPrefix(".pack/") {
            throw PackError(.unsafeName, "the .pack/ folder is reserved for the index", at: .pack(entry: path))
        }
        entries.append(PendingEntry(path: normalized, utf8: Array(normalized.utf8), origin: origin, contents: contents))
    }

    /// Writes the pack to the file URL `url` atomically and checks it (see ``write(to:)-(String)``).
    @discardableResult
    public func write(to url: URL) throws(PackError) -> Report {
        try write(to: try filePath(of: url))
    }

    /// Writes the pack to `destination` atomically and checks it (see ``write(to:)-(String)``).
    @discardableResult
    public func write(to destination: FilePath) throws(PackError) -> Report {
        try write(to: destination.string)
    }

    /// Writes the pack to `destination` atomically and checks it.
    ///
    /// - Throws: ``PackError`` for invalid options (alignment, a timestamp past 2107, a malformed
    ///   locale), name collisions, unreadable or changing source files, and any I/O failure; the
    ///   destination then still holds its old contents.
    @discardableResult
    public func write(to destination: String) throws(PackError) -> Report {
        try write(to: destination, keepingIdentical: false)
    }

    /// The pack's name: the one given, or the destination's base name, which must be one a pack
    /// may have (``PackMetadata/nameProblem(_:)``).
    static func packName(_ given: String?, destination: String) throws(PackError) -> String {
        let name = given ?? PackMetadata.defaultName(forFile: destination)
        if let problem = PackMetadata.nameProblem(name) {
            throw PackError(.invalidArgument, "pack name \"\(name)\": \(problem)" + (given == nil ? " (give one with --name)" : ""))
        }
        return name
    }

    /// Writes the pack, or with `keepingIdentical` leaves a destination that already holds the
    /// very same bytes untouched.
    func write(to destination: String, keepingIdentical: Bool, workFolder: String? = nil) throws(PackError) -> Report {
        let timestamp = try options.validated()
        let sorted = try Self.sortedCheckingCollisions(entries)
        let name = try Self.packName(options.name, destination: destination)
        let publisher = try ReplacementFile(destination: destination, workFolder: workFolder)
        do throws(PackError) {
            let output = try OutputFile(creating: publisher.temporaryPath, faults: faults)
            var report = try Self.layOut(sorted, name: name, options: options, timestamp: timestamp, into: output)
            report.path = destination
            if keepingIdentical, FileComparison.sameBytes(publisher.temporaryPath, destination) {
                publisher.discard()
                report.outcome = .unchanged
                return report
            }
            try publisher.publish(output)
            return report
        } catch {
            publisher.discard()
            throw error
        }
    }

    /// Changes a test makes to a pack while it is laid out, to forge damaged packs with the
    /// builder's own layout.
    struct LayoutHooks {
        /// Edits the index JSON before it is written.
        var editIndex: ((inout [UInt8]) -> Void)?
        /// The end record's comment, instead of the index location.
        var comment: ((IndexLocation) -> [UInt8])?
        /// Edits what the central directory will say about the entries.
        var editEntries: ((inout [ZipEntryLocation]) -> Void)?
    }

    /// The layout step: writes a whole pack of `sorted` entries (already checked and sorted) to
    /// `output` from its start: each local header and its data, the index, the central directory
    /// and the end records. It checks nothing and publishes nothing; ``write(to:)`` does both
    /// around it.
    static func layOut(
        _ sorted: [PendingEntry], name: String, options: Options, timestamp: DOSTimestamp, into output: OutputFile,
        hooks: LayoutHooks = LayoutHooks()
    ) throws(PackError) -> Report {
        let writer = ZipWriter(alignment: options.alignment, timestamp: timestamp)
        var written: [ZipEntryLocation] = []
        written.reserveCapacity(sorted.count + 1)
        let hashing = options.format >= 2
        var digest = ManifestDigest(
            format: options.format, name: name, locale: options.locale, contentVersion: options.contentVersion,
            alignment: options.alignment)
        // Format 2: each entry's SHA-256 from the bytes written: small files by the read-ahead
        // workers (in cache), the others read back while the writer goes on.
        let hasher = hashing ? try WrittenHasher(output) : nil
        defer { hasher?.cancel() }
        let reader = SourceReader(sorted, hashingUpTo: hashing ? SourceReader.hashedByWorkers : nil)
        for (number, entry) in sorted.enumerated() {
            let location = try reader.take(number) { (slot) throws(PackError) -> ZipEntryLocation in
                switch slot {
                case .loaded(let bytes, let crc32, let sha256):
                    var location = try write(entry.utf8, number: number, bytes: bytes, crc32: crc32, with: writer, to: output)
                    location.sha256 = sha256
                    return location
                case .failed(let error):
                    throw error
                case .inline:
                    return try write(entry, number: number, with: writer, to: output)
                }
            }
            if location.sha256 == nil {
                hasher?.add(number, offset: location.dataOffset, count: location.size, flushed: output.flushedPosition)
            }
            written.append(location)
        }
        if let hasher {
            try output.flush()
            // With much left to hash, the disk syncs what was written meanwhile (the final sync
            // then has little to do); with little, one sync at the end is cheaper than two.
            let syncing = hasher.pendingBytes >= WrittenHasher.syncAlongside ? SyncInBackground(output) : nil
            let hashes = Result { () throws(PackError) in try hasher.finish(flushed: output.flushedPosition) }
            try syncing?.wait().get()
            for (number, hash) in try hashes.get() { written[number].sha256 = hash }
        }
        var contentBytes: UInt64 = 0
        for location in written {
            digest.add(path: location.path, size: location.size, crc32: location.crc32, sha256: location.sha256)
            contentBytes += location.size
        }
        let metadata = PackMetadata(
            formatVersion: options.format, name: name, locale: options.locale, contentVersion: options.contentVersion,
            alignment: options.alignment, entryCount: sorted.count, digest: digest.finish())
        var json = IndexWriter.json(metadata: metadata, entries: written)
        hooks.editIndex?(&json)
        let index = try json.withBytes { (raw) throws(PackError) in
            try write(
                Array(PackPath.indexPath.utf8), number: sorted.count, bytes: raw,
                crc32: CRC32.checksum(raw), with: writer, to: output)
        }
        written.append(index)
        hooks.editEntries?(&written)
        let location = IndexLocation(offset: index.dataOffset, size: index.size, crc32: index.crc32)
        let directoryOffset = output.position
        for entry in written { try output.append(writer.centralRecord(entry)) }
        try output.append(
            writer.endRecords(
                count: UInt64(written.count), directoryOffset: directoryOffset,
                directorySize: output.position - directoryOffset, comment: hooks.comment?(location) ?? location.comment))
        try output.flush()
        return Report(
            path: output.path, metadata: metadata, fileSize: output.position, contentBytes: contentBytes,
            indexSize: UInt64(json.count))
    }

    /// Writes an entry whose bytes and CRC-32 are known: its local header, then the bytes.
    private static func write(
        _ name: [UInt8], number: Int, bytes: UnsafeRawBufferPointer, crc32: UInt32, with writer: ZipWriter,
        to output: OutputFile
    ) throws(PackError) -> ZipEntryLocation {
        let headerOffset = output.position
        try output.append(
            writer.localHeader(name: name, size: UInt64(bytes.count), crc32: crc32, at: headerOffset))
        let dataOffset = output.position
        try output.append(bytes)
        return ZipEntryLocation(
            number: number, path: name, headerOffset: headerOffset, dataOffset: dataOffset, size: UInt64(bytes.count),
            crc32: crc32)
    }

    /// Writes an entry whose bytes are in memory, or streams a large file, patching its CRC-32
    /// into the local header once the file has been read.
    private static func write(
        _ entry: PendingEntry, number: Int, with writer: ZipWriter, to output: OutputFile
    ) throws(PackError) -> ZipEntryLocation {
        switch entry.contents {
        case .bytes(let bytes):
            return try bytes.withBytes { (raw) throws(PackError) in
                try write(
                    entry.utf8, number: number, bytes: raw, crc32: CRC32.checksum(raw), with: writer,
                    to: output)
            }
        case .file(let source):
            let headerOffset = output.position
            try output.append(writer.localHeader(name: entry.utf8, size: source.listed.size, crc32: 0, at: headerOffset))
            let dataOffset = output.position
            var crc = CRC32()
            try source.copy(to: output, crc: &crc)
            var crcBytes: [UInt8] = []
            crcBytes.appendLE(crc.value)
            try output.patch(crcBytes, at: headerOffset + ZipWriter.localHeaderCRCOffset)
            return ZipEntryLocation(
                number: number, path: entry.utf8, headerOffset: headerOffset, dataOffset: dataOffset,
                size: source.listed.size, crc32: crc.value)
        }
    }

    /// Sorts by UTF-8 bytes; duplicate names, case/normalization collisions and a file that is
    /// also a folder's name are errors naming both sources.
    static func sortedCheckingCollisions(_ entries: [PendingEntry]) throws(PackError) -> [PendingEntry] {
        let sorted = entries.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        for (a, b) in zip(sorted, sorted.dropFirst()) where a.utf8 == b.utf8 {
            // The same name twice, or two names equal once NFC-normalized.
            if a.origin.utf8.elementsEqual(b.origin.utf8) { throw PackError(.duplicateName, "added twice", at: .pack(entry: a.path)) }
            throw PackError(
                .nameCollision, "\"\(a.origin)\" and \"\(b.origin)\" differ only by Unicode normalization",
                at: .pack(entry: a.path))
        }
        switch CollisionKeys.firstClash(count: sorted.count, name: { sorted[$0].utf8[...] }) {
        case .sameKey(let earlier, let later)?:
            throw PackError(
                .nameCollision,
                "\"\(sorted[earlier].origin)\" and \"\(sorted[later].origin)\" differ only by case or Unicode normalization",
                at: .pack(entry: sorted[later].path))
        case .fileIsFolder(let file, let entry)?:
            throw PackError(
                .nameCollision, "\"\(sorted[file].origin)\" is a file and also a folder of \"\(sorted[entry].origin)\"",
                at: .pack(entry: sorted[file].path))
        case nil:
            break
        }
        return sorted
    }
}
