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
            (["drop", "50000"], "network"), (["endless"], "tooMuchData"), (["flip", "FLIP"], "corruptDownload"), (["stall"], "timeout"),
            (["trickle"], "timeout"), (["flood"], "untrusted"), (["garbage-tail"], "pack"),
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
            let base = try #require(try course.currentCatalog().packs.first { $0.locale == nil })
            let pack = try Pack(path: course.scratch.url("repo/" + base.path))
            arguments = ["flip", String(try InstallerTests.dataOffset(of: "Images/p60.png", in: pack) + 1000)]
        }
        let origin = try LocalServer.misbehaving(root: course.repository, mode: arguments, scratch: course.scratch)
        defer { origin.stop() }
        let result = try course.fetch("http://127.0.0.1:\(origin.port)/", extra: ["--timeout", "2", "--deadline", "6"])
        #expect(result.status == 1, "\(mode): \(result.output)")
        #expect(result.output.contains("\"code\":\"\(code)\""), "\(mode): \(result.output) \(result.stderr)")
        #expect(result.stderr.hasPrefix("packtool: ") && result.stderr.filter { $0 == "\n" }.count == 1, "\(result.stderr)")
        let after = try course.scratch.tree("installed").filter { $0.key.hasSuffix(".pack") }
        #expect(after == before, "installed packs changed")
        for path in after.keys { #expect(throws: Never.self) { try Pack(path: course.scratch.url("installed/" + path)).verify() } }
    }

    @Test("a misbehaving origin serving an older catalog (the update waits), or an expired or unsafe one, validly signed (refused): nothing installed changes")
    func badCatalogs() throws {
        var course = try Course()
        try course.publish()
        let older = try course.scratch.bytes("repo/" + RepositoryLayout.latest)
        let good = try LocalServer.nginx(root: course.repository, scratch: course.scratch)
        try course.publish()
        #expect(try course.fetch("http://127.0.0.1:\(good.port)/").status == 0)
        good.stop()
        let before = try course.installedFiles()
        // The older pointer (version 1): what a stale cache serves.
        try course.scratch.write("old/" + RepositoryLayout.latest, older)
        try FileManager.default.createDirectory(atPath: course.scratch.url("old/catalogs"), withIntermediateDirectories: true)
        // An expired one, validly signed (a freeze), one naming a path outside the folder, and
        // one whose pack name would write outside it.
        let catalog = try course.currentCatalog()
        for (folder, changed) in [
            ("expired", Catalog(version: 9, expires: Date().addingTimeInterval(-60), packs: catalog.packs)),
            ("outside", Catalog(version: 9, expires: Date().addingTimeInterval(3600), packs: catalog.packs.map { var entry = $0; entry.path = "../../etc/passwd"; return entry })),
            ("stolen", Catalog(version: 9, expires: Date().addingTimeInterval(3600), packs: catalog.packs.map { var entry = $0; entry.name = "../stolen.txt\u{0}"; return entry })),
        ] {
            try course.scratch.write(folder + "/" + RepositoryLayout.catalog(9), changed.fileContents)
            try course.scratch.write(
                folder + "/" + RepositoryLayout.signatures(9), try course.key.sign(changed.fileContents, trustedComment: changed.trustedComment).fileContents)
            try course.scratch.write(folder + "/" + RepositoryLayout.latest, LatestPointer(catalogVersion: 9, rootVersion: 1).fileContents)
        }
        for (folder, cause) in [("old", nil), ("expired", "expiredCatalog"), ("outside", "unsafePath"), ("stolen", "unsafePath")] as [(String, String?)] {
            let origin = try LocalServer.misbehaving(root: course.repository, mode: ["catalog", course.scratch.url(folder)], scratch: course.scratch)
            let result = try course.fetch("http://127.0.0.1:\(origin.port)/")
            origin.stop()
            if let cause {
                #expect(result.status == 1)
                #expect(result.output.contains("\"cause\":\"PackTrust.\(cause)\""), "\(folder): \(result.output)")
            } else {
                #expect(result.status == 0, "\(result.stderr)")
                #expect(try Course.report(result)["pending"] as? String != nil, "\(result.output)")
            }
            #expect(try course.installedFiles() == before)
            #expect(!FileManager.default.fileExists(atPath: course.scratch.url("stolen.txt")))
        }
    }

    @Test("from python3 -m http.server, which has no byte ranges: whole packs, verified; an update fetches whole packs again")
    func noRanges() throws {
        var course = try Course()
        try course.publish()
        let server = try LocalServer.pythonHTTPServer(root: course.repository, scratch: course.scratch)
        defer { server.stop() }
        let url = "http://127.0.0.1:\(server.port)/"
        let first = try course.fetch(url)
        #expect(first.status == 0, "\(first.stderr)")
        #expect(try Course.report(first)["wholeFiles"] as? Bool == true)
        for locale in [nil, "en", "ru"] as [String?] { #expect(try course.installed(locale) == course.published(locale)) }
        try course.scratch.write("src/ru/Text/t3.txt", "ru text 3, corrected\n")
        try course.publish()
        let update = try Course.report(try course.fetch(url))
        #expect(update["updated"] as? [String] == ["course (ru)"], "\(update)")
        for locale in [nil, "en", "ru"] as [String?] { #expect(try course.installed(locale) == course.published(locale)) }
    }

    @Test("peak memory of a hostile install (a flood of roots, a garbage tail) stays within 64 MiB of an honest install's")
    func memoryBounded() throws {
        let scratch = try Scratch()
        var random = SeededBytes(state: 99)
        for number in 0..<160 { try scratch.write("src/Images/big\(number).png", random.bytes(256 << 10)) }
        let key = Minisign.SecretKey.generate()
        var root = try Root(version: 1, expires: Date().addingTimeInterval(86_400), threshold: 1, keys: [key.publicKey])
        try root.sign(with: key)
        try scratch.write("root.json", root.fileContents)
        var builder = PackBuilder(options: .init(name: "big"))
        try builder.addDirectory(atPath: scratch.url("src"))
        try builder.write(to: scratch.url("big.pack"))
        _ = try Publisher.publish(packs: [scratch.url("big.pack")], to: scratch.url("repo"), keys: [key], version: 1, expires: Date().addingTimeInterval(3600))
        /// Peak resident memory of `packtool fetch` from `origin`, in KiB (Linux's ru_maxrss).
        func peak(_ origin: LocalServer, into folder: String) throws -> (Int, ProcessResult) {
            let measured = try run(
                "python3",
                ["-c", "import resource,subprocess,sys; r=subprocess.run(sys.argv[1:]); print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, file=sys.stderr); sys.exit(r.returncode)",
                 Packtool.binary, "fetch", "http://127.0.0.1:\(origin.port)/", "--into", scratch.url(folder), "--root", scratch.url("root.json"), "--json", "--timeout", "5"])
            let kib = Int(measured.stderr.split(separator: "\n").last.map(String.init) ?? "") ?? 0
            return (kib, measured)
        }
        let honestServer = try LocalServer.nginx(root: scratch.url("repo"), scratch: scratch)
        let (honest, honestRun) = try peak(honestServer, into: "honest")
        honestServer.stop()
        #expect(honestRun.status == 0, "\(honestRun.stderr)")
        #expect(honest > 0)
        for mode in ["flood", "garbage-tail"] {
            let origin = try LocalServer.misbehaving(root: scratch.url("repo"), mode: [mode], scratch: scratch)
            let (hostile, result) = try peak(origin, into: mode)
            origin.stop()
            #expect(result.status == 1, "\(mode): \(result.output)")
            #expect(hostile <= honest + 64 << 10, "\(mode): \(hostile) KiB at peak, an honest install \(honest) KiB")
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
