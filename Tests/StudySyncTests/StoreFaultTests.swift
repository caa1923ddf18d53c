import Foundation
import StudyProgress
@testable import StudySync
import TestSupport
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A store that fails in the ways issue 30 lists (500s, a stall, a GET cut short, a listing that
/// lags, a write whose answer is lost), through the real S3Remote: signed requests to a Werkzeug
/// store on 127.0.0.1 (Tests/Fixtures/Sync/misbehaving_s3.py) that checks every signature with its
/// own SigV4, started and stopped by each test by PID.
@Suite("A misbehaving S3 store: every fault converges on the next sync", .tags(.server), .fullTierOnly, .serialized)
struct StoreFaultTests {
    static let credentials = StoreCredentials(accessKeyID: "faulty", secretAccessKey: "faulty-secret-0123456789")

    /// The store, its faults and its log.
    struct Store {
        let server: LocalServer

        init(scratch: Scratch, page: Int = 3) async throws {
            server = try LocalServer.misbehavingS3(
                accessKey: StoreFaultTests.credentials.accessKeyID, secret: StoreFaultTests.credentials.secretAccessKey, page: page, scratch: scratch)
            try await remote().putBucket()
        }

        /// A remote on the store; stalls are given up after `stall` seconds.
        func remote(stall: TimeInterval = 1, credentials: StoreCredentials = StoreFaultTests.credentials) throws -> S3Remote {
            try S3Remote(
                url: "s3://progress/app", endpoint: "http://127.0.0.1:\(server.port)", region: "us-east-1", credentials: credentials,
                stallTimeout: stall)
        }

        /// Replaces the store's faults: `(kind, method, match, count)` each (count −1: every request).
        func faults(_ list: [(kind: String, method: String, match: String, count: Int)]) async throws {
            let json = list.map { ["kind": $0.kind, "method": $0.method, "match": $0.match, "count": $0.count] as [String: Any] }
            var request = URLRequest(url: try #require(URL(string: "http://127.0.0.1:\(server.port)/__faults")))
            request.httpMethod = "POST"
            request.httpBody = try JSONSerialization.data(withJSONObject: json)
            #expect(try await Self.fetch(request).status == 204)
        }

        /// The requests the store saw, `METHOD PATH` each.
        func log() async throws -> [String] {
            let url = try #require(URL(string: "http://127.0.0.1:\(server.port)/__log"))
            let data = try await Self.fetch(URLRequest(url: url)).body
            return String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init)
        }

        /// One request to the store's own endpoints, through the completion-handler API every
        /// declared platform has.
        static func fetch(_ request: URLRequest) async throws -> (status: Int, body: Data) {
            try await withCheckedThrowingContinuation { continuation in
                URLSession.shared.dataTask(with: request) { data, response, error in
                    if let error { return continuation.resume(throwing: error) }
                    continuation.resume(returning: ((response as? HTTPURLResponse)?.statusCode ?? 0, data ?? Data()))
                }.resume()
            }
        }

        /// The keys the store holds.
        func objects() async throws -> [String] {
            let url = try #require(URL(string: "http://127.0.0.1:\(server.port)/__objects"))
            let data = try await Self.fetch(URLRequest(url: url)).body
            return String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init)
        }
    }

    /// One fault: what it is, who syncs while it holds, and what that sync must do.
    struct Fault: CustomTestStringConvertible, Sendable {
        var name: String
        var faults: [(kind: String, method: String, match: String, count: Int)]
        /// The device that syncs during the fault: 0 sends (A), 1 receives (B).
        var device: Int
        /// The error code the sync ends with, `nil` when it finishes.
        var thrown: SyncError.Code?
        /// The codes of the objects it refuses.
        var refused: [String] = []
        var testDescription: String { name }
    }

    static let cases: [Fault] = [
        Fault(name: "every write answered 500", faults: [("500", "PUT", "", -1)], device: 0, thrown: .httpStatus),
        Fault(name: "every read answered 500", faults: [("500", "GET", "", -1)], device: 1, thrown: .httpStatus),
        Fault(name: "a 500 now and then (retried within the sync)", faults: [("500", "*", "", 2)], device: 1, thrown: nil),
        Fault(name: "every listing answered 500", faults: [("500", "LIST", "", -1)], device: 1, thrown: .httpStatus),
        Fault(name: "a GET that stalls half way", faults: [("stall", "GET", "/segments/", -1)], device: 1, thrown: .timeout),
        Fault(name: "a GET that drips a byte at a time, never quiet long enough to stall", faults: [("drip", "GET", "/segments/", -1)], device: 1, thrown: .timeout),
        Fault(name: "a PUT that is never answered", faults: [("stall", "PUT", "/segments/", -1)], device: 0, thrown: .timeout),
        Fault(name: "a listing that never comes", faults: [("stall", "LIST", "", -1)], device: 1, thrown: .timeout),
        Fault(name: "a GET cut short that looks whole", faults: [("truncate", "GET", "/segments/", -1)], device: 1, thrown: nil, refused: ["notAuthentic"]),
        Fault(name: "a PUT stored whose answer is lost", faults: [("lost-response", "PUT", "/segments/", -1)], device: 0, thrown: .httpStatus),
        Fault(name: "a listing without the newest segment", faults: [("hide-newest", "LIST", "", -1)], device: 1, thrown: nil),
    ]

    @Test("a store fault during a sync; cleared, the next syncs converge: one state, every answer once, no interval negative", arguments: cases)
    func convergesAfter(_ fault: Fault) async throws {
        let scratch = try Scratch()
        let store = try await Store(scratch: scratch)
        defer { store.server.stop() }
        let key = LearnerKey.generate()
        let devices = try ["a", "b", "c"].map { try Device($0, scratch: scratch, remote: try store.remote(), key: key, snapshotAfter: 4) }
        var answers = 0
        func study(_ device: Device, _ count: Int, from start: Int) throws {
            for step in 0..<count {
                let moment = day0.addingTimeInterval(Double(start + step) * 3_700)
                try device.answer("q\((start + step) % 7)", grade: 1 + (start + step) % 4, at: moment)
                answers += 1
            }
        }
        // Everyone in step first: each device's answers on the same items, synced twice round.
        for (index, device) in devices.enumerated() { try study(device, 5, from: index * 5) }
        for device in devices + devices { _ = try await device.sync.sync() }
        // New answers on A; B behind; then the fault, and the one sync that meets it.
        try study(devices[0], 6, from: 20)
        if fault.device == 1 { _ = try await devices[0].sync.sync() }
        try study(devices[1], 2, from: 40)
        try await store.faults(fault.faults)
        let during = devices[fault.device]
        do {
            let report = try await during.sync.sync()
            #expect(fault.thrown == nil, "\(fault.name): the sync finished")
            #expect(report.refused.map(\.code) == fault.refused, "\(fault.name): \(report.refused)")
        } catch {
            #expect(error.code == fault.thrown, "\(fault.name): \(error)")
        }
        // Whatever the fault left, the file is sound and nothing was counted twice.
        #expect(try during.store.integrityCheck() == ["ok"])
        #expect(Set(try during.store.reviews(source: "bank/b").map(\.at)).count == (try during.store.reviews(source: "bank/b").count))
        // Cleared: two rounds of syncs.
        try await store.faults([])
        try study(devices[2], 1, from: 50)
        for device in devices + devices { _ = try await device.sync.sync() }
        let hashes = try devices.map { try $0.hash() }
        #expect(Set(hashes).count == 1, "\(fault.name): \(hashes)")
        #expect(try await freshReplay(scratch: scratch, remote: try store.remote(), key: key) == hashes[0], "\(fault.name)")
        for device in devices {
            let log = try device.store.reviews(source: "bank/b")
            #expect(log.count == answers, "\(fault.name): \(log.count) answers, \(answers) made")
            #expect(Set(log.map(\.at)).count == answers, "\(fault.name): an answer counted twice")
            for record in log {
                guard case .date(let due) = record.after.due else { continue }
                #expect(due >= record.at, "\(fault.name): \(record)")
            }
        }
    }

    @Test("a redirect is never followed: the request stays with the store it was signed for, the sync stops on the 307, and the next one converges")
    func redirects() async throws {
        let scratch = try Scratch()
        let store = try await Store(scratch: scratch)
        defer { store.server.stop() }
        let key = LearnerKey.generate()
        let a = try Device("a", scratch: scratch, remote: try store.remote(), key: key)
        let b = try Device("b", scratch: scratch, remote: try store.remote(), key: key)
        try a.answer("q1", grade: 3, at: day0)
        _ = try await a.sync.sync()
        try await store.faults([("redirect", "GET", "/segments/", -1)])
        let error = await #expect(throws: SyncError.self) { try await b.sync.sync() }
        #expect(error?.code == .httpStatus && error?.detail.contains("307") == true, "\(String(describing: error))")
        #expect(try await store.log().allSatisfy { !$0.contains("/elsewhere/") })
        try await store.faults([])
        _ = try await b.sync.sync()
        #expect(try b.hash() == a.hash())
    }

    @Test("the store checks every signature with its own SigV4: ours pass, a wrong secret is refused (accessDenied, one line, nothing written)")
    func signatures() async throws {
        let scratch = try Scratch()
        let store = try await Store(scratch: scratch)
        defer { store.server.stop() }
        let key = LearnerKey.generate()
        let wrong = StoreCredentials(accessKeyID: Self.credentials.accessKeyID, secretAccessKey: "not-the-secret")
        let device = try Device("a", scratch: scratch, remote: try store.remote(credentials: wrong), key: key)
        try device.answer("q1", grade: 3, at: day0)
        let error = await #expect(throws: SyncError.self) { try await device.sync.sync() }
        #expect(error?.code == .accessDenied && error?.description.contains("SignatureDoesNotMatch") == true, "\(String(describing: error))")
        #expect(error.map { !$0.description.contains("\n") } == true)
        #expect(try await store.objects().isEmpty)
        #expect(try device.store.syncRemote() == nil)
    }
}
