import Testing

@testable import StudyContent

/// The package's one reader of comma- and tab-separated text (decks and review logs).
@Suite("Delimited rows: RFC 4180 over bytes, one reader for decks and review logs")
struct DelimitedRowsTests {
    /// The records of `text` as strings, with their lines.
    static func rows(_ text: String, _ delimiter: Character = ",") throws(DelimitedRows.Problem) -> [[String]] {
        try DelimitedRows.parse(Array(text.utf8), delimiter: delimiter.asciiValue ?? 0).map { record in
            ["\(record.line)"] + record.fields.map { String(decoding: $0, as: UTF8.self) }
        }
    }

    @Test("fields, quotes, doubled quotes, delimiters and line breaks inside quotes, lines kept")
    func quoting() throws {
        #expect(try Self.rows("a,b\n1,\"x, \"\"y\"\"\"\n2,\"two\nlines\"\n3,z") == [
            ["1", "a", "b"], ["2", "1", "x, \"y\""], ["3", "2", "two\nlines"], ["5", "3", "z"],
        ])
        // A quote inside an unquoted field is an ordinary character.
        #expect(try Self.rows("a,b\n1,5\"\n") == [["1", "a", "b"], ["2", "1", "5\""]])
    }

    @Test("CR LF, a byte-order mark, blank lines, empty fields and tabs")
    func layout() throws {
        #expect(try Self.rows("\u{FEFF}a,b\r\n\r\n1,\r\n,\"q\"\r\n") == [["1", "a", "b"], ["3", "1", ""], ["4", "", "q"]])
        #expect(try Self.rows("id\tfront\n1\tone, two\n", "\t") == [["1", "id", "front"], ["2", "1", "one, two"]])
        #expect(try Self.rows("") == [])
        #expect(try Self.rows("a,") == [["1", "a", ""]])
    }

    @Test("an unclosed quote and text after a closing quote name their lines")
    func problems() {
        #expect(throws: DelimitedRows.Problem.unclosedQuote(line: 2)) { try Self.rows("a,b\n1,\"open\n2,x\n") }
        #expect(throws: DelimitedRows.Problem.textAfterQuote(line: 2)) { try Self.rows("a,b\n1,\"q\" x\n") }
    }
}
