import Foundation
import StudyProgress
@testable import StudySync
import TestSupport
import Testing

/// Real stores on 127.0.0.1, started and stopped by the tests by PID.
@Suite("S3: SeaweedFS's S3 gateway with authentication", .tags(.server), .fullTierOnly, .serialized)
struct StoreTests {
    static let identity = StoreCredentials(accessKeyID: "learnerkey", secretAccessKey: "learner-secret-0123456789")

    /// SeaweedFS with one identity (its `-s3.config`), and the bucket made through a signed request.
    static func seaweed(_ scratch: Scratch) throws -> LocalServer {
        let config = """
            {"identities": [{"name": "learner", "credentials": [{"accessKey": "\(identity.accessKeyID)", "secretKey": "\(identity.secretAccessKey)"}],
              "actions": ["Admin", "Read", "List", "Write", "Tagging"]}]}
            """
        try scratch.write("s3.json", config)
        return try LocalServer.seaweed(scratch: scratch, config: scratch.url("s3.json"))
    }

    static func remote(_ server: LocalServer, credentials: StoreCredentials = identity) throws -> S3Remote {
        try S3Remote(url: "s3://progress/app", endpoint: "http://127.0.0.1:\(server.port)", region: "us-east-1", credentials: credentials, stallTimeout: 10)
    }

    /// Makes the bucket with a signed PUT, then writes and deletes an object outside the tests'
    /// prefixes, retried while SeaweedFS starts: its S3 port listens before the filer behind it
    /// is ready, and the bucket can be made before a volume server has registered with the
    /// master, when every object PUT is answered 500 for a while (seen on a loaded CI machine).
    static func makeBucket(_ server: LocalServer) async throws {
        let remote = try remote(server)
        let probe = try S3Remote(
            url: "s3://progress/ready", endpoint: "http://127.0.0.1:\(server.port)", region: "us-east-1", credentials: identity, stallTimeout: 10)
        let deadline = Date().addingTimeInterval(120)
        var bucket = false
        var last = ""
        while Date() < deadline {
            do {
                if !bucket {
                    try await remote.putBucket()
                    bucket = true
                }
                try await probe.put("probe", [1])
                try await probe.delete("probe")
                return
            } catch {
                last = error.description
                try await Task.sleep(nanoseconds: 500_000_000)
            }
        }
        Issue.record("SeaweedFS did not take a write within 120 s: \(last); its log ends: \(server.tail())")
    }

    @Test("two devices converge through the gateway; a request signed with a wrong secret is refused by the server (accessDenied), nothing written")
    func authenticated() async throws {
        let scratch = try Scratch()
        let server = try Self.seaweed(scratch)
        defer { server.stop() }
        try await Self.makeBucket(server)
        let key = LearnerKey.generate()
        let a = try Device("a", scratch: scratch, remote: try Self.remote(server), key: key)
        let b = try Device("b", scratch: scratch, remote: try Self.remote(server), key: key)
        for step in 0..<5 { try a.answer("q\(step)", grade: 3, at: day0.addingTimeInterval(Double(step) * 60)) }
        try b.answer("q1", grade: 1, at: day0.addingTimeInterval(30))
        _ = try await a.sync.sync()
        _ = try await b.sync.sync()
        let idle = try await a.sync.sync()
        #expect(try a.hash() == b.hash())
        #expect(idle.eventsReceived == 2 && idle.requests <= 2, "b's answer and seed: \(idle)")
        let quiet = try await a.sync.sync()
        #expect(quiet.requests == 1, "\(quiet)")

        let wrong = StoreCredentials(accessKeyID: Self.identity.accessKeyID, secretAccessKey: "not-the-secret")
        let c = try Device("c", scratch: scratch, remote: try Self.remote(server, credentials: wrong), key: key)
        try c.answer("q9", grade: 3, at: day0)
        let error = await #expect(throws: SyncError.self) { try await c.sync.sync() }
        #expect(error?.code == .accessDenied, "\(String(describing: error))")
        #expect(error?.description.contains("SignatureDoesNotMatch") == true, "\(String(describing: error))")
        #expect(try c.store.syncRemote() == nil)
        let listed = try await Self.remote(server).list(prefix: "learners/")
        #expect(!listed.contains { $0.name.contains(c.store.device.description) })
    }
}

extension S3Remote {
    /// CreateBucket (tests only).
    func putBucket() async throws(SyncError) {
        try await sendForTests("PUT")
    }
}
