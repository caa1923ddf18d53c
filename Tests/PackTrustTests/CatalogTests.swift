import AssetPack
import Foundation
import PackTrust
import TestSupport
import Testing

/// A scratch repository: three key pairs, two packs, a root trusting k1.
struct Repository {
    let scratch: Scratch
    let base: String
    let russian: String

    init() throws {
        scratch = try Scratch()
        for name in ["k1", "k2", "k3"] {
            let made = try Packtool.run("keygen", "--output", scratch.url(name))
            #expect(made.status == 0, "\(made.stderr)")
        }
        try scratch.write("src-base/Images/a.png", seeded(1, 3000))
        try scratch.write("src-ru/Text/hello.txt", "Привет\n")
        base = scratch.url("base.pack")
        russian = scratch.url("ru.pack")
        #expect(try Packtool.run("build", scratch.url("src-base"), "-o", base, "--name", "course").status == 0)
        #expect(try Packtool.run("build", scratch.url("src-ru"), "-o", russian, "--name", "course", "--locale", "ru").status == 0)
        #expect(try Packtool.run("root", "init", "--key", url("k1.key"), "--output", url("root.json")).status == 0)
    }

    func url(_ name: String) -> String { scratch.url(name) }

    func publishArguments(
        _ version: Int, keys: [String] = ["k1"], to folder: String = "repo", expires: String = "30d", packs: [String]? = nil
    ) -> [String] {
        ["publish"] + (packs ?? [base, russian]) + ["--to", url(folder), "--version", String(version), "--expires", expires]
            + keys.flatMap { ["--key", url($0 + ".key")] }
    }

    @discardableResult
    func publish(_ version: Int, keys: [String] = ["k1"], to folder: String = "repo", expires: String = "30d", packs: [String]? = nil)
        throws -> ProcessResult
    {
        try Packtool.run(publishArguments(version, keys: keys, to: folder, expires: expires, packs: packs))
    }

    func verifyArguments(_ folder: String = "repo", root: String = "root.json", state: String? = "state.json") -> [String] {
        ["verify-catalog", url(folder), "--root", url(root)] + (state.map { ["--state", url($0)] } ?? [])
    }

    func verify(_ folder: String = "repo", root: String = "root.json", state: String? = "state.json") throws -> ProcessResult {
        try Packtool.run(verifyArguments(folder, root: root, state: state))
    }

    func secretKey(_ name: String) throws -> Minisign.SecretKey {
        try Minisign.SecretKey(fileContents: try scratch.bytes(name + ".key"))
    }

    /// Every file under the scratch folder and its bytes: what "nothing written" compares.
    func snapshot() throws -> [String: [UInt8]] { try scratch.tree("") }

    /// Writes `catalog` into `folder` as version `version`, signed by `keys`, with the trusted
    /// comment given, and points `latest.json` at it.
    func writeSigned(_ catalog: [UInt8], version: Int = 2, keys: [String] = ["k1"], comment: String, folder: String = "repo") throws {
        try scratch.write(folder + "/" + RepositoryLayout.catalog(version), catalog)
        var signatures = ""
        for key in keys { signatures += try secretKey(key).sign(catalog, trustedComment: comment).fileContents }
        try scratch.write(folder + "/" + RepositoryLayout.signatures(version), signatures)
        try scratch.write(folder + "/" + RepositoryLayout.latest, LatestPointer(catalogVersion: version, rootVersion: 1).fileContents)
    }

    /// The catalog `latest.json` names in `folder`.
    func currentCatalog(_ folder: String = "repo") throws -> Catalog {
        let pointer = try LatestPointer(fileContents: try scratch.bytes(folder + "/" + RepositoryLayout.latest))
        return try Catalog(fileContents: try scratch.bytes(folder + "/" + RepositoryLayout.catalog(pointer.catalogVersion)))
    }
}

/// Expects a refusal: exit 1, one line on standard error, no file changed, and (for the
/// commands with --json) the error's `code`.
func expectRefusal(
    _ repository: Repository, _ code: String, sourceLocation: SourceLocation = #_sourceLocation, _ arguments: () throws -> [String]
) throws {
    let before = try repository.snapshot()
    let last = try arguments()
    let result = try Packtool.run(last)
    #expect(result.status == 1, "\(result.output) \(result.stderr)", sourceLocation: sourceLocation)
    #expect(
        result.stderr.hasPrefix("packtool: ") && result.stderr.filter { $0 == "\n" }.count == 1, "\(result.stderr)",
        sourceLocation: sourceLocation)
    let after = try repository.snapshot()
    #expect(after == before, "files changed: \(Set(after.keys).symmetricDifference(before.keys))", sourceLocation: sourceLocation)
    if ["verify-catalog", "verify-signature"].contains(last.first ?? "") {
        let json = try Packtool.run(last + ["--json"])
        #expect(json.output.contains("\"code\":\"\(code)\""), "\(json.output)", sourceLocation: sourceLocation)
        #expect(try repository.snapshot() == before, sourceLocation: sourceLocation)
    }
}

@Suite("Signed catalogs: publish, verify-catalog and what a client refuses")
struct CatalogTests {
    @Test("publish stores each pack once under its SHA-256, writes a deterministic catalog, and verify-catalog accepts it")
    func publishAndVerify() throws {
        let repository = try Repository()
        let expiry = "2031-01-01T00:00:00Z"
        #expect(try repository.publish(1, expires: expiry).status == 0)
        #expect(try repository.publish(1, to: "again", expires: expiry).status == 0)
        #expect(try repository.scratch.bytes("repo/catalogs/1.json") == repository.scratch.bytes("again/catalogs/1.json"))
        let catalog = try repository.currentCatalog()
        #expect(catalog.version == 1 && catalog.packs.map(\.locale) == [nil, "ru"])
        // Every pack's tail offset is where its index's JSON begins.
        for entry in catalog.packs {
            let bytes = try repository.scratch.bytes("repo/" + entry.path)
            let index = try #require(try Pack(path: repository.url("repo/" + entry.path)).indexData())
            #expect(Array(bytes[Int(entry.tailOffset)..<Int(entry.tailOffset) + index.count]) == Array(index))
            #expect(bytes[Int(entry.tailOffset)...].starts(with: Array("{\"format\":2".utf8)))
        }
        // Only latest.json is ever rewritten: version 1's files stay byte for byte.
        let first = try repository.scratch.tree("repo").filter { $0.key != RepositoryLayout.latest }
        for entry in catalog.packs {
            #expect(entry.path == "packs/\(entry.sha256.hex).pack")
            #expect(ExternalSHA256.file(repository.url("repo/" + entry.path)) == entry.sha256.hex)
        }
        let verified = try repository.verify()
        #expect(verified.status == 0, "\(verified.stderr)")
        #expect(verified.output.contains("OK, catalog version 1 (root version 1), 2 packs"))
        // The same packs again as version 2: stored once.
        #expect(try repository.publish(2).status == 0)
        #expect(try FileManager.default.contentsOfDirectory(atPath: repository.url("repo/packs")).count == 2)
        let second = try repository.scratch.tree("repo")
        for (name, bytes) in first { #expect(second[name] == bytes, "\(name) was rewritten") }
        #expect(try LatestPointer(fileContents: try repository.scratch.bytes("repo/latest.json")) == LatestPointer(catalogVersion: 2, rootVersion: 1))
        let json = try Packtool.run("verify-catalog", repository.url("repo"), "--root", repository.url("root.json"), "--json")
        #expect(json.output.hasPrefix("{\"path\":") && json.output.contains("\"ok\":true,\"rootVersion\":1,\"catalogVersion\":2"))
    }

    @Test("a catalog older than the last accepted is a rollback; the same version with other bytes is refused")
    func rollback() throws {
        let repository = try Repository()
        #expect(try repository.publish(1).status == 0)
        let first = try repository.scratch.tree("repo")
        #expect(try repository.verify().status == 0)
        #expect(try repository.publish(2).status == 0)
        #expect(try repository.verify().status == 0)
        try repository.scratch.write("repo/latest.json", try #require(first["latest.json"]))
        try expectRefusal(repository, "rollback") { repository.verifyArguments() }
        #expect(try repository.verify().stderr.contains("catalog version 1 is older than version 2"))
        // Version 2 again, with another expiry: other bytes.
        #expect(try repository.publish(2, to: "other", expires: "2032-01-01T00:00:00Z").status == 0)
        try expectRefusal(repository, "catalogChanged") { repository.verifyArguments("other") }
    }

    @Test("an expired catalog is refused (a freeze), and a catalog not signed by the root's threshold")
    func freezeAndThreshold() throws {
        let repository = try Repository()
        #expect(try repository.publish(1, expires: "1s").status == 0)
        Thread.sleep(forTimeInterval: 1.5)
        try expectRefusal(repository, "expiredCatalog") { repository.verifyArguments() }
        #expect(try repository.verify().stderr.contains("expired at"))
        // A root of k1 and k2, threshold 2: one signature is not enough, nor the same key twice.
        #expect(
            try Packtool.run(
                "root", "init", "--key", repository.url("k1.key"), "--key", repository.url("k2.key"), "--threshold", "2", "--output",
                repository.url("root2.json")
            ).status == 0)
        #expect(try repository.publish(2, keys: ["k1", "k1"]).status == 0)
        try expectRefusal(repository, "untrustedCatalog") { repository.verifyArguments(root: "root2.json", state: nil) }
        #expect(try repository.verify(root: "root2.json", state: nil).stderr.contains("1 valid signatures by root version 1's keys, its threshold is 2"))
        #expect(try repository.publish(3, keys: ["k1", "k2"]).status == 0)
        #expect(try repository.verify(root: "root2.json", state: nil).status == 0)
    }

    @Test("key rotation: root 2 signed by root 1's key and its own; the client walks to it and trusts only its keys")
    func rotation() throws {
        let repository = try Repository()
        try FileManager.default.createDirectory(atPath: repository.url("repo/roots"), withIntermediateDirectories: true)
        let next = try Packtool.run(
            "root", "next", repository.url("root.json"), "--public-key", repository.url("k2.pub"), "--key", repository.url("k1.key"), "--key",
            repository.url("k2.key"), "--output", repository.url("repo/roots/2.root.json"))
        #expect(next.status == 0, "\(next.stderr)")
        #expect(try repository.publish(1, keys: ["k2"]).status == 0)
        let verified = try repository.verify()
        #expect(verified.status == 0, "\(verified.stderr)")
        #expect(verified.output.contains("(root version 2)"))
        // The retired key no longer signs.
        #expect(try repository.publish(2, keys: ["k1"]).status == 0)
        try expectRefusal(repository, "untrustedCatalog") { repository.verifyArguments() }
        // A root 3 that root 2's key did not sign is not followed.
        var forged = try Root(version: 3, expires: Date().addingTimeInterval(86_400), threshold: 1, keys: [try repository.secretKey("k3").publicKey])
        try forged.sign(with: try repository.secretKey("k3"))
        try repository.scratch.write("repo/roots/3.root.json", forged.fileContents)
        #expect(try repository.publish(3, keys: ["k3"]).status == 0)
        try expectRefusal(repository, "untrustedRoot") { repository.verifyArguments() }
        #expect(try repository.verify().stderr.contains("roots/3.root.json"))
        // root next itself refuses to write a root the old keys did not sign.
        try expectRefusal(repository, "untrustedRoot") {
            [
                "root", "next", repository.url("root.json"), "--public-key", repository.url("k3.pub"), "--key", repository.url("k3.key"),
                "--output", repository.url("r3.json")]
        }
    }

    @Test("a pack file swapped for another pack (mix-and-match) is refused")
    func mixAndMatch() throws {
        let repository = try Repository()
        #expect(try repository.publish(1).status == 0)
        let catalog = try repository.currentCatalog()
        try repository.scratch.write("repo/" + catalog.packs[0].path, try repository.scratch.bytes("ru.pack"))
        try expectRefusal(repository, "packMismatch") { repository.verifyArguments() }
        #expect(try repository.verify().stderr.contains("the catalog says"))
    }

    @Test(
        "malformed, oversized or unsafe catalogs are refused before anything is used",
        arguments: [
            ("not JSON", "{\"format\":1,", "malformedCatalog"),
            ("duplicate keys", "{\"format\":1,\"format\":1,\"type\":\"catalog\",\"version\":1,\"expires\":\"2031-01-01T00:00:00Z\",\"packs\":[]}", "malformedCatalog"),
            ("missing field", "{\"format\":1,\"type\":\"catalog\",\"expires\":\"2031-01-01T00:00:00Z\",\"packs\":[]}", "malformedCatalog"),
            ("huge number", "{\"format\":1,\"type\":\"catalog\",\"version\":1e400,\"expires\":\"2031-01-01T00:00:00Z\",\"packs\":[]}", "malformedCatalog"),
            ("absolute path", "PATH:/etc/passwd", "unsafePath"),
            ("path with ..", "PATH:packs/../../secret.pack", "unsafePath"),
            ("path with a backslash", "PATH:packs\\\\x.pack", "unsafePath"),
            ("path with a control character", "PATH:packs/\\u0001.pack", "unsafePath"),
            ("100,000 packs", "MANY", "malformedCatalog"),
            ("over 16 MiB", "HUGE", "tooLarge"),
        ] as [(String, String, String)])
    func badCatalogs(name: String, text: String, code: String) throws {
        let repository = try Repository()
        #expect(try repository.publish(1).status == 0)
        let good = String(decoding: try repository.scratch.bytes("repo/catalogs/1.json"), as: UTF8.self)
        var catalog = text
        if text.hasPrefix("PATH:") {
            let path = String(text.dropFirst(5))
            let first = try #require(good.range(of: "\"path\":\"packs/"))
            let end = try #require(good[first.upperBound...].firstIndex(of: "\""))
            catalog = good.replacingCharacters(in: first.lowerBound...end, with: "\"path\":\"\(path)\"")
        } else if text == "MANY" {
            // The count is checked before any entry: 100,000 empty objects are enough.
            catalog = "{\"format\":2,\"type\":\"catalog\",\"version\":2,\"expires\":\"2031-01-01T00:00:00Z\",\"packs\":["
                + Array(repeating: "{}", count: 100_000).joined(separator: ",") + "]}"
        } else if text == "HUGE" {
            catalog = good + String(repeating: " ", count: 16 << 20)
        }
        try repository.writeSigned(Array(catalog.utf8), comment: "catalog version 2 expires 2031-01-01T00:00:00Z")
        try expectRefusal(repository, code) { repository.verifyArguments() }
        let json = try Packtool.run("verify-catalog", repository.url("repo"), "--root", repository.url("root.json"), "--json")
        #expect(json.status == 1)
        #expect(json.output.contains("\"ok\":false") && json.output.contains("\"code\":\"\(code)\""), "\(name): \(json.output)")
    }

    @Test(
        "roots with threshold 0, above their key count, a key listed twice, or expired are refused",
        arguments: ["threshold 0", "threshold 3", "key twice", "expired", "not self-signed"])
    func badRoots(kind: String) throws {
        let repository = try Repository()
        #expect(try repository.publish(1).status == 0)
        let k1 = try repository.secretKey("k1")
        let k2 = try repository.secretKey("k2")
        var text = ""
        switch kind {
        case "threshold 0", "threshold 3", "key twice":
            var root = try Root(version: 1, expires: Date().addingTimeInterval(86_400), threshold: 1, keys: [k1.publicKey, k2.publicKey])
            try root.sign(with: k1)
            text = root.fileContents
            text = text.replacingOccurrences(of: "\"threshold\":1", with: kind == "threshold 0" ? "\"threshold\":0" : kind == "threshold 3" ? "\"threshold\":3" : "\"threshold\":1")
            if kind == "key twice" {
                let entry = "{\"id\":\"\(k2.id)\",\"publicKey\":\"\(k2.publicKey.base64)\"}"
                text = text.replacingOccurrences(of: entry, with: "{\"id\":\"\(k1.id)\",\"publicKey\":\"\(k1.publicKey.base64)\"}")
            }
        case "expired":
            var root = try Root(version: 1, expires: Date().addingTimeInterval(-60), threshold: 1, keys: [k1.publicKey])
            try root.sign(with: k1)
            text = root.fileContents
        default:
            var root = try Root(version: 1, expires: Date().addingTimeInterval(86_400), threshold: 1, keys: [k1.publicKey])
            try root.sign(with: k2)
            text = root.fileContents
        }
        try repository.scratch.write("bad-root.json", text)
        let expected = kind == "expired" ? "expiredRoot" : kind == "not self-signed" ? "untrustedRoot" : "malformedRoot"
        try expectRefusal(repository, expected) { repository.verifyArguments(root: "bad-root.json") }
        let json = try repository.verify(root: "bad-root.json", state: nil)
        #expect(json.stderr.contains(expected == "malformedRoot" ? "bad-root.json: " : "root version 1"), "\(kind): \(json.stderr)")
    }

    @Test("publish refuses a version not greater than the folder's, a format-1 pack, and writes nothing")
    func publishRefusals() throws {
        let repository = try Repository()
        #expect(try repository.publish(3).status == 0)
        try expectRefusal(repository, "versionNotNewer") { repository.publishArguments(3) }
        try expectRefusal(repository, "versionNotNewer") { repository.publishArguments(2) }
        #expect(try Packtool.run("build", repository.url("src-ru"), "-o", repository.url("old.pack"), "--format", "1").status == 0)
        try expectRefusal(repository, "invalidArgument") { repository.publishArguments(4, packs: [repository.url("old.pack")]) }
    }

    @Test("bad keys and signatures: one line, exit 1, nothing written")
    func badKeysAndSignatures() throws {
        let repository = try Repository()
        let scratch = repository.scratch
        try scratch.write("file.txt", "hello\n")
        try scratch.write("other.txt", "other\n")
        #expect(try Packtool.run("sign", scratch.url("other.txt"), "--key", scratch.url("k1.key")).status == 0)
        #expect(try Packtool.run("sign", scratch.url("file.txt"), "--key", scratch.url("k1.key")).status == 0)
        let key = try scratch.bytes("k1.key")
        try scratch.write("truncated.key", Array(key.prefix(key.count - 30)))
        try scratch.write("huge.key", key + [UInt8](repeating: 0x41, count: 100_000))
        try scratch.write("junk.pub", String(decoding: try scratch.bytes("k1.pub"), as: UTF8.self).replacingOccurrences(of: "\nRW", with: "\nR%W"))
        let mode = try FileManager.default.attributesOfItem(atPath: scratch.url("k1.key"))[.posixPermissions] as? Int
        #expect(mode == 0o600)
        try expectRefusal(repository, "malformedKey") { ["sign", scratch.url("file.txt"), "--key", scratch.url("truncated.key")] }
        try expectRefusal(repository, "tooLarge") { ["sign", scratch.url("file.txt"), "--key", scratch.url("huge.key")] }
        try expectRefusal(repository, "malformedKey") {
            ["verify-signature", scratch.url("file.txt"), "--public-key", scratch.url("junk.pub")]
        }
        try expectRefusal(repository, "keyMismatch") {
            ["verify-signature", scratch.url("file.txt"), "--public-key", scratch.url("k2.pub")]
        }
        try expectRefusal(repository, "badSignature") {
            ["verify-signature", scratch.url("file.txt"), "--public-key", scratch.url("k1.pub"), "--signature", scratch.url("other.txt.minisig")]
        }
        try expectRefusal(repository, "fileExists") { ["keygen", "--output", scratch.url("k1")] }
        let mismatch = try Packtool.run("verify-signature", scratch.url("file.txt"), "--public-key", scratch.url("k2.pub"), "--json")
        #expect(mismatch.output.contains("\"code\":\"keyMismatch\""))
    }
}

extension ExternalSHA256 {
    static func file(_ path: String) -> String {
        guard let result = try? run("sha256sum", [path]) else { return "" }
        return String(result.output.prefix(64))
    }
}

/// SHA-256 as another program computes it (`sha256sum`).
enum ExternalSHA256 {}
