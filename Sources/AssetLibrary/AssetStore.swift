import AssetPack
import Foundation
import SystemPackage

/// Where a mounted pack stands among the others: a higher priority is looked up first.
///
/// By convention patch packs stand over locale packs, which stand over base packs; any whole
/// number is a priority too (`AssetStore.mount(pack, priority: 150)`).
public struct MountPriority: RawRepresentable, Hashable, Comparable, Sendable, ExpressibleByIntegerLiteral,
    CustomStringConvertible
{
    public let rawValue: Int

    public init(rawValue: Int) { self.rawValue = rawValue }

    public init(integerLiteral value: Int) { rawValue = value }

    /// Base packs (pictures, content shared by every language): 0.
    public static let base = MountPriority(rawValue: 0)
    /// Locale packs (one language's content): 100. Among them, the locale chain decides.
    public static let locale = MountPriority(rawValue: 100)
    /// Patch packs (fixes over everything): 200.
    public static let patch = MountPriority(rawValue: 200)

    public static func < (lhs: MountPriority, rhs: MountPriority) -> Bool { lhs.rawValue < rhs.rawValue }

    /// `base`, `locale`, `patch`, or the number.
    public var description: String {
        switch self {
        case .base: "base"
        case .locale: "locale"
        case .patch: "patch"
        default: String(rawValue)
        }
    }
}

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
                throw StoreError(.malformedLocale, "the pack's index says locale \(error.detail)", subject: pack.path)
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
                throw StoreError(.malformedLocale, "the pack's index says locale \(error.detail)", subject: path)
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

/// One mounted pack.
struct Mount: Sendable {
    let pack: Pack
    let priority: MountPriority
    let sequence: Int
    let locale: LocaleTag?
    let variants: VariantIndex
}

/// A lookup's answer: which pack answered, and the entry.
public struct AssetHit: Sendable {
    /// The pack that answered.
    public let pack: Pack
    /// The entry in that pack.
    public let entry: PackEntry
    /// The answering pack's priority in the store.
    public let priority: MountPriority

    /// The entry's bytes (zero-copy for mapped packs).
    public func data() throws(StoreError) -> PackData {
        do { return try pack.data(for: entry) } catch { throw StoreError(error) }
    }
}

/// The chosen variant of an image, and where it came from.
public struct ImageHit: Sendable {
    /// The file chosen and the pack it came from.
    public let hit: AssetHit
    /// The scale of the file chosen (1 for a file without a scale suffix).
    public let scale: Int
    /// The device suffix of the file chosen, if it has one.
    public let idiom: Idiom?
    /// The path of the file chosen (`Images/duck@3x~ipad.png`).
    public var path: String { hit.entry.path }
    /// The pack the file came from.
    public var pack: Pack { hit.pack }
}

/// An immutable snapshot of a store: its chain and its packs in lookup order.
public final class AssetView: Sendable {
    /// The fallback chain, most specific first.
    public let chain: [LocaleTag]
    let layers: [Mount]

    init(chain: [LocaleTag], layers: [Mount]) {
        self.chain = chain
        self.layers = layers
    }

    /// The packs in lookup order.
    public var packs: [Pack] { layers.map(\.pack) }

    static func make(mounts: [Mount], requested: LocaleTag?, development: LocaleTag) -> AssetView {
        let available = mounts.compactMap(\.locale)
        let chain = LocaleFallback.chain(for: requested ?? development, development: development, available: available)
        // Base packs (no locale) always; locale packs only if their locale is in the chain.
        var eligible: [(mount: Mount, rank: Int)] = []
        for mount in mounts {
            if let locale = mount.locale {
                guard let position = chain.firstIndex(where: { $0.sameLocale(as: locale) }) else { continue }
                eligible.append((mount, position))
            } else {
                eligible.append((mount, chain.count))
            }
        }
        eligible.sort {
            ($0.mount.priority, -$0.rank, $0.mount.sequence) > ($1.mount.priority, -$1.rank, $1.mount.sequence)
        }
        return AssetView(chain: chain, layers: eligible.map(\.mount))
    }

    /// The first pack in lookup order that has `path`, and its entry. O(1) per pack.
    public func lookup(_ path: String) -> AssetHit? {
        for index in layers.indices {
            let pack = layers[index].pack
            if let number = pack.entryNumber(forPath: path) {
                return AssetHit(pack: pack, entry: pack.makeEntry(number), priority: layers[index].priority)
            }
        }
        return nil
    }

    /// The bytes of `path` from the first pack that has it (zero-copy for mapped packs).
    ///
    /// - Throws: ``StoreError/Code/notFound`` when no pack has it; a ``StoreError/Code/pack``
    ///   error when it cannot be read.
    public func data(forPath path: String) throws(StoreError) -> PackData {
        guard let hit = lookup(path) else { throw StoreError(.notFound, subject: path) }
        return try hit.data()
    }

    /// The best variant of `name` (`Images/duck.png`) for a screen of `scale` on `idiom`.
    ///
    /// Tries, in order: `duck@3x~ipad.png`, `duck@3x.png`, the nearest larger scale, then smaller
    /// ones — scale wins over idiom, scaling down is preferred over scaling up. Each variant is
    /// taken from the highest pack that has that very file, so a patch pack's `@2x` overrides the
    /// base's `@2x` only.
    public func image(named name: String, scale: Int, idiom: Idiom = .phone) -> ImageHit? {
        // The best so far as (rank, variant, layer index): no copies of the mounts on the way.
        var best: (rank: (Int, Int, Int), variant: VariantIndex.Variant, layer: Int)?
        var taken: UInt32 = 0
        for index in layers.indices {
            let plain = layers[index].pack.entryNumber(forPath: name)
            if let group = layers[index].variants.group(of: name, plainEntry: plain) {
                for variant in layers[index].variants.groups[group] where taken & variant.key == 0 {
                    taken |= variant.key
                    guard let rank = VariantIndex.rank(variant, scale: scale, idiom: idiom) else { continue }
                    if best == nil || rank < best!.rank { best = (rank, variant, index) }
                }
            } else if let plain {
                let variant = VariantIndex.Variant(scale: 1, idiom: nil, entryNumber: plain)
                guard taken & variant.key == 0 else { continue }
                taken |= variant.key
                if let rank = VariantIndex.rank(variant, scale: scale, idiom: idiom), best == nil || rank < best!.rank {
                    best = (rank, variant, index)
                }
            }
        }
        guard let best else { return nil }
        let layer = layers[best.layer]
        return ImageHit(
            hit: AssetHit(pack: layer.pack, entry: layer.pack.makeEntry(best.variant.entryNumber), priority: layer.priority),
            scale: best.variant.scale, idiom: best.variant.idiom)
    }
}

extension LocaleTag {
    /// Parses `text`, reporting a malformed tag as the store's own error.
    init(parsing text: String) throws(StoreError) {
        do {
            self = try Self.parse(text)
        } catch {
            throw StoreError(.malformedLocale, error.reason, subject: text)
        }
    }
}
