/// A value for one format specifier of a catalog text: `%lld` takes a whole number, `%@` text.
package enum CatalogArgument: Sendable, Equatable {
    /// A whole number (`%lld`, `%ld`, `%d`); it also chooses plural variations.
    case integer(Int)
    /// Text (`%@`).
    case text(String)

    /// The value as the text shows it (digits without grouping, as the tool prints numbers).
    var printed: String {
        switch self {
        case .integer(let number): String(number)
        case .text(let text): text
        }
    }
}

/// A value that can fill a catalog text's format specifier.
package protocol CatalogArgumentConvertible {
    /// The value as a catalog argument.
    var catalogArgument: CatalogArgument { get }
}

extension Int: CatalogArgumentConvertible {
    /// `.integer(self)`.
    package var catalogArgument: CatalogArgument { .integer(self) }
}

extension String: CatalogArgumentConvertible {
    /// `.text(self)`.
    package var catalogArgument: CatalogArgument { .text(self) }
}

/// The format specifiers of catalog texts, as Foundation's `String(format:)` reads them for a
/// String Catalog: `%lld`, `%ld`, `%d`, `%u` (a whole number), `%@` (text), `%%`, positional forms
/// (`%2$lld`, `%1$@`) and substitutions (`%#@name@`, `%1$#@name@`). Anything else is kept as it
/// is written, never a trap.
package enum CatalogFormat {
    /// What a specifier takes.
    package enum Kind: String, Sendable, Hashable {
        /// A whole number.
        case integer
        /// Text.
        case text
    }

    /// A piece of a catalog text.
    package enum Token: Equatable, Sendable {
        /// Text as it is.
        case literal(String)
        /// `%%`.
        case percent
        /// A specifier: its 1-based position if written (`%2$lld`), what it takes, and its
        /// conversion as written (`lld`, `@`).
        case argument(position: Int?, kind: Kind, conversion: String)
        /// `%#@name@`, with its position if written.
        case substitution(position: Int?, name: String)
    }

    /// `template` as tokens.
    package static func tokens(_ template: String) -> [Token] {
        let scalars = Array(template.unicodeScalars)
        var tokens: [Token] = []
        var literal = String.UnicodeScalarView()
        func flush() {
            if !literal.isEmpty { tokens.append(.literal(String(literal))) }
            literal = String.UnicodeScalarView()
        }
        var at = 0
        while at < scalars.count {
            guard scalars[at] == "%" else {
                literal.append(scalars[at])
                at += 1
                continue
            }
            if let (token, end) = specifier(scalars, from: at) {
                flush()
                tokens.append(token)
                at = end
            } else {
                literal.append(scalars[at])
                at += 1
            }
        }
        flush()
        return tokens
    }

    /// The specifier that starts with the `%` at `start`, and the index after it; `nil` when
    /// the text there is not one this format knows.
    private static func specifier(_ scalars: [Unicode.Scalar], from start: Int) -> (Token, Int)? {
        var at = start + 1
        guard at < scalars.count else { return nil }
        if scalars[at] == "%" { return (.percent, at + 1) }
        var position: Int?
        var digits = 0
        var value = 0
        while at + digits < scalars.count, digits < 4, ("0"..."9").contains(scalars[at + digits]) {
            value = value * 10 + Int(scalars[at + digits].value - 48)
            digits += 1
        }
        if digits > 0 {
            guard at + digits < scalars.count, scalars[at + digits] == "$", value > 0 else { return nil }
            position = value
            at += digits + 1
        }
        guard at < scalars.count else { return nil }
        if scalars[at] == "#" {
            guard at + 1 < scalars.count, scalars[at + 1] == "@" else { return nil }
            var name = String.UnicodeScalarView()
            var end = at + 2
            while end < scalars.count, scalars[end] != "@" {
                name.append(scalars[end])
                end += 1
            }
            guard end < scalars.count, !name.isEmpty else { return nil }
            return (.substitution(position: position, name: String(name)), end + 1)
        }
        var conversion = String.UnicodeScalarView()
        while at < scalars.count, "hlqLzjt".unicodeScalars.contains(scalars[at]) {
            conversion.append(scalars[at])
            at += 1
        }
        guard at < scalars.count else { return nil }
        let kind: Kind
        switch scalars[at] {
        case "d", "i", "u": kind = .integer
        case "@": kind = .text
        default: return nil
        }
        conversion.append(scalars[at])
        return (.argument(position: position, kind: kind, conversion: String(conversion)), at + 1)
    }

    /// `template` with its specifiers filled from `arguments`: a positional one takes the
    /// argument at its position, the others the next in turn; a specifier without its argument
    /// is printed as written.
    package static func format(_ template: String, _ arguments: [CatalogArgument]) -> String {
        var out = ""
        var next = 0
        for token in tokens(template) {
            switch token {
            case .literal(let text): out += text
            case .percent: out += "%"
            case .argument(let position, _, let conversion):
                let index = position.map { $0 - 1 } ?? next
                if position == nil { next += 1 }
                if arguments.indices.contains(index) {
                    out += arguments[index].printed
                } else {
                    out += "%" + (position.map { "\($0)$" } ?? "") + conversion
                }
            case .substitution(let position, let name):
                out += "%" + (position.map { "\($0)$" } ?? "") + "#@" + name + "@"
            }
        }
        return out
    }

    /// The arguments `template` refers to: 1-based position → what it takes (each specifier
    /// without a position takes the next in turn).
    package static func references(_ template: String) -> [Int: Kind] {
        var references: [Int: Kind] = [:]
        var next = 1
        for token in tokens(template) {
            switch token {
            case .argument(let position, let kind, _):
                references[position ?? next] = kind
                if position == nil { next += 1 }
            case .substitution(let position, _):
                if position == nil { next += 1 }
            case .literal, .percent: break
            }
        }
        return references
    }
}
