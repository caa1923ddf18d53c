import AssetDelivery
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
    /// Signs `catalog` with `key` and publishes it as its version (catalog, signatures and
    /// `latest.json` naming `rootVersion`), as an origin that holds a signing key could.
    func writeSigned(_ catalog: Catalog, key: Minisign.SecretKey, rootVersion: Int = 1) throws {
        let bytes = catalog.fileContents
        try scratch.write("repo/" + RepositoryLayout.catalog(catalog.version), bytes)
        try scratch.write(
            "repo/" + RepositoryLayout.signatures(catalog.version), try key.sign(bytes, trustedComment: catalog.trustedComment).fileContents)
        try scratch.write("repo/" + RepositoryLayout.latest, LatestPointer(catalogVersion: catalog.version, rootVersion: rootVersion).fileContents)
    }

    /// Every installed pack's bytes.
    func installedFiles(_ folder: String = "installed") throws -> [String: [UInt8]] {
        try scratch.tree(folder).filter { $0.key.hasSuffix(".pack") && !$0.key.contains("/") }
    }

    /// The installed packs verify, and are those of catalog `version`.
    func expectInstalled(version: Int, folder: String = "installed", sourceLocation: SourceLocation = #_sourceLocation) throws {
        let catalog = try Catalog(fileContents: try scratch.bytes("repo/" + RepositoryLayout.catalog(version)))
        for (name, bytes) in try installedFiles(folder) {
            let entry = try #require(catalog.packs.first { $0.installedFileName == name }, "\(name) is not in catalog \(version)", sourceLocation: sourceLocation)
            #expect(EntryHash.of(bytes) == entry.sha256, "\(name) is not catalog \(version)'s", sourceLocation: sourceLocation)
            #expect(throws: Never.self, sourceLocation: sourceLocation) { try Pack(path: scratch.url(folder + "/" + name)).verify() }
        }
    }
}

/// What an origin, a mirror or the network can do to a client, each as a case: a refusal is
/// one typed error and installed packs stay as they were; a damaged install is repaired by the
/// next honest run. (The same attacks through real servers and `packtool fetch` are in
/// ServerTests, full tier.)
@Suite("AssetDelivery against a hostile origin: no escape, no rollback, no wedge, no mix")
struct HostileOriginTests {
    @Test("a signed catalog naming a pack outside the folder, or locales that differ by case, is refused; nothing is written outside", arguments: [
        ("../stolen.txt\u{0}", nil as String?), ("a/b", nil), (".hidden", nil), ("course", "../x"), ("course", "zh-hans"),
    ])
    func unsafeNames(name: String, locale: String?) async throws {
        var course = try Course()
        try course.publish()
        let origin = FolderOrigin(folder: course.repository)
        let installer = try course.installer(origin)
        try await installer.makeAvailable(locales: ["en"])
        let before = try course.installedFiles()
        var catalog = try course.currentCatalog()
        var entry = try #require(catalog.packs.first { $0.locale == "en" })
        entry.name = name
        entry.locale = locale
        catalog = Catalog(version: catalog.version + 1, expires: catalog.expires, packs: catalog.packs + [entry])
        try course.writeSigned(catalog, key: course.key)
        let error = await #expect(throws: DeliveryError.self) { try await installer.makeAvailable(locales: ["en"]) }
        #expect((error?.underlyingError as? TrustError)?.code == .unsafePath, "\(String(describing: error))")
        #expect(try course.installedFiles() == before)
        let outside = try FileManager.default.contentsOfDirectory(atPath: course.scratch.url(""))
        #expect(!outside.contains { $0.hasPrefix("stolen") || $0 == "x" }, "\(outside)")
    }

    @Test("two installers on one folder: the second is refused as busy, or waits its turn; the result is the published packs")
    func oneInstallerPerFolder() async throws {
        var course = try Course()
        try course.publish()
        let slow = FolderOrigin(folder: course.repository)
        slow.misbehave([.trickle(seconds: 0.05)])
        let first = try course.installer(slow)
        let second = try PackInstaller(
            folder: course.scratch.url("installed"), repository: slow.base, root: course.root, transport: FolderOrigin(folder: course.repository))
        async let running = first.makeAvailable(locales: ["ru"])
        try await Task.sleep(nanoseconds: 100_000_000)
        let busy = await #expect(throws: DeliveryError.self) { try await second.makeAvailable(locales: ["ru"]) }
        #expect(busy?.code == .busy, "\(String(describing: busy))")
        _ = try await running
        // With .wait, two at once both finish, one after the other.
        let waiting = try PackInstaller(
            folder: course.scratch.url("installed"), repository: slow.base, root: course.root, transport: FolderOrigin(folder: course.repository),
            whenBusy: .wait)
        var random = SeededBytes(state: 31)
        try course.scratch.write("src/base/Images/p9.png", random.bytes(9_999))
        try course.publish()
        let alsoWaiting = try PackInstaller(
            folder: course.scratch.url("installed"), repository: slow.base, root: course.root, transport: slow, whenBusy: .wait)
        async let one = alsoWaiting.makeAvailable(locales: ["ru"])
        async let two = waiting.makeAvailable(locales: ["ru"])
        let reports = try await [one, two]
        #expect(reports.map(\.updated.count).sorted() == [0, 1], "\(reports)")
        try course.expectInstalled(version: 2)
        for locale in [nil, "en", "ru"] as [String?] { #expect(try course.installed(locale) == course.published(locale)) }
    }

    @Test("an update cut off after each pack of three, then served the old catalog, finishes the new one: never rolled back, never mixed", .fullTierOnly)
    func cutAfterEveryPack() async throws {
        for cut in 0..<3 {
            var course = try Course()
            try course.publish()
            let origin = FolderOrigin(folder: course.repository)
            let installer = try course.installer(origin)
            try await installer.makeAvailable(locales: ["ru"])
            let oldPointer = try course.scratch.bytes("repo/" + RepositoryLayout.latest)
            // All three packs change.
            try course.scratch.write("src/base/Images/p1.png", seeded(1, 3_000))
            try course.scratch.write("src/en/Text/t1.txt", "changed\n")
            try course.scratch.write("src/ru/Text/t1.txt", "изменено\n")
            try course.publish()
            let order = try course.currentCatalog().packs.filter { $0.locale != "zh-Hans" }
            // The connection drops on the pack after `cut` packs were fetched.
            origin.misbehave([.dropRequests(suffix: order[cut].path)])
            await #expect(throws: DeliveryError.self) { try await installer.makeAvailable(locales: ["ru"]) }
            // Nothing renamed: the packs of catalog 1 are all still there.
            try course.expectInstalled(version: 1)
            // Now the origin serves the old pointer (a stale cache, or an attacker replaying it).
            origin.misbehave([.serve([RepositoryLayout.latest: oldPointer])])
            let report = try await installer.makeAvailable(locales: ["ru"])
            // Nothing of catalog 2 was accepted before the cut (no pack was renamed), so catalog 1
            // stays, whole; with the honest pointer, catalog 2 installs whole.
            try course.expectInstalled(version: report.catalogVersion)
            origin.misbehave([])
            let finished = try await installer.makeAvailable(locales: ["ru"])
            #expect(finished.catalogVersion == 2)
            try course.expectInstalled(version: 2)
        }
    }

    @Test("cut between the renames of an update: the next run, served the old catalog, finishes the new one from the saved state")
    func cutBetweenRenames() async throws {
        var course = try Course()
        try course.publish()
        let origin = FolderOrigin(folder: course.repository)
        let installer = try course.installer(origin)
        try await installer.makeAvailable(locales: ["ru"])
        let oldPointer = try course.scratch.bytes("repo/" + RepositoryLayout.latest)
        try course.scratch.write("src/base/Images/p1.png", seeded(1, 3_000))
        try course.scratch.write("src/ru/Text/t1.txt", "изменено\n")
        try course.publish()
        try await installer.makeAvailable(locales: ["ru"])
        // As if the process died after the state was saved and one pack was renamed: put the
        // old base pack back.
        let old = try Catalog(fileContents: try course.scratch.bytes("repo/" + RepositoryLayout.catalog(1)))
        let oldBase = try #require(old.packs.first { $0.locale == nil })
        try course.scratch.write("installed/course.pack", try course.scratch.bytes("repo/" + oldBase.path))
        origin.misbehave([.serve([RepositoryLayout.latest: oldPointer])])
        let report = try await installer.makeAvailable(locales: ["ru"])
        #expect(report.catalogVersion == 2 && report.updated == ["course"], "\(report)")
        #expect(report.pending?.contains("older than version 2") == true)
        try course.expectInstalled(version: 2)
    }

    @Test("a fast-forward (version 2^53 signed by a key later rotated out) does not wedge the client: after the rotation it updates again")
    func fastForwardRecovery() async throws {
        var course = try Course()
        try course.publish()
        let origin = FolderOrigin(folder: course.repository)
        let installer = try course.installer(origin)
        try await installer.makeAvailable(locales: ["en"])
        // An attacker with the signing key publishes the same packs as version 2^53.
        let stolen = course.key
        let current = try course.currentCatalog()
        try course.writeSigned(Catalog(version: 1 << 53, expires: current.expires, packs: current.packs), key: stolen)
        let forward = try await installer.makeAvailable(locales: ["en"])
        #expect(forward.catalogVersion == 1 << 53)
        // The publisher rotates the key out: root 2 lists only a new key, signed by the old and the new.
        let fresh = Minisign.SecretKey.generate()
        var root2 = try Root(version: 2, expires: Date().addingTimeInterval(86_400 * 30), threshold: 1, keys: [fresh.publicKey])
        try root2.sign(with: stolen)
        try root2.sign(with: fresh)
        try course.scratch.write("repo/" + RepositoryLayout.root(2), root2.fileContents)
        try course.scratch.write("src/base/Images/p2.png", seeded(2, 4_000))
        var packs: [String] = []
        for (folder, locale) in [("base", nil), ("en", "en"), ("ru", "ru"), ("zh-Hans", "zh-Hans")] as [(String, String?)] {
            var builder = PackBuilder(options: .init(name: "course", locale: locale))
            try builder.addDirectory(atPath: course.scratch.url("src/" + folder))
            try builder.write(to: course.scratch.url("built/\(folder).pack"))
            packs.append(course.scratch.url("built/\(folder).pack"))
        }
        // The publisher's own folder never saw the forged version: publish there, then upload.
        let staging = course.scratch.url("staging")
        _ = try Publisher.publish(packs: packs, to: staging, keys: [fresh], version: 5, expires: Date().addingTimeInterval(86_400))
        for (name, bytes) in try course.scratch.tree("staging") where name != RepositoryLayout.latest { try course.scratch.write("repo/" + name, bytes) }
        try course.scratch.write("repo/" + RepositoryLayout.latest, LatestPointer(catalogVersion: 5, rootVersion: 2).fileContents)
        let report = try await installer.makeAvailable(locales: ["en"])
        #expect(report.catalogVersion == 5, "\(report)")
        try course.expectInstalled(version: 5)
    }

    @Test("the trust state: a damaged root in it, a planted self-signed root, or none at all are rebuilt from the shipped root and said so; never a wedge")
    func damagedState() async throws {
        var course = try Course()
        // A rotation, so the state holds a root of its own.
        let next = Minisign.SecretKey.generate()
        var root2 = try Root(version: 2, expires: Date().addingTimeInterval(86_400 * 30), threshold: 1, keys: [course.key.publicKey, next.publicKey])
        try root2.sign(with: course.key)
        try root2.sign(with: next)
        try course.scratch.write("repo/" + RepositoryLayout.root(2), root2.fileContents)
        try course.publish()
        let origin = FolderOrigin(folder: course.repository)
        let installer = try course.installer(origin)
        let first = try await installer.makeAvailable(locales: ["en"])
        #expect(first.trustState == .firstRun)
        #expect(try await installer.makeAvailable(locales: ["en"]).trustState == .verified)
        let statePath = "installed/state.json"
        let good = String(decoding: try course.scratch.bytes(statePath), as: UTF8.self)
        // One base64 character of the saved root's signature changed.
        let signature = try #require(good.range(of: "signature\\\":\\\""))
        var damaged = good
        let at = damaged.index(signature.upperBound, offsetBy: 5)
        damaged.replaceSubrange(at...at, with: damaged[at] == "A" ? "B" : "A")
        try course.scratch.write(statePath, damaged)
        let rebuilt = try await installer.makeAvailable(locales: ["en"])
        guard case .rebuilt(let reason) = rebuilt.trustState else { Issue.record("\(rebuilt.trustState)"); return }
        #expect(reason.contains("root version 2"), "\(reason)")
        #expect(try await installer.makeAvailable(locales: ["en"]).trustState == .verified)
        // A planted root 3, signed only by a key of the attacker's, is not followed.
        let attacker = Minisign.SecretKey.generate()
        var planted = try Root(version: 3, expires: Date().addingTimeInterval(86_400), threshold: 1, keys: [attacker.publicKey])
        try planted.sign(with: attacker)
        let saved = try TrustState(fileContents: try course.scratch.bytes(statePath))
        try course.scratch.write(statePath, TrustState(roots: saved.roots + [planted], catalog: saved.catalog).fileContents)
        let refused = try await installer.makeAvailable(locales: ["en"])
        #expect(refused.trustState != .verified, "\(refused.trustState)")
        let again = try TrustState(fileContents: try course.scratch.bytes(statePath))
        #expect(again.roots.map(\.version) == [2])
        // Garbage, or no file at all.
        try course.scratch.write(statePath, "{not json")
        guard case .rebuilt = try await installer.makeAvailable(locales: ["en"]).trustState else { Issue.record("garbage state"); return }
        try FileManager.default.removeItem(atPath: course.scratch.url(statePath))
        #expect(try await installer.makeAvailable(locales: ["en"]).trustState == .firstRun)
        try course.expectInstalled(version: 1)
    }

    @Test("roots are checked one by one as they arrive: a pointer naming root 1000 with a bad root 2 stops at root 2")
    func rootFlood() async throws {
        var course = try Course()
        try course.publish()
        let origin = FolderOrigin(folder: course.repository)
        let installer = try course.installer(origin)
        try await installer.makeAvailable(locales: ["en"])
        let pointer = LatestPointer(catalogVersion: 1, rootVersion: 1000)
        var files: [String: [UInt8]] = [RepositoryLayout.latest: pointer.fileContents]
        for version in 2...1000 { files[RepositoryLayout.root(version)] = Array(repeating: 0x20, count: 1 << 20) }
        origin.misbehave([.serve(files)])
        origin.resetCounters()
        let error = await #expect(throws: DeliveryError.self) { try await installer.makeAvailable(locales: ["en"]) }
        #expect(
            error?.code == .untrusted && error?.underlyingError?.location.file?.hasSuffix("roots/2.root.json") == true,
            "\(String(describing: error))")
        #expect(origin.requests <= 2, "\(origin.requests) requests")
        try course.expectInstalled(version: 1)
    }

    @Test("a flipped bit in an installed pack is found and repaired by fetching what is bad, with or without a new version")
    func selfHealing() async throws {
        var course = try Course()
        try course.publish()
        let origin = FolderOrigin(folder: course.repository)
        let installer = try course.installer(origin)
        try await installer.makeAvailable(locales: ["en"])
        let path = course.scratch.url("installed/course.pack")
        let offset = try InstallerTests.dataOffset(of: "Images/p20.png", in: try Pack(path: path)) + 10
        func flip() throws {
            var bytes = try course.scratch.bytes("installed/course.pack")
            bytes[Int(offset)] ^= 0x10
            try course.scratch.write("installed/course.pack", bytes)
        }
        try flip()
        origin.resetCounters()
        let repaired = try await installer.makeAvailable(locales: ["en"])
        #expect(repaired.updated == ["course"], "\(repaired)")
        #expect(origin.bytesSent < 64 << 10 + 8 << 10, "\(origin.bytesSent) bytes to repair one picture")
        try course.expectInstalled(version: 1)
        // Again, with an update of another picture: the update repairs it too.
        try flip()
        try course.scratch.write("src/base/Images/p30.png", seeded(30, 6_000))
        try course.publish()
        try await installer.makeAvailable(locales: ["en"])
        try course.expectInstalled(version: 2)
    }

    @Test("a trusted installed pack whose bytes rotted under an unchanged identity: the update's copies fail the file's hash, and it starts over hashing every copy")
    func rotUnderAnUnchangedIdentity() async throws {
        var course = try Course()
        try course.publish()
        let origin = FolderOrigin(folder: course.repository)
        let installer = try course.installer(origin)
        try await installer.makeAvailable(locales: ["en"])
        let path = course.scratch.url("installed/course.pack")
        let offset = try InstallerTests.dataOffset(of: "Images/p40.png", in: try Pack(path: path)) + 3
        // One bit, written in place, with the file's modification time put back: its identity
        // (device, inode, size, time) is the one recorded when it was verified.
        var status = stat()
        #expect(stat(path, &status) == 0)
        let descriptor = open(path, O_RDWR)
        #expect(descriptor >= 0)
        var byte: UInt8 = 0
        #expect(pread(descriptor, &byte, 1, off_t(offset)) == 1)
        byte ^= 0x01
        #expect(pwrite(descriptor, &byte, 1, off_t(offset)) == 1)
        close(descriptor)
        var times = [status.st_atim, status.st_mtim]
        #expect(utimensat(AT_FDCWD, path, &times, 0) == 0)
        // An update of another picture copies p40 from the damaged pack, trusted: the file's
        // hash fails, and the second attempt hashes every copy and fetches p40.
        try course.scratch.write("src/base/Images/p41.png", seeded(41, 5_000))
        try course.publish()
        let report = try await installer.makeAvailable(locales: ["en"])
        #expect(report.updated == ["course"], "\(report)")
        try course.expectInstalled(version: 2)
    }

    @Test("an origin that trickles bytes just fast enough to keep each request alive is cut off by the update's deadline")
    func deadline() async throws {
        var course = try Course()
        try course.publish()
        let origin = FolderOrigin(folder: course.repository)
        origin.misbehave([.trickle(seconds: 0.2)])
        let installer = try PackInstaller(
            folder: course.scratch.url("installed"), repository: origin.base, root: course.root, transport: origin, deadline: 1)
        let error = await #expect(throws: DeliveryError.self) { try await installer.makeAvailable(locales: ["en"]) }
        #expect(error?.code == .timeout && error?.detail.contains("longer than 1 s") == true, "\(String(describing: error))")
        #expect(try course.installedFiles().isEmpty)
    }

    @Test("a key rotation seen through an edge that has the new pointer and catalog but not the new root yet: the update waits, it does not fail")
    func rotationWithoutTheRootYet() async throws {
        var course = try Course()
        try course.publish()
        let origin = FolderOrigin(folder: course.repository)
        let installer = try course.installer(origin)
        try await installer.makeAvailable(locales: ["en"])
        // Root 2 rotates the key; catalog 2 is signed by the new key only.
        let fresh = Minisign.SecretKey.generate()
        var root2 = try Root(version: 2, expires: Date().addingTimeInterval(86_400 * 30), threshold: 1, keys: [fresh.publicKey])
        try root2.sign(with: course.key)
        try root2.sign(with: fresh)
        try course.scratch.write("repo/" + RepositoryLayout.root(2), root2.fileContents)
        try course.scratch.write("src/base/Images/p2.png", seeded(2, 4_000))
        var packs: [String] = []
        for (folder, locale) in [("base", nil), ("en", "en"), ("ru", "ru"), ("zh-Hans", "zh-Hans")] as [(String, String?)] {
            var builder = PackBuilder(options: .init(name: "course", locale: locale))
            try builder.addDirectory(atPath: course.scratch.url("src/" + folder))
            try builder.write(to: course.scratch.url("built/\(folder).pack"))
            packs.append(course.scratch.url("built/\(folder).pack"))
        }
        _ = try Publisher.publish(packs: packs, to: course.repository, keys: [fresh], version: 2, expires: Date().addingTimeInterval(86_400))
        #expect(try LatestPointer(fileContents: try course.scratch.bytes("repo/" + RepositoryLayout.latest)).rootVersion == 2)
        // The edge has everything new but the root.
        origin.misbehave([.hide([RepositoryLayout.root(2)])])
        let report = try await installer.makeAvailable(locales: ["en"])
        #expect(report.catalogVersion == 1 && report.pending != nil, "\(report)")
        try course.expectInstalled(version: 1)
        origin.misbehave([])
        #expect(try await installer.makeAvailable(locales: ["en"]).catalogVersion == 2)
        try course.expectInstalled(version: 2)
    }

    @Test("a signed pack whose local headers the client cannot make again (not the builder's layout) is fetched whole, not refused for ever")
    func nonCanonicalPack() async throws {
        var course = try Course()
        try course.publish()
        let origin = FolderOrigin(folder: course.repository)
        let installer = try course.installer(origin)
        try await installer.makeAvailable(locales: ["en"])
        // Another tool's pack: the first local header's DOS time differs from the central
        // directory's (the tail, the index and every entry's bytes are the same), signed.
        let catalog = try course.currentCatalog()
        let entry = try #require(catalog.packs.first { $0.locale == nil })
        var bytes = try course.scratch.bytes("repo/" + entry.path)
        #expect(bytes[0] == 0x50 && bytes[1] == 0x4B && bytes[2] == 3)
        bytes[10] ^= 0x01
        var changed = entry
        changed.sha256 = EntryHash.of(bytes)
        changed.path = RepositoryLayout.pack(changed.sha256)
        try course.scratch.write("repo/" + changed.path, bytes)
        try course.writeSigned(Catalog(version: 2, expires: catalog.expires, packs: catalog.packs.map { $0.locale == nil ? changed : $0 }), key: course.key)
        let report = try await installer.makeAvailable(locales: ["en"])
        #expect(report.updated == ["course"] && report.wholeFiles, "\(report)")
        #expect(try course.installed(nil) == bytes)
    }

    @Test("an origin that makes a download start over twice, then answers a range with the whole file, gets nothing unverified installed")
    func wholeFileOnTheLastAttempt() async throws {
        var course = try Course()
        try course.publish()
        let origin = FolderOrigin(folder: course.repository)
        let installer = try course.installer(origin)
        try await installer.makeAvailable(locales: ["en"])
        try course.scratch.write("src/base/Images/p10.png", seeded(10, 50_000))
        try course.scratch.write("src/base/Images/p90.png", seeded(90, 70_000))
        try course.publish()
        // Two starts over (another file length), then on the last attempt the tail as it is
        // and a 200 to the first range of entries.
        origin.misbehave([.wrongLength(times: 2), .wholeAfter(requests: 3)])
        do {
            let report = try await installer.makeAvailable(locales: ["en"])
            #expect(report.catalogVersion == 2, "\(report)")
        } catch {
            #expect(error.code != .fileSystem, "\(error)")
        }
        // Whatever happened, what is installed is one catalog's, whole and verified.
        let installed = EntryHash.of(try course.installed(nil))
        let old = try Catalog(fileContents: try course.scratch.bytes("repo/" + RepositoryLayout.catalog(1)))
        let new = try course.currentCatalog()
        let published = [old, new].compactMap { $0.packs.first { $0.locale == nil }?.sha256 }
        #expect(published.contains(installed), "an installed file that is no catalog's: \(installed.hex)")
        origin.misbehave([])
        try await installer.makeAvailable(locales: ["en"])
        try course.expectInstalled(version: 2)
    }

    @Test("a deadline that is not a number of seconds above 0 (NaN, 0, -1) leaves no time: a timeout, never a trap", arguments: [Double.nan, 0, -1])
    func oddDeadlines(deadline: Double) async throws {
        var course = try Course()
        try course.publish()
        let origin = FolderOrigin(folder: course.repository)
        origin.misbehave([.trickle(seconds: 0.2)])
        let installer = try PackInstaller(
            folder: course.scratch.url("installed"), repository: origin.base, root: course.root, transport: origin, deadline: deadline)
        let error = await #expect(throws: DeliveryError.self) { try await installer.makeAvailable(locales: ["en"]) }
        #expect(error?.code == .timeout, "\(String(describing: error))")
        _ = URLSessionTransport(stallTimeout: deadline)
    }

    @Test("stale partial files of packs no longer wanted are removed")
    func stalePartials() async throws {
        var course = try Course()
        try course.publish()
        let origin = FolderOrigin(folder: course.repository)
        let installer = try course.installer(origin)
        try course.scratch.write("installed/.partial/" + String(repeating: "ab", count: 32) + ".partial", "left by an abandoned update")
        try course.scratch.write("installed/.partial/" + String(repeating: "ab", count: 32) + ".journal", "assetpack-journal 1 …\n")
        try await installer.makeAvailable(locales: ["en"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: course.scratch.url("installed/.partial")).isEmpty)
    }

    @Test("symbolic links planted at .partial or at a partial file are never followed: nothing outside the folder is deleted or written, and the install works")
    func plantedLinks() async throws {
        var course = try Course()
        try course.publish()
        let origin = FolderOrigin(folder: course.repository)
        let installer = try course.installer(origin)
        let fileManager = FileManager.default
        try course.scratch.write("outside/keep.txt", "a file of the user's, outside the install folder")
        try course.scratch.write("outside/target.txt", "another one")
        let before = try course.scratch.tree("outside")
        // The work folder is a link to a folder of the user's: its files are not stale partials.
        try fileManager.removeItem(atPath: course.scratch.url("installed/.partial"))
        try fileManager.createSymbolicLink(atPath: course.scratch.url("installed/.partial"), withDestinationPath: course.scratch.url("outside"))
        try await installer.makeAvailable(locales: ["en"])
        #expect(try course.scratch.tree("outside") == before)
        try course.expectInstalled(version: 1)
        // A link at the partial file of a pack to fetch: not written through, and no wedge.
        try course.scratch.write("src/base/Images/p3.png", seeded(3, 3_333))
        try course.publish()
        let entry = try #require(try course.currentCatalog().packs.first { $0.locale == nil })
        try fileManager.createSymbolicLink(
            atPath: course.scratch.url("installed/.partial/\(entry.sha256.hex).partial"), withDestinationPath: course.scratch.url("outside/target.txt"))
        let report = try await installer.makeAvailable(locales: ["en"])
        #expect(report.updated == ["course"], "\(report)")
        #expect(try course.scratch.tree("outside") == before)
        try course.expectInstalled(version: 2)
    }

    @Test("a journal planted in .partial that says every other byte is done costs no more requests than a fresh download, and the result is right")
    func fragmentedJournal() async throws {
        var course = try Course()
        try course.publish()
        let origin = FolderOrigin(folder: course.repository)
        let installer = try course.installer(origin)
        let entry = try #require(try course.currentCatalog().packs.first { $0.locale == nil })
        // 100,000 one-byte ranges with a byte between each: as many one-byte requests to fill
        // the gaps, each checked against every range when the download is planned.
        var text = "assetpack-journal 1 \(entry.sha256.hex) \(entry.size) -\n"
        for offset in stride(from: UInt64(0), to: 200_000, by: 2) { text += "done \(offset) \(offset + 1)\n" }
        try course.scratch.write("installed/.partial/\(entry.sha256.hex).journal", text)
        try course.scratch.write("installed/.partial/\(entry.sha256.hex).partial", [UInt8](repeating: 0, count: Int(entry.size)))
        try await installer.makeAvailable(locales: ["en"])
        #expect(origin.requests < 100, "\(origin.requests) requests")
        try course.expectInstalled(version: 1)
    }

    @Test("a journal planted with a validator no origin sends (a carriage return and a header after it) is discarded: no If-Range carries it")
    func plantedValidator() async throws {
        var course = try Course()
        try course.publish()
        let origin = FolderOrigin(folder: course.repository)
        let installer = try course.installer(origin)
        let entry = try #require(try course.currentCatalog().packs.first { $0.locale == nil })
        let planted = "\"v1\"\r\nX-Injected:\"yes\""
        try course.scratch.write(
            "installed/.partial/\(entry.sha256.hex).journal",
            "assetpack-journal 1 \(entry.sha256.hex) \(entry.size) \(planted)\ndone 0 16\n")
        try course.scratch.write("installed/.partial/\(entry.sha256.hex).partial", [UInt8](repeating: 0, count: Int(entry.size)))
        try await installer.makeAvailable(locales: ["en"])
        #expect(!origin.validators.contains(planted))
        #expect(origin.validators.allSatisfy { value in value.utf8.allSatisfy { $0 >= 0x21 && $0 != 0x7F } }, "\(origin.validators)")
        try course.expectInstalled(version: 1)
    }

    @Test("an edge that serves every mix of old and new objects delays an update, never fails it; the installed packs are always one catalog's, whole", .fullTierOnly)
    func cdnMixes() async throws {
        var course = try Course()
        try course.publish()
        let oldTree = try course.scratch.tree("repo")
        try course.scratch.write("src/base/Images/p4.png", seeded(4, 4_444))
        try course.scratch.write("src/en/Text/t2.txt", "new text\n")
        try course.publish()
        let newTree = try course.scratch.tree("repo")
        // The objects that differ: the pointer (old bytes or new), and the new immutable ones
        // (absent from an old edge).
        let added = Set(newTree.keys).subtracting(oldTree.keys).sorted()
        #expect(added.count == 4, "\(added)")  // catalog, signatures, two packs
        let objects = [RepositoryLayout.latest] + added
        for mix in 0..<(1 << objects.count) {
            let origin = FolderOrigin(folder: course.repository)
            let installer = try course.installer(origin, folder: "mix\(mix)")
            origin.misbehave([.serve([RepositoryLayout.latest: try #require(oldTree[RepositoryLayout.latest])])])
            try await installer.makeAvailable(locales: ["en"])
            var hidden = Set<String>()
            var served: [String: [UInt8]] = [:]
            for (bit, object) in objects.enumerated() where mix & (1 << bit) == 0 {
                if object == RepositoryLayout.latest { served[object] = oldTree[object] } else { hidden.insert(object) }
            }
            origin.misbehave([.hide(hidden), .serve(served)])
            let report = try await installer.makeAvailable(locales: ["en"])
            try course.expectInstalled(version: report.catalogVersion, folder: "mix\(mix)")
            if mix == (1 << objects.count) - 1 { #expect(report.catalogVersion == 2 && report.pending == nil) }
            origin.misbehave([])
            #expect(try await installer.makeAvailable(locales: ["en"]).catalogVersion == 2)
            try course.expectInstalled(version: 2, folder: "mix\(mix)")
        }
    }
}

/// `count` bytes from a seeded generator: a picture's new contents.
private func seeded(_ state: UInt64, _ count: Int) -> [UInt8] {
    var random = SeededBytes(state: state)
    return random.bytes(count)
}
