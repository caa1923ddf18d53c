/// The one reader of comma- and tab-separated text in the package, RFC 4180 style, over UTF-8
/// bytes: decks kept as spreadsheets (``Deck``) and review logs (the research tools) both read
/// their rows through it.
///
/// A record ends at a line feed; carriage returns outside quotes are dropped; a field may be
/// quoted (`"…"`, with `""` for a quote inside) and a quoted field may hold delimiters and line
/// breaks; a byte-order mark at the start is skipped; a line with nothing on it is no record.
/// Unquoted fields are slices of the input (no copy). Every record keeps the line it starts on.
package struct DelimitedRows {
    /// One record: its fields' bytes and the 1-based line it starts on.
    package struct Record {
        /// The fields, unquoted.
        package var fields: [ArraySlice<UInt8>]
        /// The line the record starts on.
        package var line: Int
    }

    /// Why text cannot be read as rows.
    package enum Problem: Error, Equatable {
        /// A quoted field opened on this line is never closed.
        case unclosedQuote(line: Int)
        /// Text follows a quoted field's closing quote on this line.
        case textAfterQuote(line: Int)
    }

    /// The records of `bytes`, separated by `delimiter` (an ASCII byte: `,` or a tab).
    package static func parse(_ bytes: [UInt8], delimiter: UInt8) throws(Problem) -> [Record] {
        let quote = UInt8(ascii: "\""), lineFeed = UInt8(ascii: "\n"), carriageReturn = UInt8(ascii: "\r")
        var records: [Record] = []
        var fields: [ArraySlice<UInt8>] = []
        var line = 1
        var recordLine = 1
        var index = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        func endRecord() {
            if !(fields.count == 1 && fields[0].isEmpty) { records.append(Record(fields: fields, line: recordLine)) }
            fields.removeAll(keepingCapacity: true)
        }
        while index <= bytes.count {
            if index < bytes.count, bytes[index] == quote {
                // A quoted field: its bytes, with "" as one quote, up to the closing quote.
                let opened = line
                var decoded: [UInt8] = []
                index += 1
                while true {
                    guard index < bytes.count else { throw .unclosedQuote(line: opened) }
                    let byte = bytes[index]
                    index += 1
                    if byte == quote {
                        guard index < bytes.count, bytes[index] == quote else { break }
                        index += 1
                    } else if byte == lineFeed {
                        line += 1
                    }
                    decoded.append(byte)
                }
                fields.append(decoded[...])
                while index < bytes.count, bytes[index] == carriageReturn { index += 1 }
                if index == bytes.count {
                    endRecord()
                    break
                }
                switch bytes[index] {
                case delimiter: index += 1
                case lineFeed:
                    index += 1
                    endRecord()
                    line += 1
                    recordLine = line
                default: throw .textAfterQuote(line: line)
                }
                continue
            }
            // An unquoted field: up to the delimiter or the end of the line (a quote inside it is
            // an ordinary byte); carriage returns are left out.
            let start = index
            var hasCarriageReturn = false
            while index < bytes.count, bytes[index] != delimiter, bytes[index] != lineFeed {
                if bytes[index] == carriageReturn { hasCarriageReturn = true }
                index += 1
            }
            fields.append(hasCarriageReturn ? ArraySlice(bytes[start..<index].filter { $0 != carriageReturn }) : bytes[start..<index])
            if index == bytes.count {
                endRecord()
                break
            }
            if bytes[index] == lineFeed {
                endRecord()
                line += 1
                recordLine = line
            }
            index += 1
            if index == bytes.count, bytes[index - 1] == lineFeed { break }
        }
        return records
    }
}
