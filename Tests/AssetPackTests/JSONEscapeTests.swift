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
