import Foundation
import TestSupport
import Testing

/// minisign itself (Debian's `minisign`, installed by Scripts/setup) as the oracle: what packtool
/// signs, minisign verifies, and the other way round.
@Suite("packtool and minisign verify each other", .tags(.oracle), .fullTierOnly)
struct MinisignOracleTests {
    static func minisign(_ arguments: [String], in folder: String) throws -> ProcessResult {
        try run("minisign", arguments, in: folder)
    }

    @Test("packtool signs (ED and Ed), minisign -V verifies and prints the trusted comment")
    func packtoolSigns() throws {
        let scratch = try Scratch()
        try scratch.write("file.bin", seeded(3, 100_000))
        #expect(try Packtool.run("keygen", "--output", scratch.url("k")).status == 0)
        for legacy in [false, true] {
            let sign = try Packtool.run(
                ["sign", scratch.url("file.bin"), "--key", scratch.url("k.key"), "--trusted-comment", "catalog version 7"]
                    + (legacy ? ["--legacy"] : []))
            #expect(sign.status == 0, "\(sign.stderr)")
            let verify = try Self.minisign(["-V", "-p", "k.pub", "-m", "file.bin"], in: scratch.path)
            #expect(verify.status == 0, "\(verify.stderr)")
            #expect(verify.output.contains("Trusted comment: catalog version 7"))
            // minisign refuses what packtool refuses: the same file with one bit changed.
            var bytes = try scratch.bytes("file.bin")
            bytes[50_000] ^= 0x10
            try scratch.write("changed.bin", bytes)
            let changed = try Self.minisign(["-V", "-p", "k.pub", "-m", "changed.bin", "-x", "file.bin.minisig"], in: scratch.path)
            #expect(changed.status != 0)
        }
    }

    @Test("minisign signs (default and -l), packtool verifies; each tool signs with the other's secret key")
    func minisignSigns() throws {
        let scratch = try Scratch()
        try scratch.write("file.bin", seeded(4, 70_000))
        let generate = try Self.minisign(["-G", "-W", "-p", "m.pub", "-s", "m.key"], in: scratch.path)
        #expect(generate.status == 0, "\(generate.stderr)")
        for legacy in [false, true] {
            let sign = try Self.minisign(["-S", "-s", "m.key", "-m", "file.bin", "-t", "by minisign"] + (legacy ? ["-l"] : []), in: scratch.path)
            #expect(sign.status == 0, "\(sign.stderr)")
            let verify = try Packtool.run("verify-signature", scratch.url("file.bin"), "--public-key", scratch.url("m.pub"), "--json")
            #expect(verify.status == 0, "\(verify.stderr)")
            #expect(verify.output.contains("\"algorithm\":\"\(legacy ? "Ed" : "ED")\""))
            #expect(verify.output.contains("\"trustedComment\":\"by minisign\""))
            let key = String(try String(contentsOfFile: scratch.url("m.pub"), encoding: .utf8).split(separator: "\n")[1])
            #expect(try Packtool.run("verify-signature", scratch.url("file.bin"), "--public-key-string", key).status == 0)
        }
        // packtool signs with minisign's key; minisign signs with packtool's.
        #expect(try Packtool.run("sign", scratch.url("file.bin"), "--key", scratch.url("m.key")).status == 0)
        #expect(try Self.minisign(["-V", "-p", "m.pub", "-m", "file.bin"], in: scratch.path).status == 0)
        #expect(try Packtool.run("keygen", "--output", scratch.url("p")).status == 0)
        #expect(try Self.minisign(["-S", "-s", "p.key", "-m", "file.bin"], in: scratch.path).status == 0)
        #expect(try Packtool.run("verify-signature", scratch.url("file.bin"), "--public-key", scratch.url("p.pub")).status == 0)
    }

    @Test("minisign -V verifies a published catalog's signature and shows its version and expiry")
    func catalogSignature() throws {
        let repository = try SignedRepository()
        #expect(try repository.publish(4, expires: "2031-01-01T00:00:00Z").status == 0)
        let verify = try Self.minisign(["-V", "-p", repository.url("k1.pub"), "-m", "repo/catalogs/4.json"], in: repository.scratch.path)
        #expect(verify.status == 0, "\(verify.stderr)")
        #expect(verify.output.contains("Trusted comment: catalog version 4 expires 2031-01-01T00:00:00Z"))
    }
}
