/// A tab- or comma-separated table of text (a deck kept as a spreadsheet): a header row, then
/// one record per row, each as wide as the header; read by ``DelimitedRows`` (RFC 4180 style).
/// Every record keeps the line it starts on, so errors name it.
struct DelimitedText {
    /// One record: its fields and the 1-based line it starts on.
    struct Record {
        var fields: [String]
        var line: Int
    }

    let header: [String]
    let records: [Record]

    /// Parses `text`; blank lines are skipped.
    ///
    /// - Throws: ``ContentError/Code/malformed`` naming the line of a record with more or fewer
    ///   fields than the header, or of a quoted field that is never closed.
    init(_ text: String, delimiter: Unicode.Scalar, file: String) throws(ContentError) {
        let rows: [DelimitedRows.Record]
        do {
            rows = try DelimitedRows.parse(Array(text.utf8), delimiter: UInt8(truncatingIfNeeded: delimiter.value))
        } catch {
            switch error {
            case .unclosedQuote(let line):
                throw ContentError(.malformed, "a quoted field opened on this line is never closed", at: .file(file, line: line))
            case .textAfterQuote(let line):
                throw ContentError(.malformed, "text after a quoted field's closing quote", at: .file(file, line: line))
            }
        }
        guard let first = rows.first else { throw ContentError(.malformed, "no header row", at: .file(file, line: 1)) }
        header = first.fields.map { String(decoding: $0, as: UTF8.self) }
        records = rows.dropFirst().map { Record(fields: $0.fields.map { String(decoding: $0, as: UTF8.self) }, line: $0.line) }
        for record in records where record.fields.count != header.count {
            throw ContentError(
                .malformed, "the row has \(record.fields.count) fields, the header \(header.count)", at: .file(file, line: record.line))
        }
    }
}
