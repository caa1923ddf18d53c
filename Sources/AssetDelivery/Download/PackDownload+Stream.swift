import AssetPack
import Foundation

extension PackDownload {
    /// What a request brought.
    enum StreamOutcome: Equatable {
        /// The range asked for.
        case range
        /// The whole file, from its first byte (an origin that ignores ranges).
        case wholeFile
    }

    /// Fetches `range` (or, when `nil`, the whole file) straight into the partial file,
    /// journaling as it lands.
    ///
    /// The response's head is checked before any byte is written: a 206 must start at the
    /// range's first byte and name the catalog's file size; its validator must be the one the
    /// download began with. A 200 is the whole file: welcome when `wholeWelcome` (its body then
    /// goes to the file from byte 0, and the outcome says so), otherwise it ends the request
    /// with ``WholeFileServed``. No body may run past what was asked for (``DeliveryError/Code/tooMuchData``).
    func stream(
        _ range: Range<UInt64>?, into file: WritableFile, journal: Journal, counters: Counters, wholeWelcome: Bool,
        received: @escaping @Sendable (UInt64) -> Void
    ) async throws -> StreamOutcome {
        let asked = range ?? 0..<entry.size
        let cursor = Cursor(range: asked)
        let size = entry.size
        let address = url.absoluteString
        let name = label
        let whole = WholeFlag()
        let limit = wholeWelcome ? size : asked.upperBound - asked.lowerBound
        let response: RemoteResponse
        do {
            response = try await transport.get(
                url, range: range, ifRange: journal.etag, limit: limit,
                head: { head in
                    switch head.status {
                    case 206 where range != nil:
                        guard head.firstByte == asked.lowerBound else {
                            throw DeliveryError(.network, "asked for bytes from \(asked.lowerBound), got bytes from \(head.firstByte)", at: .file(address, item: name))
                        }
                        if let total = head.totalLength, total != size {
                            throw Restart(reason: "the origin's file is \(total) bytes, the catalog says \(size)")
                        }
                    case 200:
                        if let total = head.totalLength, total != size {
                            throw Restart(reason: "the origin's file is \(total) bytes, the catalog says \(size)")
                        }
                        guard wholeWelcome else { throw WholeFileServed() }
                        whole.set()
                        cursor.restart(at: 0, end: size)
                    case 404, 403:
                        throw NotServed(status: head.status)
                    default:
                        throw DeliveryError(.httpStatus, "HTTP \(head.status)", at: .file(address, item: name))
                    }
                    try journal.adopt(etag: head.strongETag)
                },
                receive: { data in
                    let count = UInt64(data.count)
                    guard count <= cursor.end - cursor.position else {
                        throw DeliveryError(.tooMuchData, "the origin sent more than the \(cursor.end - cursor.base) bytes asked for", at: .file(address, item: name))
                    }
                    let written = data.withUnsafeBytes { raw in Result { () throws(PackError) in try file.write(raw, at: cursor.position) } }
                    if case .failure(let error) = written { throw DeliveryError.fileSystem(error, item: name) }
                    cursor.position += count
                    received(count)
                    if cursor.position - cursor.synced >= Self.journalEvery {
                        let durable = cursor.position - cursor.durable >= Self.syncEvery
                        if durable {
                            try file.synchronize()
                            cursor.durable = cursor.position
                        }
                        try journal.record(cursor.synced..<cursor.position, sync: durable)
                        cursor.synced = cursor.position
                    }
                })
        } catch {
            // A dropped connection or a timeout: what arrived is kept for the next run (it is
            // checked against the file's SHA-256 before anything is installed). Bytes that ran
            // past what was asked for were never written.
            counters.add(fetched: cursor.position - cursor.base, requests: 1)
            if cursor.position > cursor.synced, !(error is Restart), !(error is NotServed), (error as? DeliveryError)?.code != .tooMuchData {
                try? file.synchronize()
                try? journal.record(cursor.synced..<cursor.position)
            }
            throw error
        }
        counters.add(fetched: response.bodyBytes, requests: 1)
        guard cursor.position == cursor.end else {
            throw DeliveryError(
                .network, "the response ended after \(cursor.position - cursor.base) of \(cursor.end - cursor.base) bytes", at: .file(address, item: name))
        }
        // Journaled, not synced: a killed process loses nothing (the kernel keeps the pages); the
        // file is synced once every range is in, before it is hashed.
        try journal.record(cursor.synced..<cursor.position, sync: false)
        if whole.isSet { counters.set { $0.wholeFile = true } }
        return whole.isSet ? .wholeFile : .range
    }
}

/// Set once by a response's head when the origin sent the whole file.
final class WholeFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false

    func set() { lock.withLock { value = true } }
    var isSet: Bool { lock.withLock { value } }
}
