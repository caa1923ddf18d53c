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

    /// A strong ETag, usable with `If-Range`: one RFC 9110 spells (`"` opaque characters `"`,
    /// at most 256 bytes); a weak one or anything else is `nil`.
    public var strongETag: String? { etag.flatMap { Self.isStrongETag($0) ? $0 : nil } }

    /// Whether `text` is a strong entity tag as RFC 9110 (8.8.3) spells one: a double quote,
    /// visible ASCII other than the double quote (or bytes from 0x80), a double quote; no
    /// spaces, controls or line breaks, so it goes back into an `If-Range` header as it came.
    /// At most 256 bytes.
    static func isStrongETag(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard bytes.count >= 2, bytes.count <= 256, bytes.first == 0x22, bytes.last == 0x22 else { return false }
        return bytes.dropFirst().dropLast().allSatisfy { $0 == 0x21 || (0x23...0x7E).contains($0) || $0 >= 0x80 }
    }
}

/// How the client talks to an origin: GET of a whole file or of one byte range, streamed.
///
/// Small, so any HTTP stack (or a test double) fits: ``URLSessionTransport`` is the one the
/// library ships. Resume is not the transport's job: the installer asks for the ranges it
/// lacks, with `If-Range`, on every platform.
public protocol DeliveryTransport: Sendable {
    /// Fetches `url`, or only `range` of it (one range per request: object stores have no
    /// multi-range), with `If-Range: ifRange` when given.
    ///
    /// `head` gets the response (status, validator, where the body starts; `bodyBytes` 0) once,
    /// before any byte of the body; if it throws, the request ends with that error and no body.
    /// Then the body of a 200 or a 206 goes to `receive` piece by piece, in order; the body of
    /// any other status is not delivered. A 200 to a range request is the whole file from its
    /// first byte (an origin that ignores ranges): `head` decides whether that is welcome. The
    /// request is cut off with ``DeliveryError/Code/tooMuchData`` as soon as more than `limit`
    /// body bytes arrive. Throws ``DeliveryError`` (network, timeout, cancelled) or what `head`
    /// or `receive` throws.
    func get(
        _ url: URL, range: Range<UInt64>?, ifRange: String?, limit: UInt64,
        head: @escaping @Sendable (RemoteResponse) throws -> Void,
        receive: @escaping @Sendable (Data) throws -> Void
    ) async throws -> RemoteResponse
}

extension DeliveryTransport {
    /// The whole body of `url` (at most `limit` bytes), for small files: a pointer, a catalog, a
    /// root. `nil` for 404 and 403 (an object store's answer for a missing key); any other
    /// status but 200 is an error.
    public func small(_ url: URL, limit: UInt64) async throws -> (response: RemoteResponse, body: Data?) {
        let buffer = DataBuffer()
        let response = try await get(url, range: nil, ifRange: nil, limit: limit, head: { _ in }) { buffer.append($0) }
        if response.status == 404 || response.status == 403 { return (response, nil) }
        guard response.status == 200 else {
            throw DeliveryError(.httpStatus, "HTTP \(response.status)", at: .file(url.absoluteString))
        }
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
