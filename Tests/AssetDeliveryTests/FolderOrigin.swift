import AssetDelivery
import Foundation
import TestSupport

/// An origin in the test process: serves a repository folder over ``DeliveryTransport`` as a
/// web server would (ranges, strong ETags, If-Range), and misbehaves on request. The real
/// servers (nginx, a misbehaving Python origin, SeaweedFS) are in the full tier.
final class FolderOrigin: DeliveryTransport, @unchecked Sendable {
    enum Misbehaviour: Sendable {
        /// Answer every range request with the whole file (200).
        case ignoreRanges
        /// Flip one bit of the body at this byte of every file served whose name ends so.
        case flipBit(suffix: String, offset: UInt64)
        /// Drop the connection once this many body bytes have been sent, counting from now.
        case dropAfter(UInt64)
        /// Send endless data after the real body.
        case endless
        /// A new ETag for every response.
        case changingETag
        /// Answer 404 for these files (relative paths): objects a cache does not have yet.
        case hide(Set<String>)
        /// Serve these bytes for these files (relative paths): old objects a cache still has.
        case serve([String: [UInt8]])
        /// Drop the connection on any request for a file whose name ends so.
        case dropRequests(suffix: String)
        /// Wait this long before each 64 KiB of a body (an origin that trickles).
        case trickle(seconds: Double)
        /// The first `times` range requests for a pack file are answered with a file length one
        /// byte longer than the file's (the client starts that file over).
        case wrongLength(times: Int)
        /// Range requests for a pack file after the first `requests` are answered with the
        /// whole file (a 200), as an origin that stops honouring ranges.
        case wholeAfter(requests: Int)
    }

    let base: URL
    let folder: String
    private let lock = NSLock()
    private var misbehaviours: [Misbehaviour] = []
    private var sent: UInt64 = 0
    private(set) var requests = 0
    /// Every `If-Range` value the client sent, in order.
    private(set) var validators: [String] = []
    private var budget: UInt64?
    private var etagSalt = 0
    private var packRanges = 0

    init(folder: String, base: URL = URL(string: "http://origin.test/repo/")!) {
        self.folder = folder
        self.base = base
    }

    func misbehave(_ list: [Misbehaviour]) {
        lock.withLock {
            misbehaviours = list
            budget = nil
            packRanges = 0
            for case .dropAfter(let bytes) in list { budget = bytes }
        }
    }

    var bytesSent: UInt64 { lock.withLock { sent } }

    func resetCounters() {
        lock.withLock {
            sent = 0
            requests = 0
        }
    }

    func get(
        _ url: URL, range: Range<UInt64>?, ifRange: String?, limit: UInt64, head: @escaping @Sendable (RemoteResponse) throws -> Void,
        receive: @escaping @Sendable (Data) throws -> Void
    ) async throws -> RemoteResponse {
        let relative = String(url.absoluteString.dropFirst(base.absoluteString.count))
        let path = folder + "/" + relative
        let (list, salt, packRange) = lock.withLock { () -> ([Misbehaviour], Int, Int) in
            requests += 1
            if let ifRange { validators.append(ifRange) }
            etagSalt += 1
            if range != nil, relative.hasSuffix(".pack") { packRanges += 1 }
            return (misbehaviours, etagSalt, packRanges)
        }
        var hidden = false
        var served: [UInt8]?
        var trickle = 0.0
        for item in list {
            switch item {
            case .hide(let paths) where paths.contains(relative): hidden = true
            case .serve(let files): served = files[relative] ?? served
            case .dropRequests(let suffix) where relative.hasSuffix(suffix):
                throw DeliveryError(.network, "the connection was dropped", at: .file(url.absoluteString))
            case .trickle(let seconds): trickle = seconds
            default: break
            }
        }
        guard !hidden, let data = served.map({ Data($0) }) ?? FileManager.default.contents(atPath: path) else {
            let missing = RemoteResponse(status: 404, etag: nil, totalLength: nil, firstByte: 0, bodyBytes: 0)
            try head(missing)
            return missing
        }
        let attributes = served == nil ? try FileManager.default.attributesOfItem(atPath: path) : [:]
        let modified = (attributes[.modificationDate] as? Date)?.timeIntervalSince1970 ?? Double(data.count)
        var etag = "\"\(data.count)-\(Int(modified * 1000))\""
        if list.contains(where: { if case .changingETag = $0 { return true } else { return false } }) { etag = "\"\(salt)\"" }
        var body = data
        var status = 200
        var first: UInt64 = 0
        var honours = !list.contains { if case .ignoreRanges = $0 { return true } else { return false } }
        var lengthShift: UInt64 = 0
        if range != nil, relative.hasSuffix(".pack") {
            for item in list {
                if case .wholeAfter(let count) = item, packRange > count { honours = false }
                if case .wrongLength(let times) = item, packRange <= times { lengthShift = 1 }
            }
        }
        // The whole file where a range was asked (a server that ignores ranges, or an If-Range
        // that no longer matches): a 200 with every byte, as a web server sends it.
        if let range, honours, ifRange == nil || ifRange == etag {
            guard range.upperBound <= UInt64(data.count) else {
                let refused = RemoteResponse(status: 416, etag: etag, totalLength: UInt64(data.count), firstByte: 0, bodyBytes: 0)
                try head(refused)
                return refused
            }
            body = data.subdata(in: Int(range.lowerBound)..<Int(range.upperBound))
            status = 206
            first = range.lowerBound
        }
        try head(RemoteResponse(status: status, etag: etag, totalLength: UInt64(data.count) + lengthShift, firstByte: first, bodyBytes: 0))
        for case .flipBit(let suffix, let offset) in list where relative.hasSuffix(suffix) {
            if offset >= first, offset < first + UInt64(body.count) {
                let index = body.startIndex + Int(offset - first)
                body[index] ^= 0x04
            }
        }
        if list.contains(where: { if case .endless = $0 { return true } else { return false } }) {
            body.append(Data(repeating: 0x41, count: 4 << 20))
        }
        var delivered: UInt64 = 0
        var start = body.startIndex
        while start < body.endIndex {
            let end = min(start + 64 << 10, body.endIndex)
            let piece = body.subdata(in: start..<end)
            let dropped = lock.withLock { () -> Bool in
                if let remaining = budget {
                    if remaining < UInt64(piece.count) {
                        budget = 0
                        return true
                    }
                    budget = remaining - UInt64(piece.count)
                }
                sent += UInt64(piece.count)
                return false
            }
            if dropped { throw DeliveryError(.network, "the connection was dropped", at: .file(url.absoluteString)) }
            if trickle > 0 { try await Task.sleep(nanoseconds: UInt64(trickle * 1e9)) }
            delivered += UInt64(piece.count)
            if delivered > limit {
                throw DeliveryError(.tooMuchData, "the origin sent more than the \(limit) bytes expected", at: .file(url.absoluteString))
            }
            try receive(piece)
            start = end
        }
        return RemoteResponse(status: status, etag: etag, totalLength: UInt64(data.count), firstByte: first, bodyBytes: delivered)
    }
}
