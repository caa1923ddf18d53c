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

    /// A transport whose requests fail after `stallTimeout` seconds without data (15 when it
    /// is not a number of seconds above 0).
    public init(stallTimeout: TimeInterval = 15) {
        let stallTimeout = stallTimeout.isFinite && stallTimeout > 0 ? stallTimeout : 15
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

    deinit {
        // Not waited for (see ``cancel(_:)``): a request still reading an endless body would
        // hold up whoever lets go of the transport (a tool, at its exit).
        let session = self.session
        DispatchQueue.global(qos: .utility).async { session.invalidateAndCancel() }
    }

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
                if let failure = state.begin(continuation) { return continuation.resume(throwing: failure) }
                router.register(task, state)
                task.resume()
            }
        } onCancel: {
            // The caller goes on at once; the task is cancelled behind it, its bytes dropped.
            state.settle(failing: DeliveryError(.cancelled, at: .file(url.absoluteString)))
            Self.cancel(task)
        }
    }

    /// Cancels `task` without waiting for it, from a queue of its own.
    ///
    /// Two things about swift-corelibs-foundation (Linux) make this the only way to end a request
    /// early: it ignores the disposition a data delegate answers to a response (a `.cancel` there
    /// reads the whole body anyway), and `URLSessionTask.cancel()` waits on the session's work
    /// queue, where libcurl reads and inflates the body. Called on the delegate queue, that wait
    /// stops the queue from draining while libcurl goes on queueing what it reads for it: every
    /// byte of an endless or gzip-inflated body piles up in memory until the task ends.
    static func cancel(_ task: URLSessionTask) {
        DispatchQueue.global(qos: .utility).async { task.cancel() }
    }

    /// One request's state, touched on the session's serial delegate queue, except the outcome
    /// (`failure`, and the caller's continuation), which a cancelling caller settles from its
    /// own thread: both under `lock`, and `receive` is called under it too, so once the caller
    /// has its outcome no byte of this request is written anywhere.
    final class RequestState: @unchecked Sendable {
        let url: URL
        let limit: UInt64
        let range: Range<UInt64>?
        let head: @Sendable (RemoteResponse) throws -> Void
        let receive: @Sendable (Data) throws -> Void
        var response: RemoteResponse?
        /// The response was not one whose body is wanted; the task was cancelled on purpose.
        var finishedEarly = false
        private let lock = NSLock()
        private var continuation: CheckedContinuation<RemoteResponse, Error>?
        private var failureValue: Error?

        /// Why the request failed, once it has.
        var failure: Error? { lock.withLock { failureValue } }

        /// Keeps the caller's continuation; the failure instead when the request was settled
        /// (cancelled) before it began.
        func begin(_ continuation: CheckedContinuation<RemoteResponse, Error>) -> Error? {
            lock.withLock {
                if let failureValue { return failureValue }
                self.continuation = continuation
                return nil
            }
        }

        /// Fails the request (the first failure stands) and hands the caller its outcome now.
        func settle(failing error: Error) {
            let waiting = lock.withLock { () -> CheckedContinuation<RemoteResponse, Error>? in
                if failureValue == nil { failureValue = error }
                defer { continuation = nil }
                return continuation
            }
            waiting?.resume(throwing: failure ?? error)
        }

        /// Hands the caller `outcome` now, unless it has had one.
        func settle(_ outcome: Result<RemoteResponse, Error>) {
            let waiting = lock.withLock { () -> CheckedContinuation<RemoteResponse, Error>? in
                defer { continuation = nil }
                return continuation
            }
            waiting?.resume(with: outcome)
        }

        /// Runs `body` (the caller's `head` or `receive`) unless the request has failed, and
        /// returns the failure: the one before, or what `body` threw (which fails it).
        func unlessFailed(_ body: () throws -> Void) -> Error? {
            lock.withLock {
                if let failureValue { return failureValue }
                do {
                    try body()
                    return nil
                } catch {
                    failureValue = error
                    return error
                }
            }
        }

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
            let refusal = state.unlessFailed {
                if status == 200 || status == 206 { try Self.checkBody(of: http, limit: state.limit, url: state.url) }
                try state.head(response)
            }
            if let refusal {
                completionHandler(.cancel)
                URLSessionTransport.cancel(dataTask)
                state.settle(failing: refusal)
                return
            }
            // Only a 200 or 206 has a body the caller wants; another status ends the request
            // here, with its response (the task is cancelled: its body is never read).
            if status != 200 && status != 206 {
                state.finishedEarly = true
                completionHandler(.cancel)
                URLSessionTransport.cancel(dataTask)
                state.settle(.success(response))
                return
            }
            completionHandler(.allow)
        }

        /// Refuses, before any byte of it is delivered, a body that is encoded (`Content-Encoding`
        /// though `identity` was asked: the HTTP stack would inflate it, and 256 KiB of gzip are
        /// 256 MiB of zeros) or announced longer than `limit`.
        static func checkBody(of http: HTTPURLResponse?, limit: UInt64, url: URL) throws {
            if let encoding = http?.value(forHTTPHeaderField: "Content-Encoding")?.trimmingCharacters(in: .whitespaces),
                !encoding.isEmpty, encoding.lowercased() != "identity"
            {
                throw DeliveryError(
                    .network, "the origin sent the body encoded (Content-Encoding: \(encoding.prefix(40))), not as it is", at: .file(url.absoluteString))
            }
            if let text = http?.value(forHTTPHeaderField: "Content-Length"), let length = UInt64(text), length > limit {
                throw DeliveryError(.tooMuchData, "the origin announced \(length) bytes, more than the \(limit) expected", at: .file(url.absoluteString))
            }
        }

        func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
            guard let state = state(dataTask), state.failure == nil, !state.finishedEarly, var response = state.response else { return }
            // A status we cannot use carries no bytes we want.
            guard response.status == 200 || response.status == 206 else { return }
            response.bodyBytes += UInt64(data.count)
            state.response = response
            // Ended at once (the caller has its outcome), the task cancelled behind it: what
            // libcurl reads until the cancel lands is dropped here, unread.
            if response.bodyBytes > state.limit {
                URLSessionTransport.cancel(dataTask)
                state.settle(
                    failing: DeliveryError(.tooMuchData, "the origin sent more than the \(state.limit) bytes expected", at: .file(state.url.absoluteString)))
                return
            }
            if let error = state.unlessFailed({ try state.receive(data) }) {
                URLSessionTransport.cancel(dataTask)
                state.settle(failing: error)
            }
        }

        func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: Error?) {
            lock.lock()
            let state = requests.removeValue(forKey: task.taskIdentifier)
            lock.unlock()
            guard let state else { return }
            if let failure = state.failure { return state.settle(.failure(failure)) }
            if state.finishedEarly, let response = state.response { return state.settle(.success(response)) }
            if let error {
                let code = (error as NSError).code
                let url = state.url.absoluteString
                if code == NSURLErrorTimedOut {
                    return state.settle(.failure(DeliveryError(.timeout, "no data for too long: the origin stalled", at: .file(url))))
                }
                if code == NSURLErrorCancelled {
                    return state.settle(.failure(DeliveryError(.cancelled, at: .file(url))))
                }
                return state.settle(.failure(DeliveryError(.network, error.localizedDescription, at: .file(url))))
            }
            guard let response = state.response else {
                return state.settle(.failure(DeliveryError(.network, "no response", at: .file(state.url.absoluteString))))
            }
            state.settle(.success(response))
        }
    }
}
