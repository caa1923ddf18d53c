import Foundation
import TestSupport
import Testing

@testable import AssetPack

/// JSON's string escapes, decoded in one place for the index parser and the settings reader.
@Suite("JSON escapes: one decoder for both JSON readers")
struct JSONEscapeTests {
    /// Decodes the escape after the backslash at the start of `text`.
    static func decode(_ text: String) -> Result<[UInt8], JSONEscape.Problem> {
        let bytes = Array(text.utf8)
        var position = 0
        var out: [UInt8] = []
        do {
            try JSONEscape.decode(at: &position, count: bytes.count, into: &out) { bytes[$0] }
            return .success(out)
        } catch {
            return .failure(error)
        }
    }

    @Test("simple escapes, \\u escapes and surrogate pairs decode to UTF-8")
    func decodes() {
        #expect(Self.decode("n") == .success([0x0A]))
        #expect(Self.decode("/") == .success([0x2F]))
        #expect(Self.decode("u00e9") == .success(Array("é".utf8)))
        #expect(Self.decode("uD83D\\uDE97") == .success(Array("🚗".utf8)))
    }

    @Test("what cannot be decoded says why")
    func problems() {
        #expect(Self.decode("") == .failure(.unterminated))
        #expect(Self.decode("x") == .failure(.unknown(UInt8(ascii: "x"))))
        #expect(Self.decode("u12") == .failure(.badHexDigits))
        #expect(Self.decode("u12G4") == .failure(.badHexDigits))
        #expect(Self.decode("uD83D") == .failure(.loneSurrogate))
        #expect(Self.decode("uD83D\\u0041") == .failure(.loneSurrogate))
        #expect(Self.decode("uDE97") == .failure(.loneSurrogate))
    }

    @Test("the settings reader words each problem in its own message, with the line")
    func settingsMessages() {
        for (text, message) in [
            (#"{"a": "\q"}"#, "an unknown escape '\\q'"), (#"{"a": "\u12"}"#, "a \\u escape needs four hex digits"),
            (#"{"a": "\uD83D"}"#, "a lone surrogate in a \\u escape"),
        ] {
            #expect(throws: JSONValue.SyntaxError.self) { try JSONValue.parse(Array(text.utf8)) }
            do {
                _ = try JSONValue.parse(Array(text.utf8))
            } catch {
                #expect(error.message == message)
            }
        }
        #expect((try? JSONValue.parse(Array(#"{"a": "\u00e9\n"}"#.utf8)))?["a"]?.string == "é\n")
    }
}

/// The one JSON string writer of the package, held to Python's `json.dumps(text,
/// ensure_ascii=False)` on every class of code point.
@Suite("JSON strings: one writer, one escaping rule, Python's")
struct JSONStringWriterTests {
    /// One string per class: every C0 control, DEL and the C1 controls, quote, backslash and
    /// slash, ASCII letters, Latin-1, the BMP (Cyrillic, Gurmukhi with its marks, Han), U+2028
    /// and U+2029, U+FEFF and the private use area, a combining sequence, astral scalars (emoji,
    /// a ZWJ sequence, a supplementary Han character), and the last scalar.
    static let samples: [String] = {
        var samples = (0..<0x20).map { String(UnicodeScalar(UInt8($0))) }
        samples += ["\u{7F}", "\u{80}", "\u{85}", "\u{9F}", "\"", "\\", "/", "a\"b\\c/d", "plain ASCII", "café", "Привет", "ਪੰਜਾਬੀ", "汉字",
            "\u{2028}", "\u{2029}", "\u{FEFF}", "\u{E000}", "e\u{301}", "🚗", "👩‍👩‍👧", "\u{20000}", "\u{10FFFF}", "",
            "tab\tnew\nline\rform\u{0C}back\u{08}end"]
        samples.append(samples.joined())
        return samples
    }()

    @Test("the writer escapes what Python's json escapes, and only that", .tags(.oracle), .fullTierOnly)
    func matchesPython() throws {
        let script = """
            import json, sys
            for line in sys.stdin.buffer.read().decode('utf-8').split('\\u0000\\u0001SEP\\u0001\\u0000'):
                sys.stdout.buffer.write(json.dumps(line, ensure_ascii=False).encode('utf-8') + b'\\n')
            """
        let separator = "\u{0}\u{1}SEP\u{1}\u{0}"
        let input = Self.samples.joined(separator: separator)
        let python = try run("python3", ["-c", script], input: Data(input.utf8))
        #expect(python.status == 0, "\(python.stderr)")
        let lines = python.output.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
        #expect(lines.count == Self.samples.count)
        for (sample, expected) in zip(Self.samples, lines) {
            #expect(JSONEscape.quoted(sample) == expected, "\(sample.unicodeScalars.map { String($0.value, radix: 16) })")
        }
    }

    @Test("every string the writer makes reads back as itself through the package's JSON reader")
    func roundTrips() throws {
        for sample in Self.samples {
            let parsed = try JSONValue.parse(Array(("{\"k\":" + JSONEscape.quoted(sample) + "}").utf8))
            var text: String?
            if let value = parsed["k"], case .string(let string) = value.kind { text = string }
            #expect(text == sample, "\(sample.unicodeScalars.map(\.value))")
        }
    }
}
