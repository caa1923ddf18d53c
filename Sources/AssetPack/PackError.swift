import ErrorReporting
import SystemPackage

/// An error from building, opening, reading or verifying a pack.
///
/// Every error carries a ``Code`` that says what went wrong and, in its ``location``, the pack's
/// path, the entry's name and the byte offset where the problem was found (or a source file and
/// the line of a settings file); when a system call failed, also the system's own error
/// (``underlying``), so a caller can tell a full disk from a missing file. Its `description` is
/// one line that tells a user what to look at, with control characters in names escaped.
public struct PackError: CodedError, Equatable {
    /// What went wrong: a stable identifier (its raw value never changes) that tests and callers
    /// can match on, with an English ``summary`` for messages.
    public enum Code: String, ErrorCode {
        // Files and I/O.
        /// The file or folder does not exist.
        case fileNotFound
        /// The path names a folder, FIFO, socket or device where a regular file is needed.
        case notRegularFile
        /// The path names something other than a folder where a folder is needed.
        case notAFolder
        /// A symbolic link leads back into a folder being walked.
        case symbolicLinkLoop
        /// A read, write, sync or other system call failed; ``PackError/underlying`` says why.
        case io
        /// A source file changed (size, time or identity) while it was being packed.
        case fileChanged
        /// A file is in the way of one being written.
        case fileExists
        // End records.
        /// The file has no end of central directory record: it is not a zip.
        case notAZip
        /// The end of central directory record is damaged or inconsistent.
        case badEndRecord
        /// The archive spans several disks.
        case multiDisk
        /// A Zip64 end record or locator is damaged or disagrees with the end record.
        case badZip64
        // Central directory and local headers.
        /// A central directory record is damaged.
        case badCentralDirectory
        /// A local file header is damaged.
        case badLocalHeader
        /// An entry's local header and central directory record disagree.
        case headerMismatch
        /// An entry's bytes lie outside the archive's data.
        case entryOutOfBounds
        /// Two entries share bytes.
        case overlappingEntries
        /// An entry's bytes do not have the recorded CRC-32.
        case crcMismatch
        /// An entry's bytes do not have the SHA-256 a format-2 index lists, whatever their CRC-32.
        case sha256Mismatch
        /// Sizes disagree (a stored entry's two sizes, or inflated bytes and the declared size).
        case sizeMismatch
        /// The entry uses a compression method other than stored or deflated.
        case unsupportedMethod
        /// The entry is encrypted.
        case encrypted
        /// The entry's deflated bytes are corrupt.
        case inflateFailed
        /// An entry's data does not start at a multiple of the pack's alignment.
        case misaligned
        // Names.
        /// Two entries have the same name.
        case duplicateName
        /// Two names differ only by case or Unicode normalization (they collide on Apple's file
        /// systems), or a file's name is also a folder's.
        case nameCollision
        /// A name is absolute, has `..` or control characters, or breaks another naming rule.
        case unsafeName
        // The pack index.
        /// The pack's index is damaged.
        case badIndex
        /// The pack's index disagrees with the zip records.
        case indexMismatch
        /// A format-2 pack holds a byte the builder would not have written for its index and
        /// contents (a time, padding, an extra field, a comment, the index's text, a gap).
        case notCanonical
        /// A locale tag is not a well-formed BCP 47 tag.
        case malformedLocale
        // Lookups, settings and tools.
        /// The pack has no entry with that name.
        case entryNotFound
        /// A value passed in (an option, an alignment, a timestamp) is not acceptable.
        case invalidArgument
        /// A build settings file (`.pack.json`) has an unknown key or a value of the wrong type.
        case invalidSettings
        /// A size is too large to handle (or memory could not be had).
        case tooLarge

        /// The code in a few English words, as messages show it.
        public var summary: String {
            switch self {
            case .fileNotFound: "no such file"
            case .notRegularFile: "not a regular file"
            case .notAFolder: "not a folder"
            case .symbolicLinkLoop: "symbolic link loop"
            case .io: "I/O error"
            case .fileChanged: "file changed while being packed"
            case .fileExists: "file exists"
            case .notAZip: "not a zip file"
            case .badEndRecord: "bad end of central directory record"
            case .multiDisk: "multi-disk archives are not supported"
            case .badZip64: "bad Zip64 record"
            case .badCentralDirectory: "bad central directory"
            case .badLocalHeader: "bad local header"
            case .headerMismatch: "local and central headers disagree"
            case .entryOutOfBounds: "entry data lies outside the archive"
            case .overlappingEntries: "entries overlap"
            case .crcMismatch: "CRC-32 mismatch"
            case .sha256Mismatch: "SHA-256 mismatch"
            case .sizeMismatch: "size mismatch"
            case .unsupportedMethod: "unsupported compression method"
            case .encrypted: "encrypted entries are not supported"
            case .inflateFailed: "deflated data is corrupt"
            case .misaligned: "entry data is not aligned"
            case .duplicateName: "duplicate entry name"
            case .nameCollision: "names collide on case-insensitive file systems"
            case .unsafeName: "unsafe entry name"
            case .badIndex: "bad pack index"
            case .indexMismatch: "pack index disagrees with the archive"
            case .notCanonical: "not the bytes the builder writes"
            case .malformedLocale: "malformed locale tag"
            case .entryNotFound: "no such entry"
            case .invalidArgument: "invalid argument"
            case .invalidSettings: "invalid build settings"
            case .tooLarge: "too large"
            }
        }
    }

    /// What went wrong.
    public var code: Code
    /// A precise explanation: the values found and expected.
    public var detail: String
    /// The pack (or source folder, or file), the entry and the byte offset, or the 1-based line
    /// of a text file (build settings), those that apply.
    public var location: ErrorLocation
    /// The system's error when a system call failed (`.noSpace` for a full disk,
    /// `.noSuchFileOrDirectory`, `.permissionDenied`, …); `nil` otherwise.
    public var underlying: Errno?

    /// Creates an error; `detail` says what was found and expected.
    public init(_ code: Code, _ detail: String = "", at location: ErrorLocation = ErrorLocation(), underlying: Errno? = nil) {
        self.code = code
        self.detail = detail
        self.location = location
        self.underlying = underlying
    }

    /// The error of a failed system call: ``Code/fileNotFound`` for a missing file, else
    /// ``Code/io`` with `what` failed and the system's words; the `Errno` is kept either way.
    static func system(_ error: Errno, _ what: String, at location: ErrorLocation = ErrorLocation()) -> PackError {
        if error == .noSuchFileOrDirectory {
            return PackError(.fileNotFound, at: location, underlying: error)
        }
        return PackError(.io, "\(what): \(error.description)", at: location, underlying: error)
    }
}
