import Foundation
@testable import StudySync
import TestSupport
import Testing

@Suite("SigV4 against AWS's published vectors")
struct SigV4Tests {
    struct Vector: Decodable {
        var name, method, path, service, region, accessKey, secret, payloadHash, authorization: String
        var query: [[String]]
        var headers: [[String]]
    }

    struct Fixture: Decodable {
        var source: String
        var vectors: [Vector]
    }

    static let fixture: Fixture? = {
        guard let data = FileManager.default.contents(atPath: Repository.path("Tests/StudySyncTests/Fixtures/sigv4-vectors.json")) else { return nil }
        return try? JSONDecoder().decode(Fixture.self, from: data)
    }()

    @Test("each vector's Authorization header, byte for byte (get-vanilla, post-vanilla, query order, session token, S3 GET Object)")
    func vectors() throws {
        let fixture = try #require(Self.fixture)
        #expect(fixture.vectors.count == 5)
        for vector in fixture.vectors {
            let authorization = SigV4.authorization(
                method: vector.method, path: vector.path, query: vector.query.map { ($0[0], $0[1]) }, headers: vector.headers.map { ($0[0], $0[1]) },
                payloadHash: vector.payloadHash, region: vector.region, service: vector.service,
                credentials: StoreCredentials(accessKeyID: vector.accessKey, secretAccessKey: vector.secret))
            #expect(authorization == vector.authorization, "\(vector.name)")
        }
    }

    @Test("percent-encoding keeps only RFC 3986's unreserved characters; the query sorts by encoded name")
    func encoding() {
        #expect(SigV4.encode("a b/c~d*é") == "a%20b%2Fc~d%2A%C3%A9")
        #expect(SigV4.encode("learners/0a/x-1.y_z", keepingSlashes: true) == "learners/0a/x-1.y_z")
        #expect(SigV4.canonicalQuery([("prefix", "a/b"), ("list-type", "2")]) == "list-type=2&prefix=a%2Fb")
    }
}
