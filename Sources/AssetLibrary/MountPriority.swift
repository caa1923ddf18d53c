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
