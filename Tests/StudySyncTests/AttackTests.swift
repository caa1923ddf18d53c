import Foundation
import StudyProgress
@testable import StudySync
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The store as an attacker holds it: a shared folder others can write to, an S3 listing read
/// before anything is authenticated, a key holder's buggy snapshot, a store that loses what it
/// was given. Each case is what the review of sync found and fixed.
@Suite("A store in an attacker's hands: links, FIFOs, endless listings, snapshots that claim too much, lost segments")
struct AttackTests {
    /// A learner whose device `a` synced three answers through a folder.
    struct Folder {
        let scratch: Scratch
        let key = LearnerKey.generate()
        let remote: FolderRemote
        let a: Device

        init() async throws {
            scratch = try Scratch()
            remote = FolderRemote(root: scratch.url("remote"))
            a = try Device("a", scratch: scratch, remote: remote, key: key)
            for step in 0..<3 { try a.answer("q\(step)", grade: 3, at: day0.addingTimeInterval(Double(step) * 60)) }
            _ = try await a.sync.sync()
        }

        var learnerFolder: String { scratch.url("remote/learners/\(key.learnerID)") }
        var deviceFolder: String { learnerFolder + "/devices/\(a.store.device)" }
    }

    // MARK: - A shared folder

    @Test("a link planted in the shared folder is never followed: what it leads to is not listed, not read, not written and not deleted")
    func linksAreNotFollowed() async throws {
        let setup = try await Folder()
        let scratch = setup.scratch
        // Outside the remote: a folder shaped like a device's, with a file named like a segment.
        let stranger = "00000000000000aa"
        let segment = ObjectName(kind: .segment, learner: setup.key.learner, device: 0xAA, sequence: 1, tag: "0123456789abcdef")
        try scratch.write("outside/segments/" + (segment.description as NSString).lastPathComponent, "secret")
        #expect(symlink(scratch.url("outside"), setup.learnerFolder + "/devices/" + stranger) == 0)
        // And a file link named like one of a's next segments.
        let next = ObjectName(kind: .segment, learner: setup.key.learner, device: setup.a.store.device.rawValue, sequence: 9, tag: "0123456789abcdef")
        try scratch.write("outside-file", "secret")
        #expect(symlink(scratch.url("outside-file"), scratch.url("remote/" + next.description)) == 0)

        let listed = try await setup.remote.list(prefix: "learners/")
        #expect(!listed.contains { $0.name.contains(stranger) || $0.name == next.description }, "\(listed)")
        let throughFolder = await #expect(throws: SyncError.self) { try await setup.remote.get(segment.description, limit: 1 << 20) }
        #expect(throughFolder?.code == .fileSystem && throughFolder?.detail.contains("links are never followed") == true)
        let throughFile = await #expect(throws: SyncError.self) { try await setup.remote.get(next.description, limit: 1 << 20) }
        #expect(throughFile?.code == .notAuthentic)
        await #expect(throws: SyncError.self) { try await setup.remote.put(segment.description, [1, 2, 3]) }
        await #expect(throws: SyncError.self) { try await setup.remote.delete(segment.description) }
        try await setup.remote.delete(next.description)  // the link itself goes, never what it names
        #expect(try scratch.tree("outside") == ["segments/" + (segment.description as NSString).lastPathComponent: Array("secret".utf8)])
        #expect(try String(contentsOfFile: scratch.url("outside-file"), encoding: .utf8) == "secret")

        // Another device syncs as if the links were not there.
        let b = try Device("b", scratch: scratch, remote: setup.remote, key: setup.key)
        let report = try await b.sync.sync()
        #expect(report.refused.isEmpty && report.eventsReceived == 4, "\(report)")
        // A device whose own folder was swapped for a link stops with a clear error, writing nothing outside.
        try FileManager.default.removeItem(atPath: setup.deviceFolder + "/segments")
        #expect(symlink(scratch.url("elsewhere"), setup.deviceFolder + "/segments") == 0)
        try FileManager.default.createDirectory(atPath: scratch.url("elsewhere"), withIntermediateDirectories: true)
        try setup.a.answer("q9", grade: 3, at: day0.addingTimeInterval(3_600))
        let error = await #expect(throws: SyncError.self) { try await setup.a.sync.sync() }
        #expect(error?.code == .fileSystem, "\(String(describing: error))")
        #expect(try scratch.tree("elsewhere").isEmpty)
    }

    @Test("a FIFO named like a segment is not listed, and reading it is refused at once instead of waiting for a writer")
    func fifosAreRefused() async throws {
        let setup = try await Folder()
        let name = ObjectName(kind: .segment, learner: setup.key.learner, device: setup.a.store.device.rawValue, sequence: 5, tag: "0123456789abcdef")
        #expect(mkfifo(setup.scratch.url("remote/" + name.description), 0o644) == 0)
        #expect(try await setup.remote.list(prefix: "learners/").allSatisfy { $0.name != name.description })
        let started = Date()
        let error = await #expect(throws: SyncError.self) { try await setup.remote.get(name.description, limit: 1 << 20) }
        #expect(error?.code == .notAuthentic && Date().timeIntervalSince(started) < 5)
    }

    @Test("a folder with more entries than a listing looks at is refused (tooLarge), not read into memory")
    func oversizedFolder() async throws {
        let setup = try await Folder()
        for index in 0..<30 { try setup.scratch.write("remote/learners/\(setup.key.learnerID)/junk/\(index)", "x") }
        let small = FolderRemote(root: setup.scratch.url("remote"), listEntryLimit: 20)
        let error = await #expect(throws: SyncError.self) { try await small.list(prefix: "learners/") }
        #expect(error?.code == .tooLarge)
    }

    // MARK: - An S3 listing

    /// A page of `count` objects named `prefix` + a number.
    static func page(_ count: Int, from start: Int = 0, prefix: String = "app/learners/", truncated: Bool, token: String?) -> ListPage {
        ListPage(objects: (start..<(start + count)).map { RemoteObject(name: prefix + "o\($0)", size: 10) }, isTruncated: truncated, nextToken: token)
    }

    @Test("a listing that hands out the same continuation token again is refused, not followed for ever")
    func repeatedToken() async throws {
        let error = await #expect(throws: SyncError.self) {
            _ = try await S3Remote.collect(prefix: "app/learners/", dropping: "app/", naming: "s3://b/app/learners/") { _ throws(SyncError) in
                Self.page(2, truncated: true, token: "again")
            }
        }
        #expect(error?.code == .httpStatus && error?.detail.contains("continuation token it gave before") == true)
    }

    @Test("a listing of empty pages that never ends is refused after a thousand pages")
    func endlessPages() async throws {
        let counter = Counter()
        let error = await #expect(throws: SyncError.self) {
            _ = try await S3Remote.collect(prefix: "app/learners/", dropping: "app/", naming: "s3://b/app/learners/") { _ throws(SyncError) in
                Self.page(0, truncated: true, token: "t\(counter.next())")
            }
        }
        #expect(error?.code == .tooLarge && counter.value == S3Remote.listPageCountLimit)
    }

    @Test("a listing of more objects than sync holds is refused once over the limit (memory before authentication)")
    func oversizedListing() async throws {
        let counter = Counter()
        let error = await #expect(throws: SyncError.self) {
            _ = try await S3Remote.collect(prefix: "app/learners/", dropping: "app/", naming: "s3://b/app/learners/") { _ throws(SyncError) in
                let page = counter.next()
                return Self.page(1_000, from: page * 1_000, truncated: true, token: "t\(page)")
            }
        }
        #expect(error?.code == .tooLarge && counter.value == S3Remote.listObjectLimit / 1_000 + 1)
    }

    @Test("keys outside the listed prefix are left out; those inside lose the remote's prefix")
    func foreignKeys() async throws {
        let objects = try await S3Remote.collect(prefix: "app/learners/", dropping: "app/", naming: "s3://b/app/learners/") { _ throws(SyncError) in
            ListPage(
                objects: [
                    RemoteObject(name: "app/learners/x", size: 1), RemoteObject(name: "other/learners/y", size: 1), RemoteObject(name: "learners/z", size: 1),
                    RemoteObject(name: "app/learnersX/w", size: 1),
                ], isTruncated: false, nextToken: nil)
        }
        #expect(objects == [RemoteObject(name: "learners/x", size: 1)])
    }

    @Test(
        "hostile ListObjectsV2 XML: CDATA and entities are taken as text (a name sync does not know is left alone), a missing or negative size is refused",
        arguments: [
            ("<ListBucketResult><Contents><Key><![CDATA[app/learners/x]]></Key><Size>3</Size></Contents></ListBucketResult>", "<![CDATA[app/learners/x]]>"),
            ("<ListBucketResult><Contents><Key>app/learners/&#47;&#46;&#46;&#47;x</Key><Size>3</Size></Contents></ListBucketResult>", "app/learners//../x"),
            ("<ListBucketResult><Contents><Key>a&amp;b&#0;</Key><Size>3</Size></Contents></ListBucketResult>", "a&b\u{0}"),
            ("<ListBucketResult><Contents><Key>k</Key></Contents></ListBucketResult>", nil),
            ("<ListBucketResult><Contents><Key>k</Key><Size>-1</Size></Contents></ListBucketResult>", nil),
            ("<ListBucketResult><Contents><Key>k</Key><Size>99999999999999999999999</Size></Contents></ListBucketResult>", nil),
            ("<Error><Code>AccessDenied</Code></Error>", nil),
        ] as [(String, String?)])
    func hostileXML(_ xml: String, _ key: String?) {
        switch ListPage.parse(Array(xml.utf8)) {
        case .success(let page):
            #expect(page.objects.map(\.name) == [key].compactMap { $0 }, "\(xml)")
            #expect(key.map { ObjectName(parsing: $0) } == .some(nil), "a name sync would read")
        case .failure:
            #expect(key == nil, "\(xml)")
        }
    }

    // MARK: - Snapshots and lost segments

    @Test("a snapshot that claims to cover another device's segments without their events (a key holder's bug) does not make a new device skip them")
    func snapshotClaimingTooMuch() async throws {
        let setup = try await Folder()
        let segment = try #require(try setup.scratch.tree("remote").keys.first { $0.contains("/segments/") })
        let liar: UInt64 = 0xBAD
        let body = ObjectBody(learner: setup.key.learner, device: liar, sequence: 2, sealedAt: 0, covered: [segment], events: [])
        let content = body.encoded()
        let name = ObjectName(kind: .snapshot, learner: setup.key.learner, device: liar, sequence: 2, tag: SealedObject.tag(for: content, key: setup.key))
        try setup.scratch.write("remote/" + name.description, try SealedObject.seal(content, kind: .snapshot, name: name.description, key: setup.key))
        let fresh = try Device("fresh", scratch: setup.scratch, remote: setup.remote, key: setup.key)
        let report = try await fresh.sync.sync()
        #expect(try fresh.store.reviews(source: "bank/b").count == 3, "\(report)")
        #expect(try fresh.hash() == setup.a.hash())
        #expect(report.missing == ["0000000000000bad: 1 of 1…1"], "\(report.missing)")
    }

    @Test("a segment the store lost is reported by the others, and its writer, finding it gone, writes a snapshot that brings its events back")
    func lostSegmentsHeal() async throws {
        let setup = try await Folder()
        let a = setup.a
        let b = try Device("b", scratch: setup.scratch, remote: setup.remote, key: setup.key)
        _ = try await b.sync.sync()
        // Two more segments of a; the store loses the first of them.
        for step in 0..<2 {
            try a.answer("q\(7 + step)", grade: 2, at: day0.addingTimeInterval(Double(7_200 + step * 60)))
            _ = try await a.sync.sync()
        }
        let second = ObjectName(kind: .segment, learner: setup.key.learner, device: a.store.device.rawValue, sequence: 2, tag: "")
        // Its name without the tag ends in "0000000002-".
        let lost = try #require(try setup.scratch.tree("remote").keys.first { $0.hasPrefix(second.description) })
        try FileManager.default.removeItem(atPath: setup.scratch.url("remote/" + lost))
        let behind = try await b.sync.sync()
        #expect(behind.missing == ["\(a.store.device): 1 of 2…2"], "\(behind.missing)")
        #expect(try b.store.reviews(source: "bank/b").count == 4)
        // The lost segment was uploaded two hours ago (a listing that lags by seconds cannot explain it).
        for var record in try a.store.syncObjects() where record.name == lost {
            record.sealedAt -= 2 * 3_600_000
            try a.store.recordObject(record)
        }
        let healing = try await a.sync.sync()
        #expect(try setup.scratch.tree("remote").keys.contains { $0.contains("\(a.store.device)/snapshots/") }, "\(healing)")
        let fresh = try Device("fresh", scratch: setup.scratch, remote: setup.remote, key: setup.key)
        for device in [b, fresh] {
            let report = try await device.sync.sync()
            #expect(report.missing.isEmpty, "\(report.missing)")
            #expect(try device.store.reviews(source: "bank/b").count == 5)
            #expect(try device.hash() == a.hash())
        }
    }
}

/// A counter a closure can step (the listing's pages in the tests above).
final class Counter: @unchecked Sendable {
    // @unchecked: `value` is behind `lock`.
    private let lock = NSLock()
    private(set) var value = 0

    /// The value before this step.
    func next() -> Int {
        lock.lock()
        defer { lock.unlock() }
        value += 1
        return value - 1
    }
}
