import ErrorReporting

extension PackError: LibraryError {
    /// `AssetPack`.
    public static var library: String { "AssetPack" }

    /// The code's raw value (`crcMismatch`).
    public var codeName: String { code.rawValue }

    /// The pack (or source file), the line of a settings file, the entry and the offset.
    public var location: ErrorLocation { ErrorLocation(file: path, line: line, entry: entry, offset: offset) }

    /// `nil`: a pack error is where the problem is (a failed system call's `Errno` is kept in
    /// ``systemError``).
    public var underlyingError: (any LibraryError)? { nil }
}
