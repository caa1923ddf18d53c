import Foundation

/// What an origin answered: the status, the strong validator, and the byte range it sent.
public struct RemoteResponse: Sendable, Equatable {
    /// The HTTP status: 200 (the whole file), 206 (the range asked for), or another.
    public var status: Int
    /// The `ETag`, when the origin sent one (a weak one, `W/…`, is kept but never used for `If-Range`).
    public var etag: String?
    /// The file's whole length: from `Content-Range` on a 206, from `Content-Length` on a 200.
    public var totalLength: UInt64?
    /// The first byte sent, from `Content-Range` (0 on a 200).
    public var firstByte: UInt64
    /// The bytes of the body received.
    public var bodyBytes: UInt64

    /// A response with every field.
    public init(status: Int, etag: String?, totalLength: UInt64?, firstByte: UInt64, bodyBytes: UInt64) {
        self.status = status
        self.etag = etag
        self.totalLength = totalLength
        self.firstByte = firstByte
        self.bodyBytes = bodyBytes
    }

    /// A strong ETag, usable with `If-Range`.
    public var strongETag: String? { etag.flatMap { $0.hasPrefix("W/") ? nil : $0 } }
}

/// How the client talks to an origin: GET of a whole file or of one byte range, streamed.
///
/// Small, so any HTTP stack (or a test double) fits: ``URLSessionTransport`` is the one the
/// library ships. Resume is not the transport's job: the installer asks for the ranges it
/// lacks, with `If-Range`, on every platform.
public protocol DeliveryTransport: Sendable {
    /// Fetches `url`, or only `range` of it (one range per request: object stores have no
    /// multi-range), with `If-Range: ifRange` when given. The body goes to `receive` piece by
    /// piece, in order, only for a 200 to a request without a range or a 206 starting at the
    /// range's first byte: any other answer (a 200 to a range request, an error status) ends the
    /// request with that response and no body delivered. The request is cut off with
    /// ``DeliveryError/Code/tooMuchData`` as soon as more than `limit` body bytes arrive. Throws
    /// ``DeliveryError`` (network, timeout, cancelled) or what `receive` throws.
    func get(
        _ url: URL, range: Range<UInt64>?, ifRange: String?, limit: UInt64,
        receive: @escaping @Sendable (Data) throws -> Void
    ) async throws -> RemoteResponse
}

extension DeliveryTransport {
    /// The whole body of `url` (at most `limit` bytes), for small files: the catalog, a root.
    public func data(_ url: URL, limit: UInt64) async throws -> (RemoteResponse, Data) {
        let buffer = DataBuffer()
        let response = try await get(url, range: nil, ifRange: nil, limit: limit) { buffer.append($0) }
        return (response, buffer.value)
    }
}

/// Bytes appended from the transport's callbacks (one request's, in order).
final class DataBuffer: @unchecked Sendable {
    private let lock = NSLock()
    private var data = Data()

    func append(_ piece: Data) {
        lock.lock()
        data.append(piece)
        lock.unlock()
    }

    var value: Data {
        lock.lock()
        defer { lock.unlock() }
        return data
    }
}
