import AssetPack
import Foundation

/// JSON as roots, catalogs and trust state are read: strict RFC 8259 (duplicate keys are an
/// error). They are written with AssetPack's `JSONEscape`, one escaping rule for the package.
enum JSONText {
    static func parse(_ bytes: [UInt8], code: TrustError.Code) throws(TrustError) -> JSONValue {
        do {
            return try JSONValue.parse(bytes)
        } catch {
            throw TrustError(code, "line \(error.line), column \(error.column): \(error.message)")
        }
    }
}

/// Typed fields of a parsed document, each error naming the field.
struct FieldReader {
    let code: TrustError.Code

    func fail(_ field: String, _ detail: String) -> TrustError { TrustError(code, detail, at: .field(field)) }

    func object(_ value: JSONValue?, _ field: String) throws(TrustError) -> JSONValue {
        guard let value else { throw fail(field, "missing") }
        guard case .object = value.kind else { throw fail(field, "expected an object, found \(value.typeName)") }
        return value
    }

    func array(_ value: JSONValue?, _ field: String, max: Int) throws(TrustError) -> [JSONValue] {
        guard let value else { throw fail(field, "missing") }
        guard case .array(let items) = value.kind else { throw fail(field, "expected an array, found \(value.typeName)") }
        guard items.count <= max else { throw fail(field, "\(items.count) items, more than the \(max) allowed") }
        return items
    }

    func string(_ value: JSONValue?, _ field: String, maxBytes: Int = 4096) throws(TrustError) -> String {
        guard let value else { throw fail(field, "missing") }
        guard case .string(let text) = value.kind else { throw fail(field, "expected a string, found \(value.typeName)") }
        guard text.utf8.count <= maxBytes else { throw fail(field, "longer than \(maxBytes) bytes") }
        return text
    }

    func optionalString(_ value: JSONValue?, _ field: String) throws(TrustError) -> String? {
        guard let value, value.kind != .null else { return nil }
        return try string(value, field)
    }

    /// A whole number from 0 to `max` (numbers are kept as text, so a huge one is refused, never rounded).
    func integer(_ value: JSONValue?, _ field: String, max: Int) throws(TrustError) -> Int {
        guard let value else { throw fail(field, "missing") }
        guard case .number(let text) = value.kind else { throw fail(field, "expected a number, found \(value.typeName)") }
        guard text.count <= 19, let number = Int(text), number >= 0, number <= max else {
            throw fail(field, "\(text.prefix(40)) is not a whole number from 0 to \(max)")
        }
        return number
    }

    func time(_ value: JSONValue?, _ field: String) throws(TrustError) -> Date {
        let text = try string(value, field, maxBytes: 64)
        guard let date = Timestamp.parse(text) else { throw fail(field, "\(text) is not a time like 2026-12-27T04:00:00Z") }
        return date
    }
}
