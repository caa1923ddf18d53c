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
    /// The most a journal file may hold: a line per 64 KiB of the largest pack is far less.
    static let maxFileSize = 64 << 20
    private let lock = NSLock()
    private var etagValue: String?
    private var file: WritableFile?
    /// Ranges written, merged.
    private var doneRanges: [Range<UInt64>] = []

    init(path: String, target: String, size: UInt64) {
        self.path = path
        self.target = target
        self.size = size
    }

    /// The origin's strong ETag when the journal began.
    var etag: String? { lock.withLock { etagValue } }

    /// Reads an existing journal for this target; `false` (and nothing kept) if there is none
    /// or it is for something else or damaged.
    func load() -> Bool {
        guard let bytes = try? readRegularFile(path, limit: Self.maxFileSize), let text = String(validating: bytes, as: UTF8.self) else {
            return false
        }
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        // A last line cut short by a kill is not a record.
        if let last = lines.last, !text.hasSuffix("\n") || last.isEmpty { lines.removeLast() }
        guard let header = lines.first?.split(separator: " ").map(String.init), header.count == 5,
            header[0] == "assetpack-journal", header[1] == "1", header[2] == target, header[3] == String(size)
        else { return false }
        var ranges: [Range<UInt64>] = []
        for line in lines.dropFirst() {
            let parts = line.split(separator: " ")
            guard parts.count == 3, parts[0] == "done", let start = UInt64(parts[1]), let end = UInt64(parts[2]), start < end, end <= size
            else { return false }
            ranges.append(start..<end)
        }
        lock.withLock {
            etagValue = header[4] == "-" ? nil : header[4]
            doneRanges = ByteRanges.merged(ranges)
        }
        return true
    }

    /// Starts a new journal (the partial file is new too).
    func create(etag: String?) throws(PackError) {
        let usable = etag.flatMap { $0.contains(" ") || $0.contains("\n") || $0.utf8.count > 256 ? nil : $0 }
        let header = "assetpack-journal 1 \(target) \(size) \(usable ?? "-")\n"
        try DurableFile.write(Array(header.utf8), to: path)
        lock.withLock {
            etagValue = usable
            doneRanges = []
            file = nil
        }
    }

    /// Holds the origin to one validator: the first response's strong ETag is written into a
    /// journal that has none and no ranges yet (it is then sent as `If-Range`); a later response
    /// with another one means the file changed under the download, which starts over.
    func adopt(etag: String?) throws {
        let (known, empty) = lock.withLock { (etagValue, doneRanges.isEmpty) }
        if let known {
            guard etag == known else { throw PackDownload.Restart(reason: "the origin's ETag changed") }
        } else if empty, let etag {
            try create(etag: etag)
        }
    }

    /// Records `range` as written; with `sync`, also makes the record durable (the data must be
    /// synced first). Records written without a sync survive a killed process (they are in the
    /// page cache); after a power loss one may name bytes that were lost, which the SHA-256
    /// checks before installing catch, and the download then starts over.
    func record(_ range: Range<UInt64>, sync: Bool = true) throws(PackError) {
        guard !range.isEmpty else { return }
        lock.lock()
        defer { lock.unlock() }
        let journal: WritableFile
        if let file { journal = file } else { journal = try WritableFile(path: path) }
        file = journal
        try journal.append(Array("done \(range.lowerBound) \(range.upperBound)\n".utf8))
        if sync { try journal.synchronize() }
        doneRanges = ByteRanges.merged(doneRanges + [range])
    }

    /// Lets go of the journal's file.
    func close() { lock.withLock { file = nil } }

    /// Removes the journal (the download is over, or starts again).
    func remove() {
        close()
        FileSystem.remove(path)
    }

    /// The ranges written so far, merged.
    var done: [Range<UInt64>] { lock.withLock { doneRanges } }

    /// `ranges` without the parts already done.
    func missing(_ ranges: [Range<UInt64>]) -> [Range<UInt64>] { ByteRanges.subtracting(done, from: ranges) }
}
