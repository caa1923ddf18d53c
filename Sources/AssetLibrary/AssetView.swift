import AssetPack
import Foundation
import SystemPackage

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
        guard let hit = lookup(path) else { throw StoreError(.notFound, at: .item(path)) }
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

/// One mounted pack.
struct Mount: Sendable {
    let pack: Pack
    let priority: MountPriority
    let sequence: Int
    let locale: LocaleTag?
    let variants: VariantIndex
}
