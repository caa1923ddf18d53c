import AssetPack
import ErrorReporting

extension StoreError: LibraryError {
    /// `AssetLibrary`.
    public static var library: String { "AssetLibrary" }

    /// The code's raw value (`notFound`).
    public var codeName: String { code.rawValue }

    /// The asset or locale tag the error names, as `item`; for ``Code/pack``, the pack error's
    /// place.
    public var location: ErrorLocation {
        packError?.location ?? ErrorLocation(item: subject)
    }

    /// The `PackError` underneath, for ``Code/pack``.
    public var underlyingError: (any LibraryError)? { packError }
}
