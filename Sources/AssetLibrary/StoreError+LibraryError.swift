import ErrorReporting

extension StoreError {
    /// `AssetLibrary`.
    public static var library: String { "AssetLibrary" }
}
