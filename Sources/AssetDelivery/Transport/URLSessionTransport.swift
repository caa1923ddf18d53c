import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// ``DeliveryTransport`` over Foundation's `URLSession` (FoundationNetworking on Linux), with
/// the delegate API every supported OS version has: the body streams to the caller as it
/// arrives, and a request that goes quiet for ``stallTimeout`` seconds fails with
/// ``DeliveryError/Code/timeout``.
public final class URLSessionTransport: DeliveryTransport, @unchecked Sendable {
    /// Seconds without a byte before a request fails.
    public let stallTimeout: TimeInterval
    private let session: URLSession
    private let router: Router

    /// A transport whose requests fail after `stallTimeout` seconds without data.
    public init(stallTimeout: TimeInterval = 15) {
        self.stallTimeout = stallTimeout
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = stallTimeout
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.urlCache = nil
        configuration.httpMaximumConnectionsPerHost = 4
        let router = Router()
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        self.router = router
        session = URLSession(configuration: configuration, delegate: router, delegateQueue: queue)
    }

    deinit { session.invalidateAndCancel() }

    public func get(
        _ url: URL, range: Range<UInt64>?, ifRange: String?, limit: UInt64,
        head: @escaping @Sendable (RemoteResponse) throws -> Void,
        receive: @escaping @Sendable (Data) throws -> Void
    ) async throws -> RemoteResponse {
        var request = URLRequest(url: url)
        request.httpMethod = "GET"
        request.timeoutInterval = stallTimeout
        if let range {
            guard !range.isEmpty else { return RemoteResponse(status: 206, etag: nil, totalLength: nil, firstByte: range.lowerBound, bodyBytes: 0) }
            request.setValue("bytes=\(range.lowerBound)-\(range.upperBound - 1)", forHTTPHeaderField: "Range")
            if let ifRange { request.setValue(ifRange, forHTTPHeaderField: "If-Range") }
        }
        // Bytes as they are: no transparent decompression that would change lengths and offsets.
        request.setValue("identity", forHTTPHeaderField: "Accept-Encoding")
        let task = session.dataTask(with: request)
        let state = RequestState(url: url, limit: limit, range: range, head: head, receive: receive)
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<RemoteResponse, Error>) in
                state.continuation = continuation
                router.register(task, state)
                task.resume()
            }
        } onCancel: {
            task.cancel()
        }
    }

    /// One request's state, touched only on the session's serial delegate queue.
    final class RequestState: @unchecked Sendable {
        let url: URL
        let limit: UInt64
        let range: Range<UInt64>?
        let head: @Sendable (RemoteResponse) throws -> Void
        let receive: @Sendable (Data) throws -> Void
        var continuation: CheckedContinuation<RemoteResponse, Error>?
        var response: RemoteResponse?
        var failure: Error?
        /// The response was not one whose body is wanted; the task was cancelled on purpose.
        var finishedEarly = false

        init(
            url: URL, limit: UInt64, range: Range<UInt64>?, head: @escaping @Sendable (RemoteResponse) throws -> Void,
            receive: @escaping @Sendable (Data) throws -> Void
        ) {
            self.url = url
            self.limit = limit
            self.range = range
            self.head = head
            self.receive = receive
        }
    }

    /// The session's delegate: routes each task's callbacks to its request.
    final class Router: NSObject, URLSessionDataDelegate, @unchecked Sendable {
        private let lock = NSLock()
        private var requests: [Int: RequestState] = [:]

        func register(_ task: URLSessionTask, _ state: RequestState) {
            lock.lock()
            requests[task.taskIdentifier] = state
            lock.unlock()
        }

        private func state(_ task: URLSessionTask) -> RequestState? {
            lock.lock()
            defer { lock.unlock() }
            return requests[task.taskIdentifier]
        }

        func urlSession(
            _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
            completionHandler: @escaping (URLSession.ResponseDisposition) -> Void
        ) {
            guard let state = state(dataTask) else { return completionHandler(.cancel) }
            let http = response as? HTTPURLResponse
            let status = http?.statusCode ?? 0
            var etag: String?
            var total: UInt64?
            var first: UInt64 = 0
            if let http {
                etag = http.value(forHTTPHeaderField: "ETag")
                if status == 206, let range = http.value(forHTTPHeaderField: "Content-Range") {
                    // bytes FIRST-LAST/TOTAL
                    let parts = range.replacingOccurrences(of: "bytes ", with: "").split(separator: "/")
                    if parts.count == 2 {
                        total = UInt64(parts[1])
                        first = parts[0].split(separator: "-").first.flatMap { UInt64($0) } ?? 0
                    }
                } else if status == 200, let length = http.value(forHTTPHeaderField: "Content-Length") {
                    total = UInt64(length)
                }
            }
            let response = RemoteResponse(status: status, etag: etag, totalLength: total, firstByte: first, bodyBytes: 0)
            state.response = response
            do {
                try state.head(response)
            } catch {
                state.failure = error
                completionHandler(.cancel)
                return
            }
            // Only a 200 or 206 has a body the caller wants; another status ends the request
            // here, with its response.
            if status != 200 && status != 206 {
                state.finishedEarly = true
                completionHandler(.cancel)
                return
            }
            completionHandler(.allow)
        }

        func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
            guard let state = state(dataTask), state.failure == nil, !state.finishedEarly, var response = state.response else { return }
            // A status we cannot use carries no bytes we want.
            guard response.status == 200 || response.status == 206 else { return }
            response.bodyBytes += UInt64(data.count)
            state.response = response
            if response.bodyBytes > state.limit {
                state.failure = DeliveryError(
                    .tooMuchData, "the origin sent more than the \(state.limit) bytes expected", file: state.url.absoluteString)
                dataTask.cancel()
                return
            }
            do {
                try state.receive(data)
            } catch {
                state.failure = error
                dataTask.cancel()
            }
        }

        func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: Error?) {
            lock.lock()
            let state = requests.removeValue(forKey: task.taskIdentifier)
            lock.unlock()
            guard let state, let continuation = state.continuation else { return }
            state.continuation = nil
            if let failure = state.failure { return continuation.resume(throwing: failure) }
            if state.finishedEarly, let response = state.response { return continuation.resume(returning: response) }
            if let error {
                let code = (error as NSError).code
                let url = state.url.absoluteString
                if code == NSURLErrorTimedOut {
                    return continuation.resume(throwing: DeliveryError(.timeout, "no data for too long: the origin stalled", file: url))
                }
                if code == NSURLErrorCancelled {
                    return continuation.resume(throwing: DeliveryError(.cancelled, "cancelled", file: url))
                }
                return continuation.resume(throwing: DeliveryError(.network, error.localizedDescription, file: url))
            }
            guard let response = state.response else {
                return continuation.resume(throwing: DeliveryError(.network, "no response", file: state.url.absoluteString))
            }
            continuation.resume(returning: response)
        }
    }
}
