import AssetPack
import Foundation

/// The record of a download in progress, beside its partial file: which pack file it builds
/// (the catalog's SHA-256 and size), the origin's strong ETag, and the byte ranges written.
/// A range is appended once its bytes are written: after a kill at any moment the next run
/// fetches none of those bytes again (the kernel keeps a killed process's writes). Lines are
/// synced with the data every few MiB, against power loss; a line that outlived its data there
/// is caught by the file's SHA-256, and the download starts over.
///
/// ```
/// assetpack-journal 1 SHA256 SIZE ETAG
/// done START END
/// ```
///
/// A journal that does not parse, or names another file, is discarded with its partial file: the
/// download starts over, which is always safe.
final class Journal: @unchecked Sendable {
    let path: String
    let target: String
    let size: UInt64
    private(set) var etag: String?
    private let lock = NSLock()
    private var handle: FileHandle?
    /// Ranges written and synced, merged.
    private(set) var done: [Range<UInt64>] = []

    init(path: String, target: String, size: UInt64) {
        self.path = path
        self.target = target
        self.size = size
    }

    /// Reads an existing journal for this target; `false` (and nothing kept) if there is none
    /// or it is for something else or damaged.
    func load() -> Bool {
        guard let data = FileManager.default.contents(atPath: path), let text = String(data: data, encoding: .utf8) else { return false }
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        // A last line cut short by a kill is not a record.
        if let last = lines.last, !text.hasSuffix("\n") || last.isEmpty { lines.removeLast() }
        guard let header = lines.first?.split(separator: " ").map(String.init), header.count == 5,
            header[0] == "assetpack-journal", header[1] == "1", header[2] == target, header[3] == String(size)
        else { return false }
        etag = header[4] == "-" ? nil : header[4]
        var ranges: [Range<UInt64>] = []
        for line in lines.dropFirst() {
            let parts = line.split(separator: " ")
            guard parts.count == 3, parts[0] == "done", let start = UInt64(parts[1]), let end = UInt64(parts[2]), start < end, end <= size
            else { return false }
            ranges.append(start..<end)
        }
        done = Self.merged(ranges)
        return true
    }

    /// Starts a new journal (the partial file is new too).
    func create(etag: String?) throws {
        self.etag = etag
        done = []
        let header = "assetpack-journal 1 \(target) \(size) \(etag.map { $0.contains(" ") ? "-" : $0 } ?? "-")\n"
        try Data(header.utf8).write(to: URL(fileURLWithPath: path))
        try sync(path)
    }

    /// Records `range` as written; with `sync`, also makes the record durable (the data must be
    /// synced first). Records written without a sync survive a killed process (they are in the
    /// page cache); after a power loss one may name bytes that were lost, which the SHA-256
    /// checks before installing catch, and the download then starts over.
    func record(_ range: Range<UInt64>, sync: Bool = true) throws {
        guard !range.isEmpty else { return }
        try lock.withLock {
            if handle == nil {
                guard let opened = FileHandle(forWritingAtPath: path) else {
                    throw DeliveryError(.fileSystem, "cannot open the journal", file: path)
                }
                opened.seekToEndOfFile()
                handle = opened
            }
            handle?.write(Data("done \(range.lowerBound) \(range.upperBound)\n".utf8))
            if sync, let handle {
                do {
                    try synchronizeDescriptor(handle.fileDescriptor)
                } catch {
                    throw DeliveryError(.fileSystem, "\(error)", file: path)
                }
            }
            done = Self.merged(done + [range])
        }
    }

    func close() {
        lock.withLock {
            handle?.closeFile()
            handle = nil
        }
    }

    /// `ranges` sorted, overlapping and touching ones joined.
    static func merged(_ ranges: [Range<UInt64>]) -> [Range<UInt64>] {
        var out: [Range<UInt64>] = []
        for range in ranges.sorted(by: { $0.lowerBound < $1.lowerBound }) where !range.isEmpty {
            if let last = out.last, range.lowerBound <= last.upperBound {
                out[out.count - 1] = last.lowerBound..<max(last.upperBound, range.upperBound)
            } else {
                out.append(range)
            }
        }
        return out
    }

    /// `ranges` without the parts already done.
    func missing(_ ranges: [Range<UInt64>]) -> [Range<UInt64>] {
        let done = lock.withLock { self.done }
        var out: [Range<UInt64>] = []
        for range in ranges {
            var start = range.lowerBound
            for piece in done where piece.upperBound > start && piece.lowerBound < range.upperBound {
                if piece.lowerBound > start { out.append(start..<piece.lowerBound) }
                start = max(start, piece.upperBound)
            }
            if start < range.upperBound { out.append(start..<range.upperBound) }
        }
        return out
    }
}

/// Makes the file or folder at `path` durable.
func sync(_ path: String) throws {
    do {
        try synchronizePath(path)
    } catch {
        throw DeliveryError(.fileSystem, error.description, file: path)
    }
}
