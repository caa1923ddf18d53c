import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One HTTP exchange: the status, the headers sync reads, the body (at most the limit asked for).
struct HTTPResponse: Sendable {
    var status: Int
    var body: [UInt8]
}

/// HTTP over URLSession (FoundationNetworking on Linux), with the delegate API every supported
/// OS has: the body is counted as it arrives and cut off past a limit (a store cannot make sync
/// hold more than it asked for), a request that goes quiet for `stallTimeout` seconds fails, so
/// does a body that comes slower than ``minimumRate`` once `stallTimeout` has passed (a byte now
/// and then is never quiet long enough to stall), and a redirect is never followed.
final class HTTPClient: @unchecked Sendable {
    // @unchecked: `session` and `router` are set once in init; the router's table is behind a lock.
    let stallTimeout: TimeInterval
    private let session: URLSession
    /// The slowest a response body may come, in bytes a second on average from its headers, once
    /// `stallTimeout` has passed: far under any usable connection, far over a store that drips a
    /// byte just often enough never to stall (which held a sync for as long as the limit allowed:
    /// days for a snapshot).
    static let minimumRate = 4096.0
    private let router: Router

    init(stallTimeout: TimeInterval) {
        self.stallTimeout = stallTimeout
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = stallTimeout
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.urlCache = nil
        let router = Router()
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        self.router = router
        session = URLSession(configuration: configuration, delegate: router, delegateQueue: queue)
    }

    deinit { session.invalidateAndCancel() }

    /// Sends `request` (with `body` for a PUT) and returns the response, its body cut at `limit`
    /// bytes with ``SyncError/Code/tooLarge``.
    func send(_ request: URLRequest, body: [UInt8]?, limit: Int) async throws(SyncError) -> HTTPResponse {
        var request = request
        request.timeoutInterval = stallTimeout
        request.setValue("identity", forHTTPHeaderField: "Accept-Encoding")
        let task: URLSessionTask
        if let body { task = session.uploadTask(with: request, from: Data(body)) } else { task = session.dataTask(with: request) }
        let state = RequestState(name: request.url?.absoluteString ?? "", limit: limit, grace: stallTimeout)
        do {
            return try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<HTTPResponse, Error>) in
                    state.continuation = continuation
                    router.register(task, state)
                    task.resume()
                }
            } onCancel: {
                task.cancel()
            }
        } catch let error as SyncError {
            throw error
        } catch {
            throw SyncError(.network, "\(error)", at: .file(state.name))
        }
    }

    final class RequestState: @unchecked Sendable {
        // @unchecked: touched only on the session's serial delegate queue.
        let name: String
        let limit: Int
        /// Seconds from the headers before the body's rate is held to ``HTTPClient/minimumRate``.
        let grace: TimeInterval
        var continuation: CheckedContinuation<HTTPResponse, Error>?
        var status = 0
        var body: [UInt8] = []
        var failure: SyncError?
        /// When the response's headers came.
        var answered = Date()

        init(name: String, limit: Int, grace: TimeInterval) {
            self.name = name
            self.limit = limit
            self.grace = grace
        }
    }

    final class Router: NSObject, URLSessionDataDelegate, @unchecked Sendable {
        // @unchecked: `requests` is behind `lock`; each state is touched on the delegate queue.
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
            state.status = http?.statusCode ?? 0
            state.answered = Date()
            // A declared length over the limit is refused before any of the body is read.
            if let length = http?.value(forHTTPHeaderField: "Content-Length").flatMap({ Int($0) }), length > state.limit {
                state.failure = SyncError(.tooLarge, "the store announces \(length) bytes, more than the \(state.limit) sync reads", at: .file(state.name))
                return completionHandler(.cancel)
            }
            completionHandler(.allow)
        }

        /// Redirects are never followed: the request goes to the store it was signed for, and a
        /// 3xx answer is an error status.
        func urlSession(
            _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse, newRequest request: URLRequest,
            completionHandler: @escaping (URLRequest?) -> Void
        ) {
            completionHandler(nil)
        }

        func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
            guard let state = state(dataTask), state.failure == nil else { return }
            if state.body.count + data.count > state.limit {
                state.failure = SyncError(.tooLarge, "the store sent more than the \(state.limit) bytes sync reads", at: .file(state.name))
                dataTask.cancel()
                return
            }
            state.body += data
            let elapsed = Date().timeIntervalSince(state.answered)
            if elapsed > state.grace, Double(state.body.count) < (elapsed - state.grace) * HTTPClient.minimumRate {
                state.failure = SyncError(
                    .timeout, "the store sends too slowly (\(state.body.count) bytes in \(Int(elapsed)) s, under \(Int(HTTPClient.minimumRate)) a second)",
                    at: .file(state.name))
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
            if let error {
                let code = (error as NSError).code
                if code == NSURLErrorTimedOut {
                    return continuation.resume(throwing: SyncError(.timeout, "no data for too long: the store stalled", at: .file(state.name)))
                }
                if code == NSURLErrorCancelled {
                    return continuation.resume(throwing: SyncError(.cancelled, "cancelled", at: .file(state.name)))
                }
                return continuation.resume(throwing: SyncError(.network, error.localizedDescription, at: .file(state.name)))
            }
            continuation.resume(returning: HTTPResponse(status: state.status, body: state.body))
        }
    }
}
