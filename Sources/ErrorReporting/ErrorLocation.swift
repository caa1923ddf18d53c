/// Where an error happened; each error fills in the fields that apply to it.
public struct ErrorLocation: Sendable, Hashable {
    /// The file: a pack, a source folder or file, a content file, a review log, a database.
    public var file: String?
    /// The 1-based line (or row) in a text file.
    public var line: Int?
    /// The entry or asset path inside a pack.
    public var entry: String?
    /// The byte offset in the file.
    public var offset: UInt64?
    /// The content item (a question, card, lesson or category id; `source/item` in progress),
    /// or what else the error names: a locale tag, an asset asked for.
    public var item: String?
    /// The field or column (a review-log column, a card state's field).
    public var field: String?

    /// A location with the fields that apply.
    public init(
        file: String? = nil, line: Int? = nil, entry: String? = nil, offset: UInt64? = nil, item: String? = nil,
        field: String? = nil
    ) {
        self.file = file
        self.line = line
        self.entry = entry
        self.offset = offset
        self.item = item
        self.field = field
    }

    /// Whether no field is set.
    public var isEmpty: Bool { self == ErrorLocation() }
}

// The ways call sites name a place: one constructor for each kind of place, named after it.
extension ErrorLocation {
    /// A place in a pack: the pack's path, an entry and a byte offset, those that apply.
    ///
    /// Without a path the place is in the pack at hand; whoever opened the pack names it
    /// (``CodedError/at(file:)``).
    public static func pack(_ path: String? = nil, entry: String? = nil, offset: UInt64? = nil) -> ErrorLocation {
        ErrorLocation(file: path, entry: entry, offset: offset)
    }

    /// A file, or a place in one read as text: its path, the 1-based line, the item and the
    /// field there, those that apply.
    public static func file(_ path: String?, line: Int? = nil, item: String? = nil, field: String? = nil) -> ErrorLocation {
        ErrorLocation(file: path, line: line, item: item, field: field)
    }

    /// A line of the text at hand (the file is named by whoever read it), and the field there.
    public static func line(_ line: Int, field: String? = nil) -> ErrorLocation {
        ErrorLocation(line: line, field: field)
    }

    /// Something named that is not a place in a file (an asset asked for, a locale tag, a pack
    /// of a catalog), and the field of it.
    public static func item(_ item: String?, field: String? = nil) -> ErrorLocation {
        ErrorLocation(item: item, field: field)
    }

    /// A field of a value that has no file: a card state's, a setting's, a key's.
    public static func field(_ field: String?) -> ErrorLocation {
        ErrorLocation(field: field)
    }

    /// The location as a message's leading parts, control characters escaped: `FILE:LINE` (or
    /// `line N`), `entry "NAME"`, the item, the field. The offset is not among them: a message
    /// puts it after what was found.
    package var messageParts: [String] {
        var parts: [String] = []
        switch (file, line) {
        case (let file?, let line?): parts.append("\(file.escapingControlCharacters):\(line)")
        case (let file?, nil): parts.append(file.escapingControlCharacters)
        case (nil, let line?): parts.append("line \(line)")
        case (nil, nil): break
        }
        if let entry { parts.append("entry \"\(entry.escapingControlCharacters)\"") }
        if let item { parts.append(item.escapingControlCharacters) }
        if let field { parts.append(field.escapingControlCharacters) }
        return parts
    }
}
