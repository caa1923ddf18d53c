/// Reads tab- or comma-separated tables (decks kept as spreadsheets), RFC 4180 style: a header
/// row, then one record per row; a field may be quoted (`"…"`, with `""` for a quote inside),
/// and a quoted field may hold delimiters and line breaks. Every record keeps the line it
/// starts on, so errors name it.
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
        var rows: [Record] = []
        var fields: [String] = []
        var field = String.UnicodeScalarView()
        var line = 1
        var recordLine = 1
        var quoted = false
        var quoteLine = 0
        var atFieldStart = true
        var afterQuote = false
        var scalars = text.unicodeScalars.makeIterator()
        var pending: Unicode.Scalar? = nil
        func endRecord() {
            fields.append(String(field))
            field = String.UnicodeScalarView()
            if !(fields.count == 1 && fields[0].isEmpty) { rows.append(Record(fields: fields, line: recordLine)) }
            fields = []
        }
        while let scalar = pending ?? scalars.next() {
            pending = nil
            if quoted {
                if scalar == "\"" {
                    let next = scalars.next()
                    if next == "\"" {
                        field.append("\"")
                    } else {
                        quoted = false
                        afterQuote = true
                        pending = next
                    }
                } else {
                    if scalar == "\n" { line += 1 }
                    field.append(scalar)
                }
                continue
            }
            switch scalar {
            case "\"" where atFieldStart:
                quoted = true
                quoteLine = line
                atFieldStart = false
            case delimiter:
                fields.append(String(field))
                field = String.UnicodeScalarView()
                atFieldStart = true
                afterQuote = false
            case "\r":
                continue
            case "\n":
                endRecord()
                line += 1
                recordLine = line
                atFieldStart = true
                afterQuote = false
            default:
                if afterQuote {
                    throw ContentError(
                        .malformed, file: file, line: line, "text after a quoted field's closing quote")
                }
                field.append(scalar)
                atFieldStart = false
            }
        }
        if quoted {
            throw ContentError(.malformed, file: file, line: quoteLine, "a quoted field opened on this line is never closed")
        }
        if !field.isEmpty || !fields.isEmpty { endRecord() }
        guard let first = rows.first else { throw ContentError(.malformed, file: file, line: 1, "no header row") }
        header = first.fields
        records = Array(rows.dropFirst())
        for record in records where record.fields.count != header.count {
            throw ContentError(
                .malformed, file: file, line: record.line,
                "the row has \(record.fields.count) fields, the header \(header.count)")
        }
    }
}
