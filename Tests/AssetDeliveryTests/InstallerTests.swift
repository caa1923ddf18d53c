import AssetDelivery
import AssetLibrary
import AssetPack
import Foundation
import PackTrust
import TestSupport
import Testing

/// A course of packs published to a repository folder: a base pack of many pictures and locale
/// packs of text, signed by one key under a root.
struct Course {
    let scratch: Scratch
    let key: Minisign.SecretKey
    let root: Root
    var version = 0

    init() throws {
        scratch = try Scratch()
        key = Minisign.SecretKey.generate()
        var root = try Root(version: 1, expires: Date().addingTimeInterval(86_400 * 365), threshold: 1, keys: [key.publicKey])
        try root.sign(with: key)
        self.root = root
        var random = SeededBytes(state: 42)
        for number in 0..<120 {
            try scratch.write("src/base/Images/p\(number).png", random.bytes(2_000 + number * 300))
        }
        for locale in ["en", "ru", "zh-Hans"] {
            for number in 0..<30 {
                try scratch.write("src/\(locale)/Text/t\(number).txt", "\(locale) text \(number)\n" + String(repeating: "·", count: 500 + number))
            }
        }
    }

    var repository: String { scratch.url("repo") }

    /// Builds the packs from src/ and publishes them as the next version.
    mutating func publish(expires: Date = Date().addingTimeInterval(86_400 * 30)) throws {
        var packs: [String] = []
        for (folder, locale) in [("base", nil), ("en", "en"), ("ru", "ru"), ("zh-Hans", "zh-Hans")] as [(String, String?)] {
            var builder = PackBuilder(options: .init(name: "course", locale: locale))
            try builder.addDirectory(atPath: scratch.url("src/" + folder))
            let path = scratch.url("built/\(folder).pack")
            try FileManager.default.createDirectory(atPath: scratch.url("built"), withIntermediateDirectories: true)
            try builder.write(to: path)
            packs.append(path)
        }
        version += 1
        _ = try Publisher.publish(packs: packs, to: repository, keys: [key], version: version, expires: expires)
    }

    func installer(_ origin: FolderOrigin, folder: String = "installed") throws -> PackInstaller {
        try PackInstaller(folder: scratch.url(folder), repository: origin.base, root: root, transport: origin)
    }

    /// The catalog `latest.json` names.
    func currentCatalog() throws -> Catalog {
        let pointer = try LatestPointer(fileContents: try scratch.bytes("repo/" + RepositoryLayout.latest))
        return try Catalog(fileContents: try scratch.bytes("repo/" + RepositoryLayout.catalog(pointer.catalogVersion)))
    }

    /// The published file of the pack with this locale.
    func published(_ locale: String?) throws -> [UInt8] {
        let entry = try #require(try currentCatalog().packs.first { $0.locale == locale })
        return try scratch.bytes("repo/" + entry.path)
    }

    func installed(_ locale: String?, folder: String = "installed") throws -> [UInt8] {
        try scratch.bytes(folder + "/course" + (locale.map { "." + $0 } ?? "") + ".pack")
    }
}

@Suite("AssetDelivery: install, update, resume, refuse")
struct InstallerTests {
    /// Where an entry's data starts in a pack file, from its local header.
    static func dataOffset(of path: String, in pack: Pack) throws -> UInt64 {
        let bytes = try fileBytes(pack.path)
        let name = Array(path.utf8)
        // The local header: signature, 26 bytes, then the name; the extra field's length at 28.
        for start in 0..<(bytes.count - 30 - name.count) where bytes[start] == 0x50 && bytes[start + 1] == 0x4B && bytes[start + 2] == 3 {
            let nameLength = Int(bytes[start + 26]) | Int(bytes[start + 27]) << 8
            let extraLength = Int(bytes[start + 28]) | Int(bytes[start + 29]) << 8
            if nameLength == name.count, Array(bytes[start + 30..<start + 30 + nameLength]) == name {
                return UInt64(start + 30 + nameLength + extraLength)
            }
        }
        throw DeliveryError(.pack, "no local header for \(path)")
    }

    @Test("a locale installs the base packs and its chain's packs, byte-identical; another locale fetches only its pack")
    func localeChain() async throws {
        var course = try Course()
        try course.publish()
        let origin = FolderOrigin(folder: course.repository)
        let installer = try course.installer(origin)
        let report = try await installer.makeAvailable(locales: ["ru"])
        #expect(report.installed == ["course", "course (en)", "course (ru)"])
        for locale in [nil, "en", "ru"] as [String?] { #expect(try course.installed(locale) == course.published(locale)) }
        #expect(!FileManager.default.fileExists(atPath: course.scratch.url("installed/course.zh-Hans.pack")))
        origin.resetCounters()
        let switched = try await installer.makeAvailable(locales: ["zh-Hans"])
        #expect(switched.installed == ["course (zh-Hans)"])
        #expect(switched.unchanged == ["course", "course (en)"])
        let zh = try course.published("zh-Hans")
        #expect(origin.bytesSent <= UInt64(zh.count) + 16 << 10, "\(origin.bytesSent) bytes for a \(zh.count)-byte pack")
        // Nothing changed: nothing but the catalog is fetched.
        origin.resetCounters()
        let again = try await installer.makeAvailable(locales: ["zh-Hans"])
        #expect(again.installed.isEmpty && again.updated.isEmpty)
        #expect(origin.bytesSent < 8 << 10)
    }

    @Test("an update fetches the changed entries, the new index and directory, little else, and copies the rest")
    func delta() async throws {
        var course = try Course()
        try course.publish()
        let origin = FolderOrigin(folder: course.repository)
        let installer = try course.installer(origin)
        try await installer.makeAvailable(locales: ["en"])
        // Two pictures change (of 120).
        var random = SeededBytes(state: 7)
        try course.scratch.write("src/base/Images/p10.png", random.bytes(5_000))
        try course.scratch.write("src/base/Images/p77.png", random.bytes(25_100))
        try course.publish()
        origin.resetCounters()
        let report = try await installer.makeAvailable(locales: ["en"])
        #expect(report.updated == ["course"])
        #expect(try course.installed(nil) == course.published(nil))
        let pack = try Pack(path: course.scratch.url("installed/course.pack"))
        let indexSize = try #require(try pack.indexData()).count
        let budget = UInt64(5_000 + 25_100) + UInt64(indexSize) + 64 << 10 + 64 << 10
        #expect(report.bytesFetched <= budget, "\(report.bytesFetched) bytes fetched, budget \(budget)")
        #expect(report.bytesReused > 200_000)
    }

    /// A published course and an installer whose first run the origin cut off after `bytes`,
    /// leaving a partial file and its journal.
    static func cutInstall(after bytes: UInt64) async throws -> (Course, FolderOrigin, PackInstaller) {
        var course = try Course()
        try course.publish()
        let origin = FolderOrigin(folder: course.repository)
        let installer = try course.installer(origin)
        origin.misbehave([.dropAfter(bytes)])
        _ = try? await installer.makeAvailable(locales: ["en"])
        return (course, origin, installer)
    }

    @Test("a run cut off mid-download resumes: no verified byte is fetched twice, and the result is the published pack")
    func resume() async throws {
        var course = try Course()
        try course.publish()
        let clean = FolderOrigin(folder: course.repository)
        try await course.installer(clean, folder: "clean").makeAvailable(locales: ["en"])
        let cleanBytes = clean.bytesSent
        let origin = FolderOrigin(folder: course.repository)
        let installer = try course.installer(origin)
        var runs = 0
        while runs < 30 {
            runs += 1
            origin.misbehave([.dropAfter(400_000)])
            do {
                try await installer.makeAvailable(locales: ["en"])
                break
            } catch let error as DeliveryError {
                #expect(error.code == .network, "\(error)")
            }
        }
        #expect(runs > 2, "the budget should cut the install several times")
        #expect(try course.installed(nil) == course.published(nil))
        // Each cut loses at most what was in flight and not yet journaled (4 requests × 64 KiB).
        #expect(origin.bytesSent <= cleanBytes + UInt64(runs) * (1 << 20), "\(origin.bytesSent) against \(cleanBytes) clean, \(runs) runs")
    }

    @Test("a journal line whose bytes were lost (power loss before a sync) starts the file over, and the result is right")
    func journalOutlivesData() async throws {
        let (course, origin, installer) = try await Self.cutInstall(after: 300_000)
        // Zero the bytes of the first range the journal says is done, as if they never left the cache.
        let partials = course.scratch.url("installed/.partial")
        var zeroed = 0
        for journal in try FileManager.default.contentsOfDirectory(atPath: partials) where journal.hasSuffix(".journal") {
            let text = try String(contentsOfFile: partials + "/" + journal, encoding: .utf8)
            guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix("done ") }) else { continue }
            let numbers = line.split(separator: " ").dropFirst().compactMap { UInt64($0) }
            let handle = try #require(FileHandle(forWritingAtPath: partials + "/" + journal.replacingOccurrences(of: ".journal", with: ".partial")))
            try handle.seek(toOffset: numbers[0])
            handle.write(Data(count: Int(numbers[1] - numbers[0])))
            try handle.close()
            zeroed += 1
        }
        #expect(zeroed > 0, "the cut run should have journaled a range")
        origin.misbehave([])
        try await installer.makeAvailable(locales: ["en"])
        #expect(try course.installed(nil) == course.published(nil))
    }

    @Test("a damaged journal starts the file over; a 200 to a range (an origin without ranges, or a changed ETag) is taken as the whole file; the result is right")
    func restarts() async throws {
        let (course, origin, installer) = try await Self.cutInstall(after: 200_000)
        for journal in try FileManager.default.contentsOfDirectory(atPath: course.scratch.url("installed/.partial")) where journal.hasSuffix(".journal") {
            try course.scratch.write("installed/.partial/" + journal, "garbage\u{0}\n")
        }
        origin.misbehave([.ignoreRanges])
        origin.resetCounters()
        let whole = try await installer.makeAvailable(locales: ["en"])
        #expect(whole.wholeFiles && whole.installed.count == 2, "\(whole)")
        #expect(try course.installed(nil) == course.published(nil))
        // Whole files: each pack came in one request, never twice.
        let sizes = try [nil, "en"].map { try course.published($0).count }.reduce(0, +)
        #expect(origin.bytesSent <= UInt64(sizes) + 16 << 10, "\(origin.bytesSent) bytes for packs of \(sizes)")
        // A new version from an origin whose ETag changes every time: If-Range fails, the
        // origin sends whole files, and they are what the catalog says.
        var random = SeededBytes(state: 21)
        var next = course
        try next.scratch.write("src/base/Images/p7.png", random.bytes(7_000))
        try next.publish()
        origin.misbehave([.changingETag])
        let changing = try await installer.makeAvailable(locales: ["en"])
        #expect(changing.updated == ["course"], "\(changing)")
        #expect(try next.installed(nil) == next.published(nil))
    }

    @Test("a flipped bit in an entry, endless data or a stale catalog is refused, and installed packs stay as they were")
    func refusals() async throws {
        var course = try Course()
        try course.publish()
        let origin = FolderOrigin(folder: course.repository)
        let installer = try course.installer(origin)
        try await installer.makeAvailable(locales: ["en"])
        let before = try course.installed(nil)
        let keptCatalog = try course.scratch.tree("repo")
        var random = SeededBytes(state: 9)
        try course.scratch.write("src/base/Images/p3.png", random.bytes(9_000))
        try course.publish()
        // One bit of the changed picture's bytes, as the new pack has them.
        let catalog = try course.currentCatalog()
        let newBase = try #require(catalog.packs.first { $0.locale == nil })
        let published = try Pack(path: course.scratch.url("repo/" + newBase.path))
        origin.misbehave([.flipBit(suffix: newBase.path, offset: try Self.dataOffset(of: "Images/p3.png", in: published) + 100)])
        let flipped = await #expect(throws: DeliveryError.self) { try await installer.makeAvailable(locales: ["en"]) }
        #expect(flipped?.code == .corruptDownload, "\(String(describing: flipped))")
        #expect(flipped?.detail.contains("entry \"Images/p3.png\" arrived with SHA-256") == true, "\(String(describing: flipped))")
        #expect(try course.installed(nil) == before)
        origin.misbehave([.endless])
        let endless = await #expect(throws: DeliveryError.self) { try await installer.makeAvailable(locales: ["en"]) }
        #expect(endless?.code == .tooMuchData, "\(String(describing: endless))")
        #expect(try course.installed(nil) == before)
        origin.misbehave([])
        try await installer.makeAvailable(locales: ["en"])
        #expect(try course.installed(nil) == course.published(nil))
        // The repository's pointer goes back to version 1 (a cache that is behind, or an
        // attacker replaying it): nothing older is installed; the update waits.
        let current = try course.installed(nil)
        try course.scratch.write("repo/" + RepositoryLayout.latest, try #require(keptCatalog[RepositoryLayout.latest]))
        let behind = try await installer.makeAvailable(locales: ["en"])
        #expect(behind.catalogVersion == 2 && behind.unchanged.count == 2, "\(behind)")
        #expect(behind.pending?.contains("older than version 2") == true, "\(String(describing: behind.pending))")
        #expect(try course.installed(nil) == current)
    }

    @Test("a reader of the old pack keeps intact bytes through the update; after remount lookups see only the new pack")
    func swapUnderReader() async throws {
        var course = try Course()
        try course.publish()
        let origin = FolderOrigin(folder: course.repository)
        let installer = try course.installer(origin)
        try await installer.makeAvailable(locales: ["en"])
        let store = AssetStore()
        let path = course.scratch.url("installed/course.pack")
        try store.mount(path: path)
        await installer.attach(store)
        let old = try store.data(forPath: "Images/p5.png")
        let oldBytes = Array(old)
        var random = SeededBytes(state: 11)
        let replacement = random.bytes(3_333)
        try course.scratch.write("src/base/Images/p5.png", replacement)
        try course.publish()
        try await installer.makeAvailable(locales: ["en"])
        #expect(Array(old) == oldBytes, "the old mapping changed under its reader")
        #expect(Array(try store.data(forPath: "Images/p5.png")) == replacement)
    }
}
