/// An error from building, opening, reading or verifying a pack.
///
/// Every error carries a ``Code`` that says what went wrong and, where they apply, the pack's
/// path, the entry's name and the byte offset where the problem was found, so the one-line
/// ``description`` tells a user what to look at.
public struct PackError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong, as a stable vocabulary that tests and callers can match on.
    public enum Code: String, Sendable, Equatable, CaseIterable {
        // Files and I/O.
        case fileNotFound = "no such file"
        case io = "I/O error"
        case fileChanged = "file changed while being packed"
        // End records.
        case notAZip = "not a zip file"
        case badEndRecord = "bad end of central directory record"
        case multiDisk = "multi-disk archives are not supported"
        case badZip64 = "bad Zip64 record"
        // Central directory and local headers.
        case badCentralDirectory = "bad central directory"
        case badLocalHeader = "bad local header"
        case headerMismatch = "local and central headers disagree"
        case entryOutOfBounds = "entry data lies outside the archive"
        case overlappingEntries = "entries overlap"
        case crcMismatch = "CRC-32 mismatch"
        case sizeMismatch = "size mismatch"
        case unsupportedMethod = "unsupported compression method"
        case encrypted = "encrypted entries are not supported"
        case inflateFailed = "deflated data is corrupt"
        case misaligned = "entry data is not aligned"
        // Names.
        case duplicateName = "duplicate entry name"
        case nameCollision = "names collide on case-insensitive file systems"
        case unsafeName = "unsafe entry name"
        // The pack index.
        case badIndex = "bad pack index"
        case indexMismatch = "pack index disagrees with the archive"
        // Lookups and tools.
        case entryNotFound = "no such entry"
        case invalidArgument = "invalid argument"
        case fileExists = "file exists"
        case tooLarge = "too large"
    }

    /// What went wrong.
    public var code: Code
    /// The pack (or source folder, or file) the error is about, when known.
    public var path: String?
    /// The entry name the error is about, when it concerns one entry.
    public var entry: String?
    /// The byte offset in the pack where the problem was found, when it has one.
    public var offset: UInt64?
    /// A precise explanation: the values found and expected.
    public var detail: String

    public init(
        _ code: Code, _ detail: String = "", path: String? = nil, entry: String? = nil, offset: UInt64? = nil
    ) {
        self.code = code
        self.detail = detail
        self.path = path
        self.entry = entry
        self.offset = offset
    }

    /// One line: `PACK: entry "NAME": CODE: DETAIL (at offset N)`.
    public var description: String {
        var parts: [String] = []
        if let path { parts.append(path) }
        if let entry { parts.append("entry \"\(entry)\"") }
        parts.append(detail.isEmpty ? code.rawValue : "\(code.rawValue): \(detail)")
        var line = parts.joined(separator: ": ")
        if let offset { line += " (at offset \(offset))" }
        return line
    }

    /// The same error, attributed to a pack path if it has none yet.
    func at(path newPath: String) -> PackError {
        var copy = self
        if copy.path == nil { copy.path = newPath }
        return copy
    }
}
