import ErrorReporting
import AssetPack

/// A process-wide cache of opened packs and their variant groups.
///
/// Keyed by file identity (device, inode, size, modification time): reopening a pack that has
/// not changed (switching en → ru → en) costs one `stat` and no parsing, while a pack rebuilt
/// under the same path (a new file renamed into place) has a new identity and is opened afresh,
/// never served from the stale one. Each cached pack also records its content digest, so
/// callers can tell whether two files hold the same pack.
final class PackCache: Sendable {
    /// A cache slot: an opened pack with what the store needs from it, computed once.
    final class CachedPack: Sendable {
        let pack: Pack
        let variants: VariantIndex
        var digest: String? { pack.metadata?.digest }

        init(pack: Pack) {
            self.pack = pack
            variants = VariantIndex(pack: pack)
        }
    }

    struct Statistics: Sendable, Equatable {
        /// Packs opened and parsed.
        var opens = 0
        /// Reopens answered from the cache.
        var hits = 0
    }

    private struct State {
        var packs: [FileIdentity: (cached: CachedPack, lastUse: Int)] = [:]
        var clock = 0
        var statistics = Statistics()
    }

    /// The cache shared by every store in the process.
    static let shared = PackCache()

    /// How many packs are kept; the least recently used go first.
    let capacity: Int
    private let state = Protected(State())

    init(capacity: Int = 64) {
        self.capacity = capacity
    }

    var statistics: Statistics { state.withLock { $0.statistics } }

    /// The pack at `path`, from the cache when the file is the one cached.
    func open(path: String, backend: PackBackend = .mapped) throws(PackError) -> CachedPack {
        let identity = try FileIdentity(path: path)
        let cached: CachedPack? = state.withLock { state in
            guard let found = state.packs[identity], found.cached.pack.backend == backend else { return nil }
            state.clock += 1
            state.packs[identity]?.lastUse = state.clock
            state.statistics.hits += 1
            return found.cached
        }
        if let cached { return cached }
        let opened = CachedPack(pack: try Pack(path: path, backend: backend))
        state.withLock { state in
            state.clock += 1
            state.statistics.opens += 1
            state.packs[opened.pack.fileIdentity] = (opened, state.clock)
            while state.packs.count > capacity,
                let oldest = state.packs.min(by: { $0.value.lastUse < $1.value.lastUse })?.key
            {
                state.packs.removeValue(forKey: oldest)
            }
        }
        return opened
    }

    /// Forgets every cached pack (views already handed out stay valid).
    func removeAll() { state.withLock { $0.packs.removeAll() } }
}
