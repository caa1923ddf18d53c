import Foundation
import TestSupport
import Testing

@testable import AssetLibrary
@testable import AssetPack

@Suite("The store: hot locale swap, the pack cache")
struct StoreTests {
    @Test("8 threads look up while another swaps locale 10,000 times: every answer is wholly old or new")
    func hotSwapUnderLoad() throws {
        let scratch = try Scratch()
        let store = try AssetStore(developmentLocale: "en")
        let files = (0..<20).map { "lesson-\($0).txt" }
        for locale in ["en", "ru", "de"] {
            try store.mount(
                path: scratch.pack(locale, locale: locale, files: Dictionary(uniqueKeysWithValues: files.map { ($0, locale) })),
                priority: 100)
        }
        try store.mount(path: scratch.pack("base", files: ["picture.png": "base"]), priority: 0)
        try store.setLocale("ru")
        // Real threads: eight readers and one swapper run at once, whatever the task pool's width.
        let stop = ManagedAtomicFlag()
        let mixedCount = Counter()
        let done = DispatchGroup()
        for worker in 0..<8 {
            done.enter()
            Thread.detachNewThread {
                var round = 0
                while !stop.isSet || round < 100 {
                    round += 1
                    // One view: all its lookups must come from one chain.
                    let view = store.currentView
                    let expected = view.chain.first!.language
                    for file in files where (try? view.data(forPath: file).text) != expected { mixedCount.add() }
                    if (try? view.data(forPath: "picture.png").text) != "base" { mixedCount.add() }
                    // Single lookups through the store answer from one of the chains.
                    if let answer = try? store.data(forPath: files[(round + worker) % files.count]).text,
                        !["en", "ru", "de"].contains(answer)
                    {
                        mixedCount.add()
                    }
                }
                done.leave()
            }
        }
        done.enter()
        Thread.detachNewThread {
            for swap in 0..<10_000 { try? store.setLocale(["en", "ru", "de-AT"][swap % 3]) }
            stop.set()
            done.leave()
        }
        done.wait()
        let mixed = mixedCount.value
        #expect(mixed == 0)
        #expect(store.localeChain.first?.description == "en")  // swap 9,999 was the last
    }

    @Test("reopening an unchanged pack costs no parse; a rebuilt pack under the same path is detected")
    func cache() throws {
        let scratch = try Scratch()
        let cache = PackCache()
        let path = try scratch.pack("c", files: ["a.txt": "one"])
        let first = try cache.open(path: path)
        let again = try cache.open(path: path)
        #expect(first === again)
        #expect(cache.statistics == PackCache.Statistics(opens: 1, hits: 1))
        // en → ru → en: switching back is a hit.
        let other = try scratch.pack("ru", locale: "ru", files: ["a.txt": "ru"])
        _ = try cache.open(path: other)
        #expect(try cache.open(path: path) === first)
        #expect(cache.statistics == PackCache.Statistics(opens: 2, hits: 2))
        // Rebuilt with the same name (a new file renamed over the old one).
        try scratch.pack("c", files: ["a.txt": "two"])
        let rebuilt = try cache.open(path: path)
        #expect(rebuilt !== first)
        #expect(try rebuilt.pack.data(forPath: "a.txt").text == "two")
        #expect(rebuilt.digest != first.digest)
        #expect(try first.pack.data(forPath: "a.txt").text == "one")  // old readers keep their file
        #expect(cache.statistics.opens == 3)
    }

    @Test("mounting through the cache shares the parsed pack between stores")
    func storesShareCache() throws {
        let scratch = try Scratch()
        let path = try scratch.pack("s", files: ["a.txt": "x"])
        let one = AssetStore()
        let two = AssetStore()
        let a = try one.mount(path: path)
        let b = try two.mount(contentsOf: URL(fileURLWithPath: path))
        #expect(a === b)
    }

    @Test("unmounting removes a pack from lookups; views taken before keep it")
    func unmount() throws {
        let scratch = try Scratch()
        let store = try AssetStore()
        let pack = try store.mount(path: scratch.pack("u", files: ["a.txt": "x"]), priority: 0)
        let before = store.currentView
        store.unmount(pack)
        #expect(store.lookup("a.txt") == nil)
        #expect(before.lookup("a.txt")?.pack === pack)
        #expect(throws: StoreError(.notFound, at: .item("a.txt"))) { try store.data(forPath: "a.txt") }
    }
}

/// A counter shared by threads.
final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    var value: Int { lock.withLock { count } }
    func add() { lock.withLock { count += 1 } }
}

/// A flag set once by one task and read by others.
final class ManagedAtomicFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false
    var isSet: Bool { lock.withLock { value } }
    func set() { lock.withLock { value = true } }

    @Test("a pack whose index carries a malformed locale is refused by the store, naming the pack")
    func malformedPackLocale() throws {
        let scratch = try Scratch()
        // A pack written by a tool that did not check its locale (the layout step alone): "e!".
        let entry = PackBuilder.PendingEntry(path: "a.txt", utf8: Array("a.txt".utf8), origin: "a.txt", contents: .bytes([1]))
        let output = try OutputFile(creating: scratch.url("bad.pack"))
        _ = try PackBuilder.layOut(
            [entry], name: "bad", options: .init(locale: "e!"), timestamp: .epoch, into: output)
        let pack = try Pack(path: scratch.url("bad.pack"))
        #expect(pack.metadata?.locale == "e!")
        let store = try AssetStore()
        let error = #expect(throws: StoreError.self) { try store.mount(pack, priority: 100) }
        #expect(error?.code == .malformedLocale)
        #expect(error?.location.file == scratch.url("bad.pack"))
        #expect(store.currentView.packs.isEmpty)
    }
}
