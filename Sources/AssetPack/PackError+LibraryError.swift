import ErrorReporting
import SystemPackage

extension PackError {
    /// `AssetPack`.
    public static var library: String { "AssetPack" }
}

extension Errno: ErrorCause {
    /// `nil`: the system's error is kept as a value, and its words are in the detail.
    public var libraryError: (any LibraryError)? { nil }
}
