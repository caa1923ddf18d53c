import AssetLibrary
import AssetPack
import ErrorReporting

extension ContentError: LibraryError {
    /// `StudyContent`.
    public static var library: String { "StudyContent" }

    /// The code's raw value (`missingPicture`).
    public var codeName: String { code.rawValue }

    /// The content file, its line and the item.
    public var location: ErrorLocation { ErrorLocation(file: file, line: line, item: item) }

    /// The pack or store error underneath, for ``Code/unreadable``.
    public var underlyingError: (any LibraryError)? {
        switch cause {
        case .pack(let error): error
        case .store(let error): error
        case nil: nil
        }
    }
}
