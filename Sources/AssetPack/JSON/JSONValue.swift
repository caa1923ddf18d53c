/// A JSON document (RFC 8259) as a tree whose every value knows the line it starts on.
///
/// For the files people write by hand (build settings, decks, question banks): errors in them
/// name the line, as compilers do, and Xcode and SwiftPM show such errors beside the file. The
/// pack index has its own streaming parser (``IndexParser``); this one is for small files.
package struct JSONValue: Sendable, Equatable {
    /// What the value is.
    package enum Kind: Sendable, Equatable {
        case null
        case bool(Bool)
        /// A number, with its text as written (so integers are never rounded through `Double`).
        case number(String)
        case string(String)
        case array([JSONValue])
        /// Members in document order (duplicate keys are a syntax error).
        case object([Member])
    }

    /// One member of an object.
    package struct Member: Sendable, Equatable {
        package var key: String
        package var value: JSONValue
    }

    package var kind: Kind
    /// The 1-based line the value starts on.
    package var line: Int

    /// A syntax error: what and where.
    package struct SyntaxError: Error, Equatable {
        package var message: String
        package var line: Int
        package var column: Int
    }

    /// Parses a whole document.
    package static func parse<C: Collection<UInt8>>(_ bytes: C) throws(SyntaxError) -> JSONValue {
        var parser = Parser(Array(bytes))
        parser.skipWhitespace()
        let value = try parser.value(depth: 0)
        parser.skipWhitespace()
        guard parser.position == parser.bytes.count else { throw parser.fail("unexpected text after the JSON value") }
        return value
    }

    /// The member `key` of an object.
    package subscript(key: String) -> JSONValue? {
        guard case .object(let members) = kind else { return nil }
        return members.first { $0.key == key }?.value
    }

    /// The string, if the value is one.
    package var string: String? {
        if case .string(let text) = kind { return text }
        return nil
    }

    /// What kind of value this is, in words, for messages.
    package var typeName: String {
        switch kind {
        case .null: "null"
        case .bool: "a boolean"
        case .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }

    /// The first value in the tree (depth first, this one included) for which `matches` holds.
    package func first(where matches: (JSONValue) -> Bool) -> JSONValue? {
        if matches(self) { return self }
        switch kind {
        case .array(let values):
            for value in values { if let found = value.first(where: matches) { return found } }
        case .object(let members):
            for member in members { if let found = member.value.first(where: matches) { return found } }
        default: break
        }
        return nil
    }

    private struct Parser {
        let bytes: [UInt8]
        var position = 0
        var line = 1
        var lineStart = 0
        static let maxDepth = 200

        init(_ bytes: [UInt8]) { self.bytes = bytes }

        func fail(_ message: String) -> SyntaxError {
            SyntaxError(message: message, line: line, column: position - lineStart + 1)
        }

        mutating func skipWhitespace() {
            while position < bytes.count {
                switch bytes[position] {
                case 0x0A:
                    position += 1
                    line += 1
                    lineStart = position
                case 0x20, 0x09, 0x0D: position += 1
                default: return
                }
            }
        }

        mutating func value(depth: Int) throws(SyntaxError) -> JSONValue {
            guard depth < Self.maxDepth else { throw fail("values nested too deeply") }
            guard position < bytes.count else { throw fail("unexpected end of the file") }
            let startLine = line
            switch bytes[position] {
            case UInt8(ascii: "{"): return JSONValue(kind: .object(try members(depth: depth)), line: startLine)
            case UInt8(ascii: "["): return JSONValue(kind: .array(try elements(depth: depth)), line: startLine)
            case UInt8(ascii: "\""): return JSONValue(kind: .string(try string()), line: startLine)
            case UInt8(ascii: "t"): try literal("true"); return JSONValue(kind: .bool(true), line: startLine)
            case UInt8(ascii: "f"): try literal("false"); return JSONValue(kind: .bool(false), line: startLine)
            case UInt8(ascii: "n"): try literal("null"); return JSONValue(kind: .null, line: startLine)
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                return JSONValue(kind: .number(try number()), line: startLine)
            default:
                throw fail("unexpected character '\(Character(Unicode.Scalar(bytes[position])))'")
            }
        }

        mutating func members(depth: Int) throws(SyntaxError) -> [Member] {
            position += 1
            var members: [Member] = []
            var keys = Set<String>()
            skipWhitespace()
            if position < bytes.count, bytes[position] == UInt8(ascii: "}") {
                position += 1
                return members
            }
            while true {
                skipWhitespace()
                guard position < bytes.count, bytes[position] == UInt8(ascii: "\"") else {
                    throw fail("expected a key in quotes")
                }
                let key = try string()
                guard keys.insert(key).inserted else { throw fail("the key \"\(key)\" appears twice") }
                skipWhitespace()
                try expect(":")
                skipWhitespace()
                members.append(Member(key: key, value: try value(depth: depth + 1)))
                skipWhitespace()
                guard position < bytes.count else { throw fail("unexpected end of the file inside an object") }
                if bytes[position] == UInt8(ascii: "}") {
                    position += 1
                    return members
                }
                try expect(",")
            }
        }

        mutating func elements(depth: Int) throws(SyntaxError) -> [JSONValue] {
            position += 1
            var values: [JSONValue] = []
            skipWhitespace()
            if position < bytes.count, bytes[position] == UInt8(ascii: "]") {
                position += 1
                return values
            }
            while true {
                skipWhitespace()
                values.append(try value(depth: depth + 1))
                skipWhitespace()
                guard position < bytes.count else { throw fail("unexpected end of the file inside an array") }
                if bytes[position] == UInt8(ascii: "]") {
                    position += 1
                    return values
                }
                try expect(",")
            }
        }

        mutating func expect(_ character: Unicode.Scalar) throws(SyntaxError) {
            guard position < bytes.count, bytes[position] == UInt8(ascii: character) else {
                throw fail("expected '\(character)'")
            }
            position += 1
        }

        mutating func literal(_ word: String) throws(SyntaxError) {
            let expected = Array(word.utf8)
            guard bytes.count - position >= expected.count, bytes[position..<position + expected.count].elementsEqual(expected)
            else { throw fail("unexpected text (expected \(word))") }
            position += expected.count
        }

        mutating func number() throws(SyntaxError) -> String {
            let start = position
            if bytes[position] == UInt8(ascii: "-") { position += 1 }
            func digits() -> Int {
                let from = position
                while position < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[position]) {
                    position += 1
                }
                return position - from
            }
            let integerStart = position
            let count = digits()
            guard count > 0 else { throw fail("a number needs digits") }
            guard count == 1 || bytes[integerStart] != UInt8(ascii: "0") else { throw fail("a number has a leading zero") }
            if position < bytes.count, bytes[position] == UInt8(ascii: ".") {
                position += 1
                guard digits() > 0 else { throw fail("a number needs digits after '.'") }
            }
            if position < bytes.count, bytes[position] | 0x20 == UInt8(ascii: "e") {
                position += 1
                if position < bytes.count, bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-") {
                    position += 1
                }
                guard digits() > 0 else { throw fail("a number needs digits in its exponent") }
            }
            return String(decoding: bytes[start..<position], as: UTF8.self)
        }

        mutating func string() throws(SyntaxError) -> String {
            position += 1
            var out: [UInt8] = []
            while true {
                guard position < bytes.count else { throw fail("a string is not closed") }
                let byte = bytes[position]
                switch byte {
                case UInt8(ascii: "\""):
                    position += 1
                    guard let text = String(validating: out, as: UTF8.self) else { throw fail("a string is not valid UTF-8") }
                    return text
                case UInt8(ascii: "\\"):
                    position += 1
                    try escape(into: &out)
                case 0..<0x20:
                    throw fail(byte == 0x0A ? "a string is not closed on its line" : "a control character inside a string")
                default:
                    out.append(byte)
                    position += 1
                }
            }
        }

        mutating func escape(into out: inout [UInt8]) throws(SyntaxError) {
            let bytes = self.bytes
            do {
                try JSONEscape.decode(at: &position, count: bytes.count, into: &out) { bytes[$0] }
            } catch {
                switch error {
                case .unterminated: throw fail("a string is not closed")
                case .unknown(let letter): throw fail("an unknown escape '\\\(Character(Unicode.Scalar(letter)))'")
                case .badHexDigits: throw fail("a \\u escape needs four hex digits")
                case .loneSurrogate: throw fail("a lone surrogate in a \\u escape")
                }
            }
        }
    }
}
