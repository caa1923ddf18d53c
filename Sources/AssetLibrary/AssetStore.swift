import ErrorReporting
import AssetPack
import Foundation
import SystemPackage

/// Many packs acting as one: patch, locale and base packs, looked up in priority order through
/// the current locale's fallback chain.
///
/// ```swift
/// let store = AssetStore()                                   // development locale: en
/// try store.mount(contentsOf: baseURL)                       // a base pack: priority .base
/// try store.mount(contentsOf: englishURL)                    // a locale pack: priority .locale
/// try store.mount(contentsOf: russianURL)
/// try store.setLocale("ru")
/// let hit = store.lookup("Banks/driving-rules/parking.json")    // answered by driving-ru
/// let picture = store.image(named: "Images/categories/parking.png", scale: 3, idiom: .pad)
/// ```
///
/// Lookups go through an immutable ``AssetView``: a snapshot of the mounted packs in lookup
/// order. `setLocale` builds the new view and swaps it in under a lock held only for a pointer
/// swap, so lookups never see a mix of two chains and never wait for a swap's work. Take one
/// view with ``currentView`` to read several files (a bank's parts) from the same chain.
///
/// Packs mounted by path are opened through a process-wide cache keyed by file identity
/// (device, inode, size, modification time): switching en → ru → en reopens nothing, and a pack
/// rebuilt under the same path is a new file, never served from the stale entry.
public final class AssetStore: Sendable {
    /// The locale whose packs are the last fallback before the base packs.
    public let developmentLocale: LocaleTag

    private struct State {
        var mounts: [Mount] = []
        var requested: LocaleTag?
        var view: AssetView
        var sequence = 0
    }

    private let state: Protected<State>

    /// A store whose development locale (Apple's development region, the last fallback of every
    /// chain, the locale that holds every resource) is `developmentLocale`, English by default.
    public init(developmentLocale: LocaleTag = LocaleTag(language: "en")) {
        self.developmentLocale = developmentLocale
        state = Protected(State(view: AssetView(chain: [developmentLocale], layers: [])))
    }

    /// A store whose development locale is the tag `developmentLocale` (`"en"`, `"pt-BR"`).
    ///
    /// - Throws: ``StoreError/Code/malformedLocale`` for a tag that does not parse.
    public convenience init(developmentLocale: String) throws(StoreError) {
        self.init(developmentLocale: try LocaleTag(parsing: developmentLocale))
    }

    /// The current snapshot: lookups on it all see the same packs, whatever swaps happen meanwhile.
    public var currentView: AssetView { state.withLock { $0.view } }

    /// The current fallback chain, most specific first (base packs come after it).
    public var localeChain: [LocaleTag] { currentView.chain }

    /// The locale last set, if any.
    public var locale: LocaleTag? { state.withLock { $0.requested } }

    /// Mounts a pack. Without a `priority`, a locale pack (one whose index names a locale) gets
    /// ``MountPriority/locale`` and any other ``MountPriority/base``; patch packs are mounted
    /// with ``MountPriority/patch`` explicitly. Packs of the same priority are ordered by the
    /// locale chain; among equals the one mounted later wins.
    ///
    /// - Throws: ``StoreError/Code/malformedLocale`` naming the pack when its index carries a
    ///   locale that is not a well-formed tag (it would otherwise answer for every locale, as a
    ///   base pack does).
    public func mount(_ pack: Pack, priority: MountPriority? = nil) throws(StoreError) {
        try mount(pack, priority: priority, variants: nil)
    }

    func mount(_ pack: Pack, priority: MountPriority?, variants: VariantIndex?) throws(StoreError) {
        var locale: LocaleTag?
        if let tag = pack.metadata?.locale {
            do {
                locale = try LocaleTag(tag)
            } catch {
                throw StoreError(.malformedLocale, "the pack's index says locale \(error.detail)", at: .file(pack.path))
            }
        }
        let index = variants ?? VariantIndex(pack: pack)
        let priority = priority ?? (locale == nil ? .base : .locale)
        update { state in
            state.sequence += 1
            state.mounts.append(Mount(pack: pack, priority: priority, sequence: state.sequence, locale: locale, variants: index))
        }
    }

    /// Opens and mounts the pack at the file URL `url` (see ``mount(_:priority:)``); returns it.
    @discardableResult
    public func mount(contentsOf url: URL, priority: MountPriority? = nil) throws(StoreError) -> Pack {
        let path: String
        do {
            path = try Pack.path(of: url)
        } catch {
            throw StoreError(error)
        }
        return try mount(path: path, priority: priority)
    }

    /// Opens and mounts the pack at `path` (see ``mount(_:priority:)``); returns it.
    @discardableResult
    public func mount(path: FilePath, priority: MountPriority? = nil) throws(StoreError) -> Pack {
        try mount(path: path.string, priority: priority)
    }

    /// Opens and mounts the pack at `path` (see ``mount(_:priority:)``); returns it.
    @discardableResult
    public func mount(path: String, priority: MountPriority? = nil) throws(StoreError) -> Pack {
        let cached: PackCache.CachedPack
        do {
            cached = try PackCache.shared.open(path: path)
        } catch {
            throw StoreError(error)
        }
        try mount(cached.pack, priority: priority, variants: cached.variants)
        return cached.pack
    }

    /// Puts the pack now at `path` in place of the packs mounted from that path, in one step: a
    /// delivery client renamed a new generation over the file. Lookups after it returns see only
    /// the new pack; views taken before keep the old one, whose mapping stays valid (the old file
    /// was renamed over, never rewritten). Returns the new pack, or `nil` when nothing mounted
    /// came from `path` (nothing is mounted then).
    @discardableResult
    public func remount(path: String) throws(StoreError) -> Pack? {
        guard state.withLock({ $0.mounts.contains { $0.pack.path == path } }) else { return nil }
        let cached: PackCache.CachedPack
        do {
            cached = try PackCache.shared.open(path: path)
        } catch {
            throw StoreError(error)
        }
        var locale: LocaleTag?
        if let tag = cached.pack.metadata?.locale {
            do {
                locale = try LocaleTag(tag)
            } catch {
                throw StoreError(.malformedLocale, "the pack's index says locale \(error.detail)", at: .file(path))
            }
        }
        update { state in
            state.mounts = state.mounts.map { mount in
                guard mount.pack.path == path else { return mount }
                return Mount(pack: cached.pack, priority: mount.priority, sequence: mount.sequence, locale: locale, variants: cached.variants)
            }
        }
        return cached.pack
    }

    /// Unmounts `pack` (views already taken keep it).
    public func unmount(_ pack: Pack) {
        update { state in state.mounts.removeAll { $0.pack === pack } }
    }

    /// Switches to `tag`'s fallback chain, atomically for every lookup after it returns.
    ///
    /// - Throws: ``StoreError/Code/malformedLocale`` for a tag that does not parse; the store
    ///   keeps its current locale then.
    public func setLocale(_ tag: String) throws(StoreError) {
        let parsed = try LocaleTag(parsing: tag)
        update { state in state.requested = parsed }
    }

    /// The first pack in lookup order that has `path`.
    public func lookup(_ path: String) -> AssetHit? { currentView.lookup(path) }

    /// The bytes of `path` from the first pack that has it.
    public func data(forPath path: String) throws(StoreError) -> PackData { try currentView.data(forPath: path) }

    /// The best variant of `name` for a screen of `scale` on `idiom` (see ``AssetView/image(named:scale:idiom:)``).
    public func image(named name: String, scale: Int, idiom: Idiom = .phone) -> ImageHit? {
        currentView.image(named: name, scale: scale, idiom: idiom)
    }

    /// Applies `change`, then rebuilds the view outside the lock and swaps it in. Concurrent
    /// changes retry, so none is lost.
    private func update(_ change: (inout State) -> Void) {
        while true {
            var draft = state.withLock { $0 }
            let before = draft.sequence
            change(&draft)
            draft.sequence += 1
            draft.view = AssetView.make(mounts: draft.mounts, requested: draft.requested, development: developmentLocale)
            let swapped = state.withLock { current -> Bool in
                guard current.sequence == before else { return false }
                current = draft
                return true
            }
            if swapped { return }
        }
    }
}
