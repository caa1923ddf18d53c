// deliverybench: packs delivered after install, from nginx, measured side by side with curl in
// one run (release build): first installs per locale, a full install against curl at 100 and
// 20 Mbit/s, a 1% update, kills at random moments, a reader during 50 updates, and CPU time per
// 100 MB on plain loopback.
//
// A phone never downloads at loopback speed: the link is made real in a network namespace of
// the benchmark's own (`ip netns`), whose loopback gets `mtu 1500` and a `tbf` qdisc at the rate
// each figure names; nginx, curl and the installer all run inside it. Where `ip netns` cannot be
// used (not root, a Mac), the benchmark says so and measures on plain loopback.
//   deliverybench [--data .build-bench]          (Scripts/bench-delivery)
//   deliverybench --inside NAMESPACE [--data D]   (the same, already inside the namespace)
//   deliverybench fetch-child URL DIR ROOT        (one install, for the kill loop)
import AssetDelivery
import AssetLibrary
import AssetPack
import Foundation
import PackTrust
import StudyEngine

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

struct Failure: Error, CustomStringConvertible { let description: String }

func log(_ text: String) { FileHandle.standardError.write(Data((text + "\n").utf8)) }

func seconds(_ body: () throws -> Void) rethrows -> Double {
    let start = DispatchTime.now().uptimeNanoseconds
    try body()
    return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
}

func secondsAsync(_ body: () async throws -> Void) async rethrows -> Double {
    let start = DispatchTime.now().uptimeNanoseconds
    try await body()
    return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
}

func shell(_ executable: String, _ arguments: [String]) throws -> (Int32, String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = pipe
    try process.run()
    let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    return (process.terminationStatus, output)
}

func freePort() -> Int {
    let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(descriptor) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) } }
    _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) } }
    return Int(UInt16(bigEndian: address.sin_port))
}

/// nginx serving `root` on a free loopback port, logging every response's body bytes.
final class Nginx {
    let port: Int
    let process = Process()
    let logPath: String

    init(root: String, work: String) throws {
        port = freePort()
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        logPath = work + "/bytes.log"
        _ = FileManager.default.createFile(atPath: logPath, contents: nil)
        let config = """
            daemon off; master_process off; worker_processes 1; pid \(work)/nginx.pid; error_log \(work)/error.log;
            events { worker_connections 256; }
            http { log_format bytes '$body_bytes_sent'; access_log \(logPath) bytes;
              client_body_temp_path \(work)/b; proxy_temp_path \(work)/p; fastcgi_temp_path \(work)/f; uwsgi_temp_path \(work)/u; scgi_temp_path \(work)/s;
              default_type application/octet-stream; server { listen 127.0.0.1:\(port); root \(root); } }
            """
        try config.write(toFile: work + "/nginx.conf", atomically: true, encoding: .utf8)
        process.executableURL = URL(fileURLWithPath: FileManager.default.isExecutableFile(atPath: "/usr/sbin/nginx") ? "/usr/sbin/nginx" : "/usr/bin/nginx")
        process.arguments = ["-c", work + "/nginx.conf", "-p", work, "-e", work + "/error.log"]
        process.standardError = FileHandle.nullDevice
        try process.run()
        for _ in 0..<200 {
            if (try? shell("/usr/bin/curl", ["-s", "-o", "/dev/null", "http://127.0.0.1:\(port)/"]).0) == 0 { return }
            Thread.sleep(forTimeInterval: 0.05)
        }
        throw Failure(description: "nginx did not start on 127.0.0.1:\(port)")
    }

    var url: URL { URL(string: "http://127.0.0.1:\(port)/")! }

    /// Body bytes nginx sent since the log was last reset (nginx writes each line as a response ends).
    func bytesSent() -> UInt64 {
        ((try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "").split(separator: "\n").compactMap { UInt64($0) }.reduce(0, +)
    }

    func resetLog() { try? Data().write(to: URL(fileURLWithPath: logPath)) }

    private var stopped = false

    /// SIGTERM, then SIGKILL after two seconds; polled, not waited on.
    func stop() {
        guard !stopped else { return }
        stopped = true
        let pid = process.processIdentifier
        kill(pid, SIGTERM)
        for _ in 0..<40 where process.isRunning { usleep(50_000) }
        if process.isRunning { kill(pid, SIGKILL) }
        log("   (nginx on port \(port) stopped)")
    }
}

/// One signing key and a root over it.
struct Signer {
    let key = Minisign.SecretKey.generate()
    let root: Root

    init() throws {
        var root = try Root(version: 1, expires: Date().addingTimeInterval(86_400 * 365), threshold: 1, keys: [key.publicKey])
        try root.sign(with: key)
        self.root = root
    }
}

func buildPack(_ folder: String, to path: String, name: String, locale: String? = nil) throws {
    var builder = PackBuilder(options: .init(name: name, locale: locale))
    try builder.addDirectory(atPath: folder)
    try builder.write(to: path)
}

@main
struct DeliveryBench {
    static func main() async {
        do {
            let arguments = Array(CommandLine.arguments.dropFirst())
            if arguments.first == "fetch-child", arguments.count == 4 {
                let root = try Root(fileContents: Array(try Data(contentsOf: URL(fileURLWithPath: arguments[3]))))
                guard let repository = URL(string: arguments[1]) else { throw Failure(description: "\(arguments[1]) is not a URL") }
                let installer = try PackInstaller(folder: arguments[2], repository: repository, root: root)
                try await installer.makeAvailable(locales: ["en"])
                return
            }
            var data = ".build-bench"
            if let index = arguments.firstIndex(of: "--data"), index + 1 < arguments.count { data = arguments[index + 1] }
            if let index = arguments.firstIndex(of: "--inside"), index + 1 < arguments.count {
                try await run(data: data, link: Link(namespace: arguments[index + 1]))
                return
            }
            if let namespace = Link.makeNamespace() {
                // Again, inside the namespace; it is removed whatever happens.
                let child = Process()
                child.executableURL = URL(fileURLWithPath: "/usr/sbin/ip")
                child.arguments = ["netns", "exec", namespace, CommandLine.arguments[0], "--inside", namespace, "--data", data]
                try child.run()
                child.waitUntilExit()
                _ = try? shell("/usr/sbin/ip", ["netns", "del", namespace])
                exit(child.terminationStatus)
            }
            log("deliverybench: ip netns cannot be used here (it needs Linux and root): measuring on plain loopback, no rate limit")
            try await run(data: data, link: Link(namespace: nil))
        } catch {
            log("deliverybench: \(error)")
            exit(1)
        }
    }

    static func run(data: String, link: Link) async throws {
        let work = FileManager.default.currentDirectoryPath + "/" + data + "/delivery"
        try? FileManager.default.removeItem(atPath: work)
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        let signer = try Signer()
        var lines: [String] = []
        var figures: [String] = []
        lines.append(link.namespace.map { "the link: a network namespace of its own (\($0)), loopback at mtu 1500 through a tbf qdisc at the rate each line names; nginx, curl and the installer inside it" }
            ?? "the link: plain loopback (ip netns is not available here), no rate limit")
        lines.append("")

        // 1. The driving packs: a first install per locale (base + en + the locale) against all five, at 100 Mbit/s.
        try link.limit(to: "100mbit")
        let repository = work + "/driving-repo"
        var driving: [String] = []
        for name in ["driving-base", "driving-en", "driving-ru", "driving-zh-Hans", "driving-pa"] {
            let out = work + "/\(name).pack"
            let settings = try PackBuildSettings.load(fromFolder: "Packs/" + name)
            var builder = PackBuilder(options: .init(name: settings.name ?? name, locale: settings.locale, contentVersion: settings.contentVersion))
            try builder.addDirectory(atPath: "Packs/" + name)
            try builder.write(to: out)
            driving.append(out)
        }
        _ = try Publisher.publish(packs: driving, to: repository, keys: [signer.key], version: 1, expires: Date().addingTimeInterval(86_400))
        let all = try driving.map { try FileManager.default.attributesOfItem(atPath: $0)[.size] as? UInt64 ?? 0 }.reduce(0, +)
        let nginx = try Nginx(root: repository, work: work + "/nginx-driving")
        defer { nginx.stop() }
        lines.append("| first install, driving packs (\(link.label("100mbit"))) | bytes fetched | time | all five packs |")
        lines.append("|---|---|---|---|")
        log("first installs from nginx on port \(nginx.port)")
        for locale in ["en", "ru", "zh-Hans", "pa"] {
            let installer = try PackInstaller(folder: work + "/device-\(locale)", repository: nginx.url, root: signer.root)
            var report: InstallReport?
            let time = try await secondsAsync { report = try await installer.makeAvailable(locales: [locale]) }
            let fetched = report?.bytesFetched ?? 0
            lines.append(String(format: "| %@ (%@) | %.2f MB (%.0f%%) | %.0f ms | %.2f MB |", locale, report?.installed.joined(separator: ", ") ?? "", Double(fetched) / 1e6, Double(fetched) / Double(all) * 100, time * 1000, Double(all) / 1e6))
        }
        nginx.stop()

        // 2. A tree3k-sized pack: full installs against curl, side by side, at 100 and 20 Mbit/s.
        log("tree3k: full installs beside curl")
        let tree = data + "/tree3k-v1/files"
        guard FileManager.default.fileExists(atPath: tree) else { throw Failure(description: "\(tree) is missing: run Scripts/bench first (it generates the datasets)") }
        let treeRepo = work + "/tree-repo"
        let treeCopy = work + "/tree-src"
        _ = try shell("/bin/cp", ["-r", tree, treeCopy])
        try buildPack(treeCopy, to: work + "/tree-v1.pack", name: "tree3k")
        let catalog1 = try Publisher.publish(packs: [work + "/tree-v1.pack"], to: treeRepo, keys: [signer.key], version: 1, expires: Date().addingTimeInterval(86_400))
        let packPath = catalog1.packs[0].path
        let size = catalog1.packs[0].size
        let treeServer = try Nginx(root: treeRepo, work: work + "/nginx-tree")
        defer { treeServer.stop() }
        var fullInstall: [String: Double] = [:]
        lines.append("")
        lines.append(String(format: "| full install of tree3k (%.1f MB) | ours (packtool's installer) | curl | ours / curl |", Double(size) / 1e6))
        lines.append("|---|---|---|---|")
        for (rate, rounds) in [("100mbit", 3), ("20mbit", 3)] {
            try link.limit(to: rate)
            var ours: [Double] = []
            var curl: [Double] = []
            for round in 0..<rounds {
                let folder = work + "/full-\(rate)-\(round)"
                let installer = try PackInstaller(folder: folder, repository: treeServer.url, root: signer.root)
                ours.append(try await secondsAsync { try await installer.makeAvailable(locales: ["en"]) })
                curl.append(try seconds { _ = try shell("/usr/bin/curl", ["-s", "-o", work + "/curl-\(round).pack", treeServer.url.absoluteString + packPath]) })
            }
            let oursMedian = ours.sorted()[rounds / 2]
            let curlMedian = curl.sorted()[rounds / 2]
            fullInstall[rate] = oursMedian
            lines.append(String(format: "| %@, median of %d | %.2f s | %.2f s | %.2f× |", link.label(rate), rounds, oursMedian, curlMedian, oursMedian / curlMedian))
            figures.append(String(format: "- [%@] full install ≤ 1.1× curl at %@: %.2f×", oursMedian <= 1.1 * curlMedian ? "reached" : "NOT reached", link.label(rate), oursMedian / curlMedian))
        }

        // 3. An update with 1% of the entries changed (30 of 3,000 files), at 100 Mbit/s.
        try link.limit(to: "100mbit")
        let files = (try FileManager.default.subpathsOfDirectory(atPath: treeCopy)).filter { !$0.hasSuffix("/") }.sorted()
        var changedBytes: UInt64 = 0
        var random = SplitMix64(seed: 2026)
        var changedCount = 0
        for (index, file) in files.enumerated() where index % 100 == 7 {
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: treeCopy + "/" + file, isDirectory: &isFolder), !isFolder.boolValue else { continue }
            var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: treeCopy + "/" + file)))
            for position in stride(from: 0, to: bytes.count, by: 97) { bytes[position] = UInt8(truncatingIfNeeded: random.next()) }
            try Data(bytes).write(to: URL(fileURLWithPath: treeCopy + "/" + file))
            changedBytes += UInt64(bytes.count)
            changedCount += 1
        }
        try buildPack(treeCopy, to: work + "/tree-v2.pack", name: "tree3k")
        let catalog2 = try Publisher.publish(packs: [work + "/tree-v2.pack"], to: treeRepo, keys: [signer.key], version: 2, expires: Date().addingTimeInterval(86_400))
        // The new headers, index and central directory: the tail the catalog names, to the end.
        let tailBytes = catalog2.packs[0].size - catalog2.packs[0].tailOffset
        let updater = try PackInstaller(folder: work + "/full-100mbit-0", repository: treeServer.url, root: signer.root)
        var updateReport: InstallReport?
        treeServer.resetLog()
        let updateTime = try await secondsAsync { updateReport = try await updater.makeAvailable(locales: ["en"]) }
        let fetched = updateReport?.bytesFetched ?? 0
        let full100 = fullInstall["100mbit"] ?? 1
        // Changed entries' bytes (their local headers are made again, not fetched) + the tail + 64 KiB.
        let budget = changedBytes + tailBytes + 64 << 10
        lines.append("")
        lines.append(String(format: "update with %d of %d files changed (%.2f MB of entries), %@: fetched %.2f MB in %.0f ms (the full install: %.0f ms)", changedCount, files.count, Double(changedBytes) / 1e6, link.label("100mbit"), Double(fetched) / 1e6, updateTime * 1000, full100 * 1000))
        figures.append(String(format: "- [%@] 1%% update bytes ≤ changed entries + new headers, directory and index + 64 KiB: %.2f MB ≤ %.2f MB", fetched <= budget ? "reached" : "NOT reached", Double(fetched) / 1e6, Double(budget) / 1e6))
        figures.append(String(format: "- [%@] 1%% update time ≤ 0.1× the full install at %@: %.3f×", updateTime <= 0.1 * full100 ? "reached" : "NOT reached", link.label("100mbit"), updateTime / full100))

        // The rest as before: no rate limit.
        try link.limit(to: nil)
        log("kills")
        // 4. SIGKILL at 20 random moments of a full install, then a run that finishes.
        let killFolder = work + "/killed"
        try (signer.root.fileContents).write(toFile: work + "/root.json", atomically: true, encoding: .utf8)
        var unlimited: [Double] = []
        for round in 0..<3 {
            let installer = try PackInstaller(folder: work + "/unlimited-\(round)", repository: treeServer.url, root: signer.root)
            unlimited.append(try await secondsAsync { try await installer.makeAvailable(locales: ["en"]) })
        }
        let unlimitedFull = unlimited.sorted()[1]
        treeServer.resetLog()
        var kills = 0
        for _ in 0..<20 {
            let child = Process()
            child.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
            child.arguments = ["fetch-child", treeServer.url.absoluteString, killFolder, work + "/root.json"]
            try child.run()
            try await Task.sleep(nanoseconds: UInt64(Double(random.next() % 1000) / 1000 * unlimitedFull * 1e9))
            if child.isRunning {
                kill(child.processIdentifier, SIGKILL)
                kills += 1
            }
            child.waitUntilExit()
        }
        let finisher = try PackInstaller(folder: killFolder, repository: treeServer.url, root: signer.root)
        try await finisher.makeAvailable(locales: ["en"])
        try await Task.sleep(nanoseconds: 200_000_000)
        let killedTotal = treeServer.bytesSent()
        let identical = try Data(contentsOf: URL(fileURLWithPath: killFolder + "/tree3k.pack")) == Data(contentsOf: URL(fileURLWithPath: work + "/tree-v2.pack"))
        let limit = 1.1 * Double(size) + Double(kills) * 1_048_576
        lines.append(String(format: "20 random kills (%d landed mid-install), then a finishing run: %.2f MB fetched in all for a %.2f MB pack; result identical: %@", kills, Double(killedTotal) / 1e6, Double(size) / 1e6, identical ? "yes" : "NO"))
        figures.append(String(format: "- [%@] fetched ≤ 1.1× a clean install + 1 MiB per kill: %.2f MB ≤ %.2f MB", Double(killedTotal) <= limit && identical ? "reached" : "NOT reached", Double(killedTotal) / 1e6, limit / 1e6))

        log("a reader during 50 updates")
        // 5. A reader doing random reads with SHA-256 checks while 50 updates swap the pack under it.
        let readerFolder = work + "/reader"
        let readerInstaller = try PackInstaller(folder: readerFolder, repository: treeServer.url, root: signer.root)
        try await readerInstaller.makeAvailable(locales: ["en"])
        let store = AssetStore()
        try store.mount(path: readerFolder + "/tree3k.pack")
        await readerInstaller.attach(store)
        let names = try Pack(path: readerFolder + "/tree3k.pack").entries.map(\.path)
        let reader = Reader(store: store, names: names)
        let idle = reader.measure(seconds: 1)
        let background = Thread { reader.runUntilStopped() }
        background.start()
        var version = 3
        for round in 0..<50 {
            // Alternate two contents: each update changes 30 entries back and forth.
            if round % 2 == 0 {
                for (index, file) in files.enumerated() where index % 100 == 13 {
                    let path = treeCopy + "/" + file
                    var bytes = [UInt8]((try? Data(contentsOf: URL(fileURLWithPath: path))) ?? Data())
                    if !bytes.isEmpty { bytes[0] ^= 0x5A }
                    try? Data(bytes).write(to: URL(fileURLWithPath: path))
                }
            }
            try buildPack(treeCopy, to: work + "/tree-r.pack", name: "tree3k")
            _ = try Publisher.publish(packs: [work + "/tree-r.pack"], to: treeRepo, keys: [signer.key], version: version, expires: Date().addingTimeInterval(86_400))
            version += 1
            try await readerInstaller.makeAvailable(locales: ["en"])
        }
        let during = reader.stop()
        lines.append(String(format: "a reader during 50 updates: %d reads, %d torn (bytes not the entry's SHA-256), median %.0f ns a read (idle %.0f ns)", during.reads, during.torn, during.median, idle.median))
        figures.append(String(format: "- [%@] 0 torn reads, latency during updates ≤ 1.5× idle: %d torn, %.2f×", during.torn == 0 && during.median <= 1.5 * idle.median ? "reached" : "NOT reached", during.torn, during.median / idle.median))

        // 6. CPU time per 100 MB fetched, on plain loopback: the installer beside curl (recorded, no target).
        log("CPU time per 100 MB")
        var oursCPU: [Double] = []
        var curlCPU: [Double] = []
        for round in 0..<3 {
            let installer = try PackInstaller(folder: work + "/cpu-\(round)", repository: treeServer.url, root: signer.root)
            let before = cpuSeconds(children: false)
            try await installer.makeAvailable(locales: ["en"])
            oursCPU.append(cpuSeconds(children: false) - before)
            let children = cpuSeconds(children: true)
            _ = try shell("/usr/bin/curl", ["-s", "-o", work + "/curl-cpu.pack", treeServer.url.absoluteString + catalog2.packs[0].path])
            curlCPU.append(cpuSeconds(children: true) - children)
        }
        let per100 = 100e6 / Double(catalog2.packs[0].size)
        lines.append(String(format: "CPU time per 100 MB fetched on plain loopback, median of 3 (user + system): ours %.2f s, curl %.2f s (%.1f×)", oursCPU.sorted()[1] * per100, curlCPU.sorted()[1] * per100, oursCPU.sorted()[1] / max(curlCPU.sorted()[1], 1e-9)))
        treeServer.stop()

        print("deliverybench: packs from nginx, side by side with curl, release build")
        print(lines.joined(separator: "\n"))
        print("")
        print("Figures to reach:")
        print(figures.joined(separator: "\n"))
    }
}

/// CPU seconds (user + system) of this process, or of its waited-for children (`getrusage`).
func cpuSeconds(children: Bool) -> Double {
    var usage = rusage()
    #if canImport(Glibc)
        getrusage(__rusage_who_t((children ? RUSAGE_CHILDREN : RUSAGE_SELF).rawValue), &usage)
    #else
        getrusage(children ? RUSAGE_CHILDREN : RUSAGE_SELF, &usage)
    #endif
    return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
}

/// The link the benchmark measures over: a network namespace's loopback shaped with `tc tbf`,
/// or plain loopback where no namespace can be made.
struct Link {
    let namespace: String?

    /// Makes a namespace of the benchmark's own, or `nil` where `ip netns` cannot be used.
    static func makeNamespace() -> String? {
        guard getuid() == 0, FileManager.default.isExecutableFile(atPath: "/usr/sbin/ip"), FileManager.default.isExecutableFile(atPath: "/usr/sbin/tc") else { return nil }
        let name = "assetpacks-bench-\(getpid())"
        guard (try? shell("/usr/sbin/ip", ["netns", "add", name]))?.0 == 0 else { return nil }
        // Loopback up at an Ethernet MTU before anything runs inside: Foundation binds sockets
        // to 127.0.0.1 at start (CFSocket's wake-up pair for Process), which fails, and then
        // hangs, while the namespace's loopback is down.
        for arguments in [["link", "set", "lo", "up"], ["link", "set", "lo", "mtu", "1500"]] {
            guard (try? shell("/usr/sbin/ip", ["netns", "exec", name, "/usr/sbin/ip"] + arguments))?.0 == 0 else {
                _ = try? shell("/usr/sbin/ip", ["netns", "del", name])
                return nil
            }
        }
        return name
    }

    /// Shapes loopback to `rate` (a tc rate: 100mbit), or removes the shaping (`nil`).
    func limit(to rate: String?) throws {
        guard namespace != nil else { return }
        if let rate {
            let (status, output) = try shell("/usr/sbin/tc", ["qdisc", "replace", "dev", "lo", "root", "tbf", "rate", rate, "burst", "256kb", "latency", "50ms"])
            guard status == 0 else { throw Failure(description: "tc: \(output)") }
        } else {
            _ = try shell("/usr/sbin/tc", ["qdisc", "del", "dev", "lo", "root"])
        }
    }

    /// How a line names the link at `rate`.
    func label(_ rate: String) -> String {
        guard namespace != nil else { return "plain loopback" }
        return rate.replacingOccurrences(of: "mbit", with: " Mbit/s")
    }
}

/// Random reads through a store, each checked against the entry's SHA-256 in the pack's index
/// (stricter than its CRC-32).
final class Reader: @unchecked Sendable {
    let store: AssetStore
    let names: [String]
    private let lock = NSLock()
    private var stopped = false
    private var samples: [Double] = []
    private var reads = 0
    private var torn = 0

    init(store: AssetStore, names: [String]) {
        self.store = store
        self.names = names
    }

    struct Result { var reads: Int; var torn: Int; var median: Double }

    private func readOnce(_ random: inout SplitMix64) -> Double {
        let name = names[Int(random.next() % UInt64(names.count))]
        let start = DispatchTime.now().uptimeNanoseconds
        var ok = true
        if let hit = store.lookup(name), let data = try? hit.data() {
            let actual = data.withUnsafeBytes { EntryHash.of($0) }
            ok = (try? hit.pack.sha256(of: hit.entry)) == actual
        }
        let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start)
        lock.withLock {
            reads += 1
            if !ok { torn += 1 }
        }
        return elapsed
    }

    func measure(seconds: Double) -> Result {
        var random = SplitMix64(seed: 1)
        var times: [Double] = []
        let end = Date().addingTimeInterval(seconds)
        while Date() < end { times.append(readOnce(&random)) }
        times.sort()
        return Result(reads: times.count, torn: 0, median: times[times.count / 2])
    }

    func runUntilStopped() {
        var random = SplitMix64(seed: 2)
        while !lock.withLock({ stopped }) {
            let time = readOnce(&random)
            lock.withLock { samples.append(time) }
        }
    }

    func stop() -> Result {
        lock.withLock { stopped = true }
        Thread.sleep(forTimeInterval: 0.05)
        return lock.withLock {
            let sorted = samples.sorted()
            return Result(reads: reads, torn: torn, median: sorted.isEmpty ? 0 : sorted[sorted.count / 2])
        }
    }
}
