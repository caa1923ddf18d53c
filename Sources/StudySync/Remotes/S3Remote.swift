import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// An S3-compatible object store as a remote (AWS S3, Cloudflare R2, MinIO, SeaweedFS): objects
/// under `PREFIX/` in a bucket, requests signed with AWS Signature Version 4, session tokens
/// included (the temporary, per-learner-prefix credentials an app gets from STS or Cognito).
///
/// Path-style addressing (`ENDPOINT/BUCKET/KEY`), which every S3-compatible store serves. A
/// request that fails with a 5xx status, a broken connection or a stall is tried up to three
/// times; a refusal of the credentials (403) is reported at once.
public struct S3Remote: SyncRemote {
    /// The store's endpoint (`https://s3.eu-west-1.amazonaws.com`, `http://127.0.0.1:8333`).
    public let endpoint: URL
    /// The bucket.
    public let bucket: String
    /// The folder inside the bucket (no leading or trailing `/`; empty for the bucket's root).
    public let prefix: String
    /// The region the signature names (`us-east-1` for most S3-compatible stores).
    public let region: String
    /// The credentials.
    public let credentials: StoreCredentials
    /// The largest listing page read (bytes): S3 answers at most 1,000 keys a page, far under.
    static let listPageLimit = 4 << 20
    /// The most objects a listing may hold: a learner's devices keep a few dozen objects each; a
    /// store that lists more is refused before it fills memory (a listing is read before anything
    /// the store sends is authenticated).
    static let listObjectLimit = 100_000
    /// The most pages a listing may take.
    static let listPageCountLimit = 1_000
    private let client: HTTPClient

    /// A remote in `bucket` under `prefix` at `endpoint`.
    public init(
        endpoint: URL, bucket: String, prefix: String, region: String = "us-east-1", credentials: StoreCredentials, stallTimeout: TimeInterval = 20
    ) {
        self.endpoint = endpoint
        self.bucket = bucket
        self.prefix = prefix.split(separator: "/").joined(separator: "/")
        self.region = region
        self.credentials = credentials
        client = HTTPClient(stallTimeout: stallTimeout)
    }

    /// Reads `s3://BUCKET/PREFIX`; the endpoint defaults to AWS's for the region.
    public init(url: String, endpoint: String?, region: String?, credentials: StoreCredentials, stallTimeout: TimeInterval = 20) throws(SyncError) {
        guard url.hasPrefix("s3://") else { throw SyncError(.invalidArgument, "an S3 remote is s3://BUCKET/PREFIX", at: .file(url)) }
        let path = url.dropFirst(5)
        let bucket = path.split(separator: "/", maxSplits: 1).first.map(String.init) ?? ""
        guard !bucket.isEmpty, bucket.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            throw SyncError(.invalidArgument, "no bucket name after s3://", at: .file(url))
        }
        let prefix = path.dropFirst(bucket.count).split(separator: "/").joined(separator: "/")
        let region = region ?? "us-east-1"
        let endpointText = endpoint ?? "https://s3.\(region).amazonaws.com"
        guard let endpointURL = URL(string: endpointText), let scheme = endpointURL.scheme, ["http", "https"].contains(scheme), endpointURL.host != nil
        else {
            throw SyncError(.invalidArgument, "the endpoint is an http:// or https:// URL", at: .file(endpointText))
        }
        self.init(endpoint: endpointURL, bucket: bucket, prefix: prefix, region: region, credentials: credentials, stallTimeout: stallTimeout)
    }

    /// `s3://BUCKET/PREFIX` at the endpoint's host.
    public var identity: String { "s3://\(bucket)/\(prefix) at \(endpoint.absoluteString)" }

    private func key(_ name: String) -> String { prefix.isEmpty ? name : prefix + "/" + name }

    /// ListObjectsV2, page after page, bounded: at most 100,000 objects over 1,000 pages of 4 MB,
    /// no continuation token twice, keys outside the prefix left out (``SyncError/Code/tooLarge``
    /// or ``SyncError/Code/httpStatus`` otherwise).
    public func list(prefix listPrefix: String) async throws(SyncError) -> [RemoteObject] {
        let full = key(listPrefix)
        let naming = "s3://\(bucket)/\(full)"
        return try await Self.collect(prefix: full, dropping: prefix.isEmpty ? "" : prefix + "/", naming: naming) { token throws(SyncError) in
            var query = [("list-type", "2"), ("prefix", full)]
            if let token { query.append(("continuation-token", token)) }
            let response = try await send("GET", path: "", query: query, body: nil, limit: Self.listPageLimit, naming: naming)
            switch ListPage.parse(response.body) {
            case .success(let page): return page
            case .failure(let malformed): throw SyncError(.httpStatus, malformed.reason, at: .file(naming))
            }
        }
    }

    /// A listing's pages, fetched one after another by `fetch` (given the continuation token), as
    /// the objects under `prefix`, named without `dropping`. Keys outside `prefix` are left out; a
    /// listing that holds more than ``listObjectLimit`` objects or takes more than
    /// ``listPageCountLimit`` pages is refused (``SyncError/Code/tooLarge``), and so is one that
    /// hands out a continuation token twice (it would never end).
    static func collect(
        prefix: String, dropping: String, naming: String, page fetch: (String?) async throws(SyncError) -> ListPage
    ) async throws(SyncError) -> [RemoteObject] {
        var objects: [RemoteObject] = []
        var token: String?
        var tokens = Set<String>()
        var pages = 0
        while true {
            let page = try await fetch(token)
            pages += 1
            for object in page.objects where object.name.hasPrefix(prefix) && object.name.hasPrefix(dropping) {
                objects.append(RemoteObject(name: String(object.name.dropFirst(dropping.count)), size: object.size))
            }
            guard objects.count <= listObjectLimit else {
                throw SyncError(.tooLarge, "the listing has more than \(listObjectLimit) objects", at: .file(naming))
            }
            guard page.isTruncated else { return objects }
            guard let next = page.nextToken, tokens.insert(next).inserted else {
                throw SyncError(.httpStatus, "the listing hands out a continuation token it gave before (it would never end)", at: .file(naming))
            }
            guard pages < listPageCountLimit else {
                throw SyncError(.tooLarge, "the listing goes on past \(listPageCountLimit) pages", at: .file(naming))
            }
            token = next
        }
    }

    /// GetObject, at most `limit` bytes.
    public func get(_ name: String, limit: Int) async throws(SyncError) -> [UInt8] {
        try await send("GET", path: key(name), query: [], body: nil, limit: limit).body
    }

    /// PutObject.
    public func put(_ name: String, _ bytes: [UInt8]) async throws(SyncError) {
        _ = try await send("PUT", path: key(name), query: [], body: bytes, limit: 1 << 20)
    }

    /// DeleteObject.
    public func delete(_ name: String) async throws(SyncError) {
        _ = try await send("DELETE", path: key(name), query: [], body: nil, limit: 1 << 20)
    }

    /// A signed request on the bucket itself (tests make their bucket with it).
    func sendForTests(_ method: String) async throws(SyncError) {
        _ = try await send(method, path: "", query: [], body: nil, limit: 1 << 20)
    }

    /// One signed request, tried up to three times on a 5xx, a broken connection or a stall.
    /// Errors name `naming`, or the object.
    private func send(
        _ method: String, path objectKey: String, query: [(String, String)], body: [UInt8]?, limit: Int, naming: String? = nil
    ) async throws(SyncError) -> HTTPResponse {
        let object = naming ?? "s3://\(bucket)/\(objectKey)"
        var attempt = 0
        while true {
            attempt += 1
            do throws(SyncError) {
                let response = try await sendOnce(method, path: objectKey, query: query, body: body, limit: limit)
                switch response.status {
                case 200..<300: return response
                case 403, 401:
                    let (code, message) = Self.errorText(response.body)
                    throw SyncError(.accessDenied, "the store refused the credentials (\(response.status) \(code)\(message.isEmpty ? "" : ": " + message))", at: .file(object))
                case 404:
                    let (code, message) = Self.errorText(response.body)
                    throw SyncError(.notFound, "\(method) answered 404 \(code)\(message.isEmpty ? "" : ": " + message)", at: .file(object))
                case 500..<600 where attempt < 3:
                    try await Self.pause(attempt)
                    continue
                default:
                    let (code, message) = Self.errorText(response.body)
                    throw SyncError(.httpStatus, "\(method) answered \(response.status) \(code)\(message.isEmpty ? "" : ": " + message)", at: .file(object))
                }
            } catch let error where [.network, .timeout].contains(error.code) && attempt < 3 {
                try await Self.pause(attempt)
            }
        }
    }

    private static func pause(_ attempt: Int) async throws(SyncError) {
        do {
            try await Task.sleep(nanoseconds: UInt64(attempt) * 200_000_000)
        } catch {
            throw SyncError(.cancelled, "cancelled")
        }
    }

    private func sendOnce(_ method: String, path objectKey: String, query: [(String, String)], body: [UInt8]?, limit: Int) async throws(SyncError) -> HTTPResponse {
        let basePath = endpoint.path.hasSuffix("/") ? String(endpoint.path.dropLast()) : endpoint.path
        let canonicalPath = SigV4.encode(basePath + "/" + bucket + (objectKey.isEmpty ? "" : "/" + objectKey), keepingSlashes: true)
        let queryText = SigV4.canonicalQuery(query)
        var components = "\(endpoint.scheme ?? "https")://\(endpoint.host ?? "")"
        if let port = endpoint.port { components += ":\(port)" }
        guard let url = URL(string: components + canonicalPath + (queryText.isEmpty ? "" : "?" + queryText)) else {
            throw SyncError(.invalidArgument, "cannot make a URL for this object", at: .file(objectKey))
        }
        let payloadHash = SigV4.hexSHA256(body ?? [])
        let amzDate = SigV4.amzDate(Date())
        var host = endpoint.host ?? ""
        if let port = endpoint.port { host += ":\(port)" }
        var headers = [("host", host), ("x-amz-content-sha256", payloadHash), ("x-amz-date", amzDate)]
        if let token = credentials.sessionToken { headers.append(("x-amz-security-token", token)) }
        let authorization = SigV4.authorization(
            method: method, path: canonicalPath, query: query, headers: headers, payloadHash: payloadHash, region: region, service: "s3",
            credentials: credentials)
        var request = URLRequest(url: url)
        request.httpMethod = method
        for (name, value) in headers where name != "host" { request.setValue(value, forHTTPHeaderField: name) }
        request.setValue(authorization, forHTTPHeaderField: "Authorization")
        if let body { request.setValue(String(body.count), forHTTPHeaderField: "Content-Length") }
        return try await client.send(request, body: body, limit: limit)
    }

    /// The `Code` and `Message` of an S3 error body.
    static func errorText(_ body: [UInt8]) -> (String, String) {
        let text = String(decoding: body.prefix(4096), as: UTF8.self)
        return (XMLText.first("Code", in: text) ?? "", XMLText.first("Message", in: text) ?? "")
    }
}
