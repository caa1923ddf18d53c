import AssetPack
import Foundation
import PackTrust

/// Where the bytes of an entry can be found locally: an installed pack that lists the same
/// SHA-256. Listed, not proven: the bytes are hashed as they are copied (and fetched instead
/// when they differ: a damaged installed pack heals this way), unless the pack is `trusted`,
/// its whole file verified at install and unchanged since, by its identity. A trusted copy
/// that turns out wrong (the whole file's SHA-256 differs) makes the download start over with
/// every copy hashed.
struct LocalEntry: Sendable {
    let pack: Pack
    let entry: PackEntry
    let trusted: Bool
}

/// Builds one pack file of a catalog at `destination`.
///
/// The tail (index, central directory, end records) is fetched first, from the offset the
/// signed catalog names, straight into the partial file; the layout is read back from there.
/// Every entry's bytes are copied from a local pack with the same SHA-256 (and hashed on the
/// way) or fetched in coalesced ranges, at most 4 requests at once; local headers are made
/// again from the central directory. An origin that answers a range with the whole file (a
/// 200) is taken at its word: the whole file is streamed instead. Progress is journaled beside
/// the partial file, so a killed run resumes without fetching a journaled byte again. ``run()``
/// ends with a file that has the catalog's SHA-256; ``commit()`` renames it over `destination`,
/// and a reader of the old file keeps its bytes (the old file is never rewritten).
///
/// Every size and offset from the origin is checked before it is used; memory holds the tail's
/// records, never more than the catalog's tail.
struct PackDownload {
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

    var label: String { entry.label }
    var partialPath: String { workFolder + "/\(entry.sha256.hex).partial" }
    var journalPath: String { workFolder + "/\(entry.sha256.hex).journal" }

    /// Thrown to start the file over: the origin's file changed under us, or a resumed file
    /// turned out wrong.
    struct Restart: Error {
        let reason: String
        /// Start over hashing every entry copied from an installed pack.
        var distrustLocal = false
    }
    /// Thrown when the origin answered a range request with the whole file.
    struct WholeFileServed: Error {}
    /// Thrown when the origin does not have the pack file (404 or 403): a cache that has not
    /// got it yet. The update waits; it does not fail.
    struct NotServed: Error { let status: Int }

    /// Downloads and verifies the file: it returns only once the partial file has the
    /// catalog's SHA-256 (`finish` passed). A file that
    /// must start over does so at most twice; an origin that answers a range with the whole
    /// file switches the download to whole files once, at any attempt (which is never a
    /// success by itself: the whole file is then fetched and verified).
    func run() async throws -> DownloadResult {
        let counters = Counters()
        var whole = false
        var verifyingCopies = false
        var restarts = 0
        while true {
            do {
                if whole {
                    try await downloadWhole(counters)
                } else {
                    try await downloadByRanges(counters, fresh: restarts > 0, verifyingCopies: verifyingCopies)
                }
                return counters.value
            } catch let restart as Restart {
                restarts += 1
                if restarts == 3 { throw DeliveryError(.corruptDownload, restart.reason, at: .file(url.absoluteString, item: label)) }
                verifyingCopies = verifyingCopies || restart.distrustLocal
            } catch is WholeFileServed {
                // downloadWhole never throws this: the switch happens once.
                guard !whole else { throw DeliveryError(.corruptDownload, "the origin answered a request for the whole file with a part", at: .file(url.absoluteString, item: label)) }
                whole = true
            }
        }
    }

    // MARK: - Ranges

    private func downloadByRanges(_ counters: Counters, fresh: Bool, verifyingCopies: Bool) async throws {
        let journal = Journal(path: journalPath, target: entry.sha256.hex, size: entry.size)
        let resuming = !fresh && journal.load() && FileSystem.exists(partialPath)
        let file = try WritableFile(path: partialPath, create: true, truncate: !resuming)
        defer { journal.close() }
        try file.resize(to: entry.size)
        if !resuming { try journal.create(etag: nil) }

        // 1. The tail, from the offset the catalog signed, into the partial file.
        let tail = entry.tailOffset..<entry.size
        for range in journal.missing([tail]) {
            let outcome = try await stream(range, into: file, journal: journal, counters: counters, wholeWelcome: !resuming) { _ in }
            if outcome == .wholeFile { return try await finish(file, journal: journal, resumed: false, fetched: [], built: false, counters: counters) }
        }
        let layout: PackLayout
        do {
            layout = try PackLayout.parse(file: partialPath, tailOffset: entry.tailOffset, fileSize: entry.size, name: url.absoluteString)
        } catch {
            if resuming { throw Restart(reason: "the resumed tail does not read: \(error)") }
            journal.remove()
            throw DeliveryError.pack(error, item: label)
        }
        guard layout.metadata.digest == entry.digest else {
            if resuming { throw Restart(reason: "the resumed tail names another digest") }
            journal.remove()
            throw DeliveryError(
                .corruptDownload, "its index digest is \(layout.metadata.digest), the catalog says \(entry.digest)", at: .file(url.absoluteString, item: label))
        }

        // 2. What is copied, what is fetched: the fetches start at once, the copies are made
        // while the network works, and the disk starts writing them back meanwhile.
        let plan = DownloadPlan(layout: layout, local: local, done: journal.done)
        try plan.writeHeaders(into: file, label: label)
        let missing = journal.missing(plan.ranges).flatMap { ByteRanges.split($0, most: Self.maxRange) }
        let total = missing.reduce(0) { $0 + ($1.upperBound - $1.lowerBound) }
        progress(0, total)
        let done = Counters()
        async let network: Void = fetch(missing, into: file, journal: journal, counters: counters, done: done, total: total)
        let copied: DownloadPlan.Copied
        do {
            copied = try plan.copy(into: file, verifying: verifyingCopies, label: label)
            file.startWriteback()
        } catch {
            _ = try? await network
            throw error
        }
        try await network
        // Installed bytes that were not the listed ones (a damaged pack): fetched instead.
        let refetch = ByteRanges.coalesced(copied.refused.map { $0.dataOffset..<$0.dataOffset + $0.size }).flatMap { ByteRanges.split($0, most: Self.maxRange) }
        try await fetch(refetch, into: file, journal: journal, counters: counters, done: done, total: total)
        counters.set {
            $0.bytesReused += copied.bytes
            $0.entriesReused += copied.entries
            $0.entriesFetched += plan.fetched.count + copied.refused.count
        }
        try await finish(
            file, journal: journal, resumed: resuming, fetched: plan.fetched + copied.refused, built: true, counters: counters,
            trustedCopies: copied.trustedUnhashed > 0)
    }

    /// Fetches `ranges` into the file, at most ``concurrency`` requests at once, journaling as
    /// bytes land and reporting progress every 256 KiB.
    private func fetch(
        _ ranges: [Range<UInt64>], into file: WritableFile, journal: Journal, counters: Counters, done: Counters, total: UInt64
    ) async throws {
        guard !ranges.isEmpty else { return }
        try await withThrowingTaskGroup(of: Void.self) { group in
            var next = 0
            func launch() {
                guard next < ranges.count else { return }
                let range = ranges[next]
                next += 1
                group.addTask {
                    try Task.checkCancellation()
                    let outcome = try await stream(range, into: file, journal: journal, counters: counters, wholeWelcome: false) { bytes in
                        // An event per 256 KiB, not per chunk the network hands over.
                        let now = done.adding(fetched: bytes)
                        if now / Self.progressStep != (now - bytes) / Self.progressStep || now == total { progress(now, total) }
                    }
                    if outcome == .wholeFile { throw WholeFileServed() }
                }
            }
            for _ in 0..<Self.concurrency { launch() }
            while try await group.next() != nil { launch() }
        }
    }

    // MARK: - The whole file

    /// One GET of the whole file (an origin that ignores ranges), streamed to the partial file.
    private func downloadWhole(_ counters: Counters) async throws {
        let journal = Journal(path: journalPath, target: entry.sha256.hex, size: entry.size)
        let file = try WritableFile(path: partialPath, create: true, truncate: true)
        defer { journal.close() }
        try file.resize(to: entry.size)
        try journal.create(etag: nil)
        let outcome = try await stream(nil, into: file, journal: journal, counters: counters, wholeWelcome: true) { _ in }
        guard outcome == .wholeFile else { throw Restart(reason: "the origin answered a request for the whole file with a part") }
        try await finish(file, journal: journal, resumed: false, fetched: [], built: false, counters: counters)
    }

    // MARK: - Verify and install

    /// Syncs the file and holds it to the catalog's SHA-256; when it differs, names the first
    /// fetched entry whose bytes are not the published ones. A file `built` from ranges whose
    /// fetched entries are all right but whose whole differs was laid out otherwise than the
    /// builder lays out a pack (headers made again differ: another tool's pack, signed all the
    /// same): it is fetched whole instead (``WholeFileServed``), and verified again.
    private func finish(
        _ file: WritableFile, journal: Journal, resumed: Bool, fetched: [ZipEntryLocation], built: Bool, counters: Counters,
        trustedCopies: Bool = false
    ) async throws {
        try Task.checkCancellation()
        do {
            try file.synchronize()
        } catch {
            throw DeliveryError.fileSystem(error, item: label)
        }
        let whole = try hash(file, 0..<entry.size)
        // Verified: it waits beside the folder, its journal complete, until ``commit()``.
        guard whole != entry.sha256 else { return }
        // A journal line can outlive its data (power loss before a sync): start over, once.
        journal.remove()
        if resumed { throw Restart(reason: "the file resumed from the journal is not the published one") }
        // An installed pack trusted unhashed was damaged after all: start over, hashing copies.
        if trustedCopies { throw Restart(reason: "an installed pack's bytes are not the ones it lists", distrustLocal: true) }
        for item in fetched {
            guard let expected = item.sha256 else { continue }
            let actual = try hash(file, item.dataOffset..<item.dataOffset + item.size)
            guard actual == expected else {
                throw DeliveryError(
                    .corruptDownload, "entry \"\(String(decoding: item.path, as: UTF8.self))\" arrived with SHA-256 \(actual.hex), the pack's index says \(expected.hex)", at: .file(url.absoluteString, item: label))
            }
        }
        if built { throw WholeFileServed() }
        throw DeliveryError(
            .corruptDownload, "the file has SHA-256 \(whole.hex), the catalog says \(entry.sha256.hex)", at: .file(url.absoluteString, item: label))
    }

    /// Renames the verified file over `destination` (a reader of the old file keeps its bytes)
    /// and forgets its journal.
    func commit() throws {
        do {
            try DurableFile.rename(partialPath, over: destination)
        } catch {
            throw DeliveryError.fileSystem(error, item: label)
        }
        FileSystem.remove(journalPath)
    }

    /// The SHA-256 of `range` of the partial file, read back.
    private func hash(_ file: WritableFile, _ range: Range<UInt64>) throws -> EntryHash {
        do {
            return try DownloadPlan.hash(file, range)
        } catch {
            throw DeliveryError.fileSystem(error, item: label)
        }
    }
}
