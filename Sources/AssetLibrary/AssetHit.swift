import AssetPack

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
