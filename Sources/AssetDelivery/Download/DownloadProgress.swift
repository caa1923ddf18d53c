import Foundation

/// What one pack's download did.
struct DownloadResult: Sendable {
    var bytesFetched: UInt64 = 0
    var bytesReused: UInt64 = 0
    var requests = 0
    var entriesFetched = 0
    var entriesReused = 0
    /// The origin served whole files where ranges were asked.
    var wholeFile = false
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

/// Where the next byte of one streamed response goes, and how far it is journaled and synced.
/// Touched by that response's callbacks only, one at a time.
final class Cursor: @unchecked Sendable {
    /// Where the body's first byte goes (the range's start, or 0 for a whole file).
    var base: UInt64
    /// The end the body may not pass.
    var end: UInt64
    var position: UInt64
    /// Journaled up to here.
    var synced: UInt64
    /// Synced to the disk up to here.
    var durable: UInt64

    init(range: Range<UInt64>) {
        base = range.lowerBound
        end = range.upperBound
        position = range.lowerBound
        synced = range.lowerBound
        durable = range.lowerBound
    }

    /// The body starts at `start` and may run to `end`.
    func restart(at start: UInt64, end: UInt64) {
        base = start
        self.end = end
        position = start
        synced = start
        durable = start
    }
}
