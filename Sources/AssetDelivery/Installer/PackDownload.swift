import AssetPack
import Foundation
import PackTrust

/// Where the bytes of an entry can be found locally: an installed pack that lists the same
/// SHA-256.
struct LocalEntry: Sendable {
    let pack: Pack
    let entry: PackEntry
}

/// What one pack's download did.
struct DownloadResult: Sendable {
    var bytesFetched: UInt64 = 0
    var bytesReused: UInt64 = 0
    var requests = 0
    var entriesFetched = 0
    var entriesReused = 0
}

/// Counters shared by a download's concurrent requests.
final class Counters: @unchecked Sendable {
    private let lock = NSLock()
    private var result = DownloadResult()

    func add(fetched: UInt64 = 0, requests: Int = 0) {
        lock.withLock {
            result.bytesFetched += fetched
            result.requests += requests
        }
    }

    var value: DownloadResult { lock.withLock { result } }

    /// Adds `fetched` bytes; returns the bytes fetched so far.
    func adding(fetched: UInt64) -> UInt64 {
        lock.withLock {
            result.bytesFetched += fetched
            return result.bytesFetched
        }
    }

    func set(_ update: (inout DownloadResult) -> Void) { lock.withLock { update(&result) } }
}

/// Builds one pack file of a catalog at `destination`: the tail (index, central directory, end
/// records) fetched first; every entry's bytes copied from a local pack with the same SHA-256,
/// or fetched in coalesced ranges (gaps up to 64 KiB, at most 4 requests at once); local
/// headers made again from the central directory. Progress is journaled beside the partial
/// file, so a killed run resumes without fetching a synced byte again. The result must have the
/// catalog's SHA-256 before it is renamed over `destination`; a reader of the old file keeps
/// its bytes (the old file is never rewritten).
struct PackDownload {
    static let coalesceGap: UInt64 = 64 << 10
    /// The most one request asks for: what an origin has already pushed into the sockets when
    /// the process is killed is lost, up to this much per request in flight.
    static let maxRange: UInt64 = 1 << 20
    /// Journal what arrived every 64 KiB of a request (a kill loses at most that much per
    /// request in flight), and sync data and journal every 8 MiB (power loss).
    static let journalEvery: UInt64 = 64 << 10
    static let syncEvery: UInt64 = 8 << 20
    /// Progress is reported each time this many more bytes have arrived.
    static let progressStep: UInt64 = 256 << 10
    static let concurrency = 4

    let entry: Catalog.Entry
    let url: URL
    let destination: String
    let workFolder: String
    let transport: any DeliveryTransport
    let local: [EntryHash: LocalEntry]
    let progress: @Sendable (UInt64, UInt64) -> Void

    var label: String { entry.name + (entry.locale.map { " (\($0))" } ?? "") }
    var partialPath: String { workFolder + "/\(entry.sha256.hex).partial" }
    var journalPath: String { workFolder + "/\(entry.sha256.hex).journal" }

    func run() async throws -> DownloadResult {
        let counters = Counters()
        for attempt in 0..<3 {
            do {
                try await attemptDownload(counters, fresh: attempt > 0)
                return counters.value
            } catch let restart as Restart {
                // The origin's file changed under us (a 200 to a range, another ETag or length):
                // start this file over, cleanly.
                if attempt == 2 { throw DeliveryError(.corruptDownload, restart.reason, file: url.absoluteString, item: label) }
            }
        }
        return counters.value
    }

    /// Thrown to start the file over.
    struct Restart: Error { let reason: String }

    private func attemptDownload(_ counters: Counters, fresh: Bool) async throws {
        try FileManager.default.createDirectory(atPath: workFolder, withIntermediateDirectories: true)
        let journal = Journal(path: journalPath, target: entry.sha256.hex, size: entry.size)
        let resuming = !fresh && journal.load() && FileManager.default.fileExists(atPath: partialPath)
        if !resuming {
            try? FileManager.default.removeItem(atPath: partialPath)
            guard FileManager.default.createFile(atPath: partialPath, contents: nil) else {
                throw DeliveryError(.fileSystem, "cannot create the partial file", file: partialPath)
            }
        }
        guard let handle = FileHandle(forUpdatingAtPath: partialPath) else {
            throw DeliveryError(.fileSystem, "cannot open the partial file", file: partialPath)
        }
        defer {
            handle.closeFile()
            journal.close()
        }
        let descriptor = handle.fileDescriptor
        guard ftruncate(descriptor, off_t(entry.size)) == 0 else {
            throw DeliveryError(.fileSystem, "cannot size the partial file to \(entry.size) bytes (errno \(errno))", file: partialPath)
        }
        let writer = RangeWriter(descriptor: descriptor, path: partialPath)

        // 1. The end of the file (a few KiB hold a pack's end records), then the tail from the
        // index on.
        var endRange = (entry.size - min(entry.size, PackLayout.endGuess))..<entry.size
        var end = try await fetchBytes(endRange, etag: journal.etag, counters: counters)
        if !resuming { try journal.create(etag: end.response.strongETag) }
        if let known = journal.etag, end.response.strongETag != known { throw Restart(reason: "the origin's ETag changed") }
        var located = Result { () throws(PackError) in try PackLayout.tailStart(end: Array(end.bytes), fileSize: entry.size, name: url.absoluteString) }
        if case .failure = located, endRange.count < Int(min(entry.size, PackLayout.endSearch)) {
            // A long end comment: the whole window the end record may be in.
            let wider = (entry.size - min(entry.size, PackLayout.endSearch))..<endRange.lowerBound
            let more = try await fetchBytes(wider, etag: journal.etag, counters: counters)
            end = (end.response, more.bytes + end.bytes)
            endRange = wider.lowerBound..<entry.size
            located = Result { () throws(PackError) in try PackLayout.tailStart(end: Array(end.bytes), fileSize: entry.size, name: url.absoluteString) }
        }
        let tailStart: UInt64
        switch located {
        case .success(let start): tailStart = start
        case .failure(let error): throw DeliveryError.pack(error, item: label)
        }
        // The tail is everything from the index on, and at least the end bytes already here
        // (the end records are searched for in them).
        var tail = end.bytes
        let have = min(tailStart, endRange.lowerBound)
        if tailStart < endRange.lowerBound {
            let more = try await fetchBytes(tailStart..<endRange.lowerBound, etag: journal.etag, counters: counters)
            tail = more.bytes + tail
        }
        let layout: PackLayout
        do {
            layout = try PackLayout.parse(tail: Array(tail), from: have, fileSize: entry.size, name: url.absoluteString)
        } catch {
            throw DeliveryError.pack(error, item: label)
        }
        guard layout.metadata.digest == entry.digest else {
            throw DeliveryError(
                .corruptDownload, "its index digest is \(layout.metadata.digest), the catalog says \(entry.digest)", file: url.absoluteString,
                item: label)
        }
        try writer.write(Array(tail), at: have)

        // 2. What is local, what must be fetched. A local header is made again from the
        // central directory unless a fetched range covers it anyway.
        var fetch: [Range<UInt64>] = []
        var reused: [(PackLayout.Entry, LocalEntry)] = []
        var fetchedEntries: [PackLayout.Entry] = []
        var madeHeaders: [PackLayout.Entry] = []
        for item in layout.entries {
            // What lies inside the bytes already fetched needs nothing more.
            if item.headerOffset >= have { continue }
            if item.header != nil { madeHeaders.append(item) } else {
                fetch.append(item.headerOffset..<min(item.dataOffset, have))
            }
            guard item.dataOffset < have else { continue }
            if item.dataOffset + item.size > have {
                // An entry that runs into the fetched end: fetch the rest of it.
                fetch.append(item.dataOffset..<have)
                fetchedEntries.append(item)
                continue
            }
            if let hash = item.sha256, let source = local[hash] {
                reused.append((item, source))
            } else {
                fetch.append(item.dataOffset..<item.dataOffset + item.size)
                fetchedEntries.append(item)
            }
        }
        let planned = Self.coalesced(fetch)
        for item in madeHeaders {
            guard let header = item.header else { continue }
            let span = item.headerOffset..<item.dataOffset
            if let covering = Self.covering(planned, span.lowerBound), covering.upperBound >= span.upperBound { continue }
            try writer.write(header, at: item.headerOffset)
        }
        for (item, source) in reused {
            let bytes: PackData
            do {
                bytes = try source.pack.data(for: source.entry)
            } catch {
                throw DeliveryError.pack(error, item: label)
            }
            try bytes.withUnsafeBytes { try writer.write($0, at: item.dataOffset) }
        }
        counters.set {
            $0.bytesReused += reused.reduce(0) { $0 + $1.0.size }
            $0.entriesReused += reused.count
            $0.entriesFetched += fetchedEntries.count
        }
        let missing = journal.missing(planned).flatMap { Self.split($0) }
        let total = missing.reduce(0) { $0 + ($1.upperBound - $1.lowerBound) }
        progress(0, total)

        // 3. Fetch, at most `concurrency` requests at once, syncing and journaling as bytes land.
        let done = Counters()
        try await withThrowingTaskGroup(of: Void.self) { group in
            var next = 0
            func launch() {
                guard next < missing.count else { return }
                let range = missing[next]
                next += 1
                group.addTask {
                    try Task.checkCancellation()
                    try await fetchInto(range, writer: writer, journal: journal, counters: counters) { bytes in
                        // An event per 256 KiB, not per chunk the network hands over.
                        let now = done.adding(fetched: bytes)
                        if now / Self.progressStep != (now - bytes) / Self.progressStep || now == total { progress(now, total) }
                    }
                }
            }
            for _ in 0..<Self.concurrency { launch() }
            while try await group.next() != nil { launch() }
        }
        try writer.sync()

        // 4. Verify the whole file against the signed catalog; when it differs, name the first
        // fetched entry whose bytes are not the published ones.
        let whole = try writer.hash(0..<entry.size)
        if whole != entry.sha256, resuming {
            // A journal line can outlive its data (power loss before a sync): start over, once.
            try? FileManager.default.removeItem(atPath: journalPath)
            throw Restart(reason: "the file resumed from the journal is not the published one")
        }
        if whole != entry.sha256 {
            for item in fetchedEntries {
                guard let expected = item.sha256 else { continue }
                let actual = try writer.hash(item.dataOffset..<item.dataOffset + item.size)
                guard actual == expected else {
                    try? FileManager.default.removeItem(atPath: journalPath)
                    throw DeliveryError(
                        .corruptDownload, "entry \"\(item.path)\" arrived with SHA-256 \(actual.hex), the pack's index says \(expected.hex)",
                        file: url.absoluteString, item: label)
                }
            }
        }
        guard whole == entry.sha256 else {
            try? FileManager.default.removeItem(atPath: journalPath)
            throw DeliveryError(
                .corruptDownload, "the file built has SHA-256 \(whole.hex), the catalog says \(entry.sha256.hex)", file: url.absoluteString,
                item: label)
        }
        // 5. Into place: rename over the old file, sync the folder, forget the journal.
        guard rename(partialPath, destination) == 0 else {
            throw DeliveryError(.fileSystem, "cannot rename into place (errno \(errno))", file: destination)
        }
        try sync((destination as NSString).deletingLastPathComponent)
        try? FileManager.default.removeItem(atPath: journalPath)
    }

    /// Fetches `range` into memory (the end and the tail).
    private func fetchBytes(_ range: Range<UInt64>, etag: String?, counters: Counters) async throws -> (response: RemoteResponse, bytes: Data) {
        let buffer = DataBuffer()
        let response = try await transport.get(url, range: range, ifRange: etag, limit: range.upperBound - range.lowerBound) {
            buffer.append($0)
        }
        counters.add(fetched: response.bodyBytes, requests: 1)
        try check(response, for: range, etag: etag)
        return (response, buffer.value)
    }

    /// Fetches `range` straight into the partial file, journaling every synced stretch.
    private func fetchInto(
        _ range: Range<UInt64>, writer: RangeWriter, journal: Journal, counters: Counters,
        received: @escaping @Sendable (UInt64) -> Void
    ) async throws {
        let cursor = Cursor(start: range.lowerBound)
        let response: RemoteResponse
        do {
            response = try await transport.get(url, range: range, ifRange: journal.etag, limit: range.upperBound - range.lowerBound) {
                data in
            // Only the bytes of a 206 for this range are ours to write.
            try data.withUnsafeBytes { try writer.write($0, at: cursor.position) }
            cursor.advance(UInt64(data.count))
            received(UInt64(data.count))
            if cursor.position - cursor.synced >= Self.journalEvery {
                let durable = cursor.position - cursor.durable >= Self.syncEvery
                if durable {
                    try writer.sync()
                    cursor.durable = cursor.position
                }
                try journal.record(cursor.synced..<cursor.position, sync: durable)
                cursor.synced = cursor.position
            }
            }
        } catch {
            // A dropped connection or a timeout: what arrived of this range (the transport hands
            // over only a 206's body for it) is kept for the next run; it is checked against the
            // entries' and the file's SHA-256 before anything is installed.
            counters.add(fetched: cursor.position - range.lowerBound, requests: 1)
            if (error as? DeliveryError)?.code != .tooMuchData, cursor.position > cursor.synced {
                try? writer.sync()
                try? journal.record(cursor.synced..<cursor.position)
            }
            throw error
        }
        counters.add(fetched: response.bodyBytes, requests: 1)
        try check(response, for: range, etag: journal.etag)
        // Journaled, not synced: a killed process loses nothing (the kernel keeps the pages); the
        // file is synced once every range is in, before it is hashed.
        try journal.record(cursor.synced..<cursor.position, sync: false)
    }

    /// A 206 for exactly `range` of a file of the catalog's size with the same ETag; a 200 or
    /// another validator restarts the file, anything else is an error.
    private func check(_ response: RemoteResponse, for range: Range<UInt64>, etag: String?) throws {
        let where_ = url.absoluteString
        switch response.status {
        case 206:
            guard response.firstByte == range.lowerBound, response.bodyBytes == range.upperBound - range.lowerBound else {
                throw DeliveryError(
                    .network, "asked for bytes \(range.lowerBound)-\(range.upperBound - 1), got \(response.bodyBytes) from \(response.firstByte)",
                    file: where_, item: label)
            }
            if let total = response.totalLength, total != entry.size {
                throw Restart(reason: "the origin's file is \(total) bytes, the catalog says \(entry.size)")
            }
            if let etag, let now = response.strongETag, now != etag { throw Restart(reason: "the origin's ETag changed") }
        case 200:
            throw Restart(reason: "the origin answered a range request with the whole file")
        default:
            throw DeliveryError(.httpStatus, "HTTP \(response.status)", file: where_, item: label)
        }
    }

    /// Ranges sorted and joined across gaps of up to ``coalesceGap``.
    static func coalesced(_ ranges: [Range<UInt64>]) -> [Range<UInt64>] {
        var out: [Range<UInt64>] = []
        for range in ranges.sorted(by: { $0.lowerBound < $1.lowerBound }) where !range.isEmpty {
            if let last = out.last, range.lowerBound <= last.upperBound + coalesceGap {
                out[out.count - 1] = last.lowerBound..<max(last.upperBound, range.upperBound)
            } else {
                out.append(range)
            }
        }
        return out
    }

    /// The range of sorted, disjoint `ranges` that holds `offset`, if any.
    static func covering(_ ranges: [Range<UInt64>], _ offset: UInt64) -> Range<UInt64>? {
        var low = 0
        var high = ranges.count
        while low < high {
            let middle = (low + high) / 2
            if ranges[middle].upperBound <= offset { low = middle + 1 } else { high = middle }
        }
        return low < ranges.count && ranges[low].contains(offset) ? ranges[low] : nil
    }

    /// A range cut into pieces of at most ``maxRange``.
    static func split(_ range: Range<UInt64>) -> [Range<UInt64>] {
        stride(from: range.lowerBound, to: range.upperBound, by: Int(maxRange)).map { $0..<min($0 + maxRange, range.upperBound) }
    }
}

/// Where the next byte of a streamed range goes, and how far it is synced.
final class Cursor: @unchecked Sendable {
    var position: UInt64
    /// Journaled up to here.
    var synced: UInt64
    /// Synced to the disk up to here.
    var durable: UInt64

    init(start: UInt64) {
        position = start
        synced = start
        durable = start
    }

    func advance(_ count: UInt64) { position += count }
}

/// Positioned writes, syncs and hashing on the partial file.
struct RangeWriter: Sendable {
    let descriptor: Int32
    let path: String

    func write(_ bytes: [UInt8], at offset: UInt64) throws {
        try bytes.withUnsafeBytes { try write($0, at: offset) }
    }

    func write(_ bytes: UnsafeRawBufferPointer, at offset: UInt64) throws {
        guard let base = bytes.baseAddress else { return }
        var done = 0
        while done < bytes.count {
            let wrote = pwrite(descriptor, base + done, bytes.count - done, off_t(offset) + off_t(done))
            if wrote < 0 {
                if errno == EINTR { continue }
                let reason = errno == ENOSPC ? "the disk is full" : "write failed (errno \(errno))"
                throw DeliveryError(.fileSystem, reason, file: path)
            }
            done += wrote
        }
    }

    func sync() throws {
        do {
            try synchronizeDescriptor(descriptor)
        } catch {
            throw DeliveryError(.fileSystem, error.description, file: path)
        }
    }

    /// The SHA-256 of `range`, read back from the file.
    func hash(_ range: Range<UInt64>) throws -> EntryHash {
        var hasher = EntryHash.Hasher()
        let buffer = UnsafeMutableRawBufferPointer.allocate(
            byteCount: Int(min(1 << 20, max(1, range.upperBound - range.lowerBound))), alignment: 64)
        defer { buffer.deallocate() }
        var offset = range.lowerBound
        while offset < range.upperBound {
            let want = Int(min(UInt64(buffer.count), range.upperBound - offset))
            let got = pread(descriptor, buffer.baseAddress, want, off_t(offset))
            if got < 0, errno == EINTR { continue }
            guard got > 0 else { throw DeliveryError(.fileSystem, "read back failed (errno \(errno))", file: path) }
            hasher.update(UnsafeRawBufferPointer(rebasing: buffer[0..<got]))
            offset += UInt64(got)
        }
        return hasher.finish()
    }
}
