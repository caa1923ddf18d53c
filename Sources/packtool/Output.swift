import AssetPack
import CommandLineSupport
import ErrorReporting
import SystemPackage

/// Unbuffered writes to standard output and standard error (through swift-system, which
/// retries interrupted writes).
enum Output {
    static func write(_ bytes: UnsafeRawBufferPointer, to file: FileDescriptor = .standardOutput) throws {
        do {
            _ = try file.writeAll(bytes)
        } catch let error as Errno {
            throw PackError(.io, "cannot write to standard output: \(error.description)", underlying: error)
        }
    }

    /// Writes one line; control characters in it (from names and metadata in files) are
    /// escaped, so a line stays one line and carries no terminal escapes.
    static func line(_ text: String) throws {
        var text = text.escapingControlCharacters + "\n"
        try text.withUTF8 { try write(UnsafeRawBufferPointer($0)) }
    }

    /// Writes one line to standard error, escaped as ``line(_:)`` does.
    static func error(_ text: String) {
        var text = text.escapingControlCharacters + "\n"
        text.withUTF8 { _ = try? write(UnsafeRawBufferPointer($0), to: .standardError) }
    }
}

/// A JSON value as packtool prints it: one writer for every `--json` output, keys in the
/// order given, compact, one document per line.
indirect enum JSON {
    case string(String)
    case number(Int)
    case unsigned(UInt64)
    case double(Double)
    case bool(Bool)
    case null
    case array([JSON])
    case object([(String, JSON)])

    /// A string, or null.
    static func optional(_ text: String?) -> JSON { text.map(JSON.string) ?? .null }

    /// The value as JSON text.
    var text: String {
        switch self {
        case .string(let value): JSONEscape.quoted(value)
        case .number(let value): String(value)
        case .unsigned(let value): String(value)
        case .double(let value): value.isFinite ? String(value) : "null"
        case .bool(let value): value ? "true" : "false"
        case .null: "null"
        case .array(let values): "[" + values.map(\.text).joined(separator: ",") + "]"
        case .object(let members): "{" + members.map { JSONEscape.quoted($0.0) + ":" + $0.1.text }.joined(separator: ",") + "}"
        }
    }
}

extension Output {
    /// Writes `value` as one line of JSON.
    static func json(_ value: JSON) throws { try line(value.text) }
}

extension LibraryError {
    /// The error as JSON, for `--json` outputs that report a failure: the fields every library
    /// error has (``ErrorReport/fields(for:)``), the location fields that apply.
    var json: JSON {
        .object(ErrorReport.fields(for: self).map { field in
            switch field.value {
            case .text(let text): (field.key, .string(text))
            case .number(let number): (field.key, .unsigned(number))
            }
        })
    }
}

func pad(_ text: String, _ width: Int) -> String { rightAligned(text, width: width) }

func hex(_ value: UInt32) -> String {
    let digits = String(value, radix: 16)
    return String(repeating: "0", count: 8 - digits.count) + digits
}

extension String {
    func padding(_ width: Int) -> String { leftAligned(self, width: width) }
}
