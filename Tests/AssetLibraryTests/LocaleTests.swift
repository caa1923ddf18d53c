import AssetPack
import TestSupport
import Testing

@testable import AssetLibrary

@Suite("Locale tags and fallback chains")
struct LocaleTests {
    static let available = [
        "en", "en-US", "pt", "pt-PT", "zh-Hans", "zh-Hant", "zh-Hant-HK", "sr", "sr-Latn", "fr-FR", "fr-CA", "de", "ru",
    ].map { try! LocaleTag($0) }

    @Test(
        "fallback chains (development locale en)",
        arguments: [
            ("pt-BR", "pt-BR pt pt-PT en en-US"),
            ("pt_br", "pt-BR pt pt-PT en en-US"),
            ("zh-Hant-TW", "zh-Hant-TW zh-Hant zh-Hant-HK en en-US"),
            ("zh-TW", "zh-TW zh-Hant zh-Hant-HK en en-US"),
            ("zh-Hans", "zh-Hans en en-US"),
            ("zh-CN", "zh-CN zh-Hans en en-US"),
            ("zh", "zh en en-US"),
            ("sr-Latn", "sr-Latn en en-US"),
            ("sr", "sr en en-US"),
            ("en-GB", "en-GB en en-US"),
            ("en", "en en-US"),
            ("fr-CH", "fr-CH fr fr-FR fr-CA en en-US"),
            ("fr", "fr fr-FR fr-CA en en-US"),
            ("de-AT", "de-AT de en en-US"),
            ("ru", "ru en en-US"),
            ("und", "en en-US"),
            ("es-419", "es-419 es en en-US"),
            ("de-DE-1996", "de-DE-1996 de-DE de en en-US"),
            ("ja-JP-u-ca-japanese", "ja-JP ja en en-US"),
            ("IW", "he en en-US"),
        ])
    func chains(tag: String, expected: String) throws {
        let chain = LocaleFallback.chain(
            for: try LocaleTag(tag), development: try LocaleTag("en"), available: Self.available)
        #expect(chain.map(\.description).joined(separator: " ") == expected)
    }

    @Test("zh-Hant never falls back to Simplified Chinese")
    func neverCrossesScripts() throws {
        for tag in ["zh-Hant", "zh-Hant-TW", "zh-TW", "zh-HK", "zh-MO"] {
            let chain = LocaleFallback.chain(for: try LocaleTag(tag), development: try LocaleTag("en"), available: Self.available)
            #expect(!chain.contains { $0.effectiveScript == "Hans" }, "\(tag): \(chain)")
        }
    }

    @Test("malformed tags are a clear error", arguments: ["", "e", "english", "en--US", "en-", "12-US", "en-US-x", "fr-!!", "zh-Hant-TW-ab"])
    func malformed(tag: String) throws {
        let error = #expect(throws: PackError.self) { try LocaleTag(tag) }
        #expect(error?.code == .malformedLocale)
        #expect(error?.detail.hasPrefix("\"\(tag)\": ") == true, "\(String(describing: error))")
        // Through a store, the same tag is the store's error, naming the tag; the locale stays.
        let store = try AssetStore()
        let storeError = #expect(throws: StoreError.self) { try store.setLocale(tag) }
        #expect(storeError?.code == .malformedLocale)
        #expect(storeError?.location.item == tag)
        #expect(store.locale == nil)
    }

    @Test("which pack answers each lookup, per locale")
    func answeringPack() throws {
        let scratch = try Scratch()
        let store = try AssetStore(developmentLocale: "en")
        try store.mount(path: scratch.pack("base", files: ["a.txt": "base", "b.txt": "base", "c.txt": "base", "d.txt": "base"]), priority: 0)
        try store.mount(path: scratch.pack("en", locale: "en", files: ["a.txt": "en", "b.txt": "en", "c.txt": "en"]), priority: 100)
        try store.mount(path: scratch.pack("pt", locale: "pt", files: ["a.txt": "pt", "b.txt": "pt"]), priority: 100)
        try store.mount(path: scratch.pack("pt-BR", locale: "pt-BR", files: ["a.txt": "pt-BR"]), priority: 100)
        try store.mount(path: scratch.pack("zh-Hans", locale: "zh-Hans", files: ["a.txt": "zh-Hans"]), priority: 100)
        try store.mount(path: scratch.pack("patch", files: ["d.txt": "patch"]), priority: 200)
        func answers(_ locale: String) throws -> [String] {
            try store.setLocale(locale)
            return try ["a.txt", "b.txt", "c.txt", "d.txt"].map { try #require(store.lookup($0)).pack.metadata?.name ?? "?" }
        }
        #expect(try answers("pt-BR") == ["pt-BR", "pt", "en", "patch"])
        #expect(try answers("pt-PT") == ["pt-BR", "pt", "en", "patch"].map { $0 == "pt-BR" ? "pt" : $0 })
        #expect(try answers("zh-Hant-TW") == ["en", "en", "en", "patch"])
        #expect(try answers("zh-CN") == ["zh-Hans", "en", "en", "patch"])
        #expect(try answers("ru") == ["en", "en", "en", "patch"])
        #expect(store.localeChain.map(\.description) == ["ru", "en"])
        #expect(throws: StoreError.self) { try store.setLocale("!!") }
        #expect(store.locale?.description == "ru")  // a failed setLocale keeps the old chain
    }
}
