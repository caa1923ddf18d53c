extension String {
    /// The text with control characters escaped, so it prints as one line and carries no
    /// terminal escape sequences: `\n`, `\r` and `\t` as such, other C0 and C1 controls, DEL
    /// and the Unicode direction overrides (which can reorder what a terminal shows) as `\u{…}`.
    /// Names and metadata come from files: every message and listing line goes through this.
    package var escapingControlCharacters: String {
        guard unicodeScalars.contains(where: Self.isControl) else { return self }
        var out = ""
        out.reserveCapacity(utf8.count + 8)
        for scalar in unicodeScalars {
            switch scalar {
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where Self.isControl(scalar):
                out += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// Whether `scalar` is escaped for display: C0 and C1 controls, DEL, and the Unicode
    /// direction overrides and isolates.
    package static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        let value = scalar.value
        return value < 0x20 || (0x7F...0x9F).contains(value) || (0x202A...0x202E).contains(value)
            || (0x2066...0x2069).contains(value)
    }
}
