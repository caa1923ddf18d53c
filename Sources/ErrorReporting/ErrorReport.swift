/// How a command-line tool reports any error: one line of text, or the fields a script reads.
///
/// `packtool` and `study` print every failure through here, so every library's errors look the
/// same and carry the same fields.
public enum ErrorReport {
    /// The one line a tool prints for `error` (after its own name): a library error's
    /// description, or any other error's.
    public static func line(for error: any Error) -> String {
        String(describing: error).split(separator: "\n", omittingEmptySubsequences: true)
            .joined(separator: " ")
    }

    /// The fields of a library error for machine-readable output, in a fixed order: `library`,
    /// `code`, `message`, the location fields that are set, and `cause` (the code of the
    /// innermost error underneath, when there is one).
    public static func fields(for error: any LibraryError) -> [(key: String, value: Field)] {
        var fields: [(key: String, value: Field)] = [
            ("library", .text(type(of: error).library)), ("code", .text(error.codeName)), ("message", .text(line(for: error))),
        ]
        let location = error.location
        if let file = location.file { fields.append(("path", .text(file))) }
        if let line = location.line { fields.append(("line", .number(UInt64(max(line, 0))))) }
        if let entry = location.entry { fields.append(("entry", .text(entry))) }
        if let offset = location.offset { fields.append(("offset", .number(offset))) }
        if let item = location.item { fields.append(("item", .text(item))) }
        if let field = location.field { fields.append(("field", .text(field))) }
        if error.underlyingError != nil {
            let root = error.rootCause
            fields.append(("cause", .text("\(type(of: root).library).\(root.codeName)")))
        }
        return fields
    }

    /// A field's value: text or a number.
    public enum Field: Sendable, Hashable {
        /// A string.
        case text(String)
        /// A non-negative integer (a line, an offset).
        case number(UInt64)
    }
}
