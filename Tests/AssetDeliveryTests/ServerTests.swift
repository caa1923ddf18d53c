import AssetPack
import Foundation
import PackTrust
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension Course {
    /// The root file the app ships.
    func rootFile() throws -> String {
        try scratch.write("root.json", root.fileContents)
        return scratch.url("root.json")
    }

    /// `packtool fetch` from `url` into `folder`.
    func fetch(_ url: String, into folder: String = "installed", locale: String = "ru", extra: [String] = []) throws -> ProcessResult {
        try Packtool.run(["fetch", url, "--into", scratch.url(folder), "--root", try rootFile(), "--locale", locale, "--json"] + extra)
    }

    /// The JSON object `packtool fetch --json` printed.
    static func report(_ result: ProcessResult) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any], "\(result.output) \(result.stderr)")
    }
}

@Suite("Delivery from real origins on 127.0.0.1: nginx, a misbehaving origin, SeaweedFS", .tags(.server), .fullTierOnly, .serialized)
struct ServerTests {
    @Test("from nginx: a locale's packs byte for byte, an update of changed entries only, and a fetch killed at random moments that finishes right")
    func nginx() throws {
        var course = try Course()
        try course.publish()
        let server = try LocalServer.nginx(root: course.repository, scratch: course.scratch)
        defer { server.stop() }
        let url = "http://127.0.0.1:\(server.port)/"
        let first = try course.fetch(url)
        #expect(first.status == 0, "\(first.stderr)")
        let report = try Course.report(first)
        #expect(report["installed"] as? [String] == ["course", "course (en)", "course (ru)"])
        for locale in [nil, "en", "ru"] as [String?] { #expect(try course.installed(locale) == course.published(locale)) }

        // Two texts and one picture change; the update fetches about their bytes and the new tails.
        try course.scratch.write("src/ru/Text/t3.txt", "ru text 3, corrected\n")
        try course.scratch.write("src/en/Text/t4.txt", "en text 4, corrected\n")
        var random = SeededBytes(state: 5)
        try course.scratch.write("src/base/Images/p50.png", random.bytes(17_000))
        try course.publish()
        let update = try Course.report(try course.fetch(url))
        #expect(update["updated"] as? [String] == ["course", "course (en)", "course (ru)"])
        let fetched = try #require(update["bytesFetched"] as? Int)
        let total = try [nil, "en", "ru"].map { try course.published($0).count }.reduce(0, +)
        #expect(fetched < total / 4, "\(fetched) bytes fetched for packs of \(total)")
        for locale in [nil, "en", "ru"] as [String?] { #expect(try course.installed(locale) == course.published(locale)) }

        // SIGKILL at random moments, then a run that finishes: the result is the published pack.
        var generator = SeededBytes(state: 77)
        for _ in 0..<5 {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: Packtool.binary)
            process.arguments = ["fetch", url, "--into", course.scratch.url("killed"), "--root", try course.rootFile(), "--locale", "ru"]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            let delay = Double(generator.bytes(1)[0]) / 255 * 0.15
            Thread.sleep(forTimeInterval: delay)
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        let finished = try course.fetch(url, into: "killed")
        #expect(finished.status == 0, "\(finished.stderr)")
        for locale in [nil, "en", "ru"] as [String?] { #expect(try course.installed(locale, folder: "killed") == course.published(locale)) }
    }

    @Test(
        "a misbehaving origin: each refusal is one line, exit 1, and the installed packs stay as they were and readable",
        arguments: [
            (["drop", "50000"], "network"), (["ignore-range"], "corruptDownload"), (["change-etag"], "corruptDownload"),
            (["endless"], "tooMuchData"), (["flip", "FLIP"], "corruptDownload"), (["stall"], "timeout"),
        ])
    func misbehaving(mode: [String], code: String) throws {
        var course = try Course()
        try course.publish()
        let good = try LocalServer.nginx(root: course.repository, scratch: course.scratch)
        #expect(try course.fetch("http://127.0.0.1:\(good.port)/").status == 0)
        good.stop()
        let before = try course.scratch.tree("installed").filter { $0.key.hasSuffix(".pack") }
        // A new version whose base pack changed in one picture, served badly.
        var random = SeededBytes(state: 3)
        try course.scratch.write("src/base/Images/p60.png", random.bytes(40_000))
        try course.publish()
        var arguments = mode
        if arguments == ["flip", "FLIP"] {
            let catalog = try Catalog(fileContents: try course.scratch.bytes("repo/catalog.json"))
            let base = try #require(catalog.packs.first { $0.locale == nil })
            let pack = try Pack(path: course.scratch.url("repo/" + base.path))
            arguments = ["flip", String(try InstallerTests.dataOffset(of: "Images/p60.png", in: pack) + 1000)]
        }
        let origin = try LocalServer.misbehaving(root: course.repository, mode: arguments, scratch: course.scratch)
        defer { origin.stop() }
        let result = try course.fetch("http://127.0.0.1:\(origin.port)/", extra: ["--timeout", "2"])
        #expect(result.status == 1, "\(mode): \(result.output)")
        #expect(result.output.contains("\"code\":\"\(code)\""), "\(mode): \(result.output) \(result.stderr)")
        #expect(result.stderr.hasPrefix("packtool: ") && result.stderr.filter { $0 == "\n" }.count == 1, "\(result.stderr)")
        let after = try course.scratch.tree("installed").filter { $0.key.hasSuffix(".pack") }
        #expect(after == before, "installed packs changed")
        for path in after.keys { #expect(throws: Never.self) { try Pack(path: course.scratch.url("installed/" + path)).verify() } }
    }

    @Test("a misbehaving origin serving an older, an expired or an unsafe catalog, validly signed: refused, nothing installed changes")
    func badCatalogs() throws {
        var course = try Course()
        try course.publish()
        let older = try course.scratch.tree("repo").filter { $0.key.hasPrefix("catalog") }
        let good = try LocalServer.nginx(root: course.repository, scratch: course.scratch)
        try course.publish()
        #expect(try course.fetch("http://127.0.0.1:\(good.port)/").status == 0)
        good.stop()
        let before = try course.scratch.tree("installed")
        // The older catalog (version 1): a rollback.
        for (name, bytes) in older { try course.scratch.write("old/" + name, bytes) }
        // An expired one, validly signed (a freeze), and one naming a path outside the folder.
        let catalog = try Catalog(fileContents: try course.scratch.bytes("repo/catalog.json"))
        for (folder, changed) in [
            ("expired", Catalog(version: 9, expires: Date().addingTimeInterval(-60), packs: catalog.packs)),
            ("outside", Catalog(version: 9, expires: Date().addingTimeInterval(3600), packs: catalog.packs.map { var entry = $0; entry.path = "../../etc/passwd"; return entry })),
        ] {
            try course.scratch.write(folder + "/catalog.json", changed.fileContents)
            try course.scratch.write(folder + "/catalog.json.minisig", try course.key.sign(changed.fileContents, trustedComment: changed.trustedComment).fileContents)
        }
        for (folder, cause) in [("old", "rollback"), ("expired", "expiredCatalog"), ("outside", "unsafePath")] {
            let origin = try LocalServer.misbehaving(root: course.repository, mode: ["catalog", course.scratch.url(folder)], scratch: course.scratch)
            let result = try course.fetch("http://127.0.0.1:\(origin.port)/")
            origin.stop()
            #expect(result.status == 1)
            #expect(result.output.contains("\"cause\":\"PackTrust.\(cause)\""), "\(folder): \(result.output)")
            #expect(try course.scratch.tree("installed") == before)
        }
    }

    @Test("from SeaweedFS's S3 gateway: the repository uploaded through its S3 API, fetched anonymously over HTTP with ranges")
    func seaweed() throws {
        var course = try Course()
        try course.publish()
        let server = try LocalServer.seaweed(scratch: course.scratch)
        defer { server.stop() }
        let s3 = "http://127.0.0.1:\(server.port)"
        // The bucket, then every file of the repository, through the S3 API (anonymous access:
        // the gateway has no identities configured).
        // The S3 port listens before the filer behind it is ready: try for up to 20 seconds.
        var made = try run("curl", ["-sS", "-o", "/dev/null", "-w", "%{http_code}", "-X", "PUT", s3 + "/course"])
        var attempts = 0
        while made.output != "200", attempts < 40 {
            attempts += 1
            Thread.sleep(forTimeInterval: 0.5)
            made = try run("curl", ["-sS", "-o", "/dev/null", "-w", "%{http_code}", "-X", "PUT", s3 + "/course"])
        }
        #expect(made.output == "200", "creating the bucket: \(made.output) \(made.stderr)")
        for path in try course.scratch.tree("repo").keys.sorted() {
            let put = try run(
                "curl", ["-sS", "-o", "/dev/null", "-w", "%{http_code}", "-X", "PUT", "--data-binary", "@" + course.scratch.url("repo/" + path), s3 + "/course/" + path])
            #expect(put.output == "200", "\(path): \(put.output) \(put.stderr)")
        }
        let result = try course.fetch(s3 + "/course/")
        #expect(result.status == 0, "\(result.stderr)")
        for locale in [nil, "en", "ru"] as [String?] { #expect(try course.installed(locale) == course.published(locale)) }
    }
}
