import AssetPack
import Foundation

/// Decoding content files, with errors that say where: the line of a syntax error, of the value
/// a field is missing from, or of an item.
enum ContentDecoding {
    /// Decodes the JSON `data` of `file` (zero-copy from a mapped pack).
    static func decode<T: Decodable>(_ type: T.Type, from data: PackData, file: String) throws(ContentError) -> T {
        do {
            return try JSONDecoder().decode(T.self, from: data.data)
        } catch {
            throw located(error, data: data, file: file)
        }
    }

    /// The file at `path` of `source`, decoded; ``ContentError/Code/notFound`` if it is missing.
    static func decode<T: Decodable>(_ type: T.Type, at path: String, from source: any ContentSource) throws(ContentError) -> T {
        guard let data = try source.data(atPath: path) else { throw ContentError(.notFound, at: .file(path)) }
        return try decode(type, from: data, file: path)
    }

    /// A decoding failure as a content error with a line: our own parser finds syntax errors
    /// (Foundation says only "not valid JSON"); a missing or mistyped field is placed on the line
    /// of the deepest value its coding path reaches.
    static func located(_ error: any Error, data: PackData, file: String) -> ContentError {
        let tree: JSONValue
        do {
            tree = try JSONValue.parse(data)
        } catch {
            return ContentError(.malformed, "not valid JSON: \(error.message) (column \(error.column))", at: .file(file, line: error.line))
        }
        var line = tree.line
        var found: String?
        if let decoding = error as? DecodingError {
            var node = tree
            for key in codingPath(of: decoding) {
                let next: JSONValue?
                switch node.kind {
                case .object: next = node[key.stringValue]
                case .array(let values): next = key.intValue.flatMap { $0 < values.count ? values[$0] : nil }
                default: next = nil
                }
                guard let next else { break }
                node = next
                line = node.line
            }
            if case .typeMismatch = decoding { found = node.typeName }
        }
        return ContentError(.malformed, describe(error) + (found.map { ", found \($0)" } ?? ""), at: .file(file, line: line))
    }

    private static func codingPath(of error: DecodingError) -> [any CodingKey] {
        switch error {
        case .keyNotFound(_, let context), .typeMismatch(_, let context), .valueNotFound(_, let context),
            .dataCorrupted(let context):
            context.codingPath
        @unknown default: []
        }
    }

    /// The line of the object whose `"id"` is `item` in the JSON `data`, if there is one.
    static func line(ofItem item: String, in tree: JSONValue) -> Int? {
        tree.first { $0["id"]?.string == item }?.line
    }
}

/// A decoding error in one line: what is wrong and where in the JSON.
func describe(_ error: any Error) -> String {
    guard let error = error as? DecodingError else { return "\(error)" }
    func at(_ context: DecodingError.Context) -> String {
        let path = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
        return path.isEmpty ? "" : " at \(path)"
    }
    switch error {
    case .keyNotFound(let key, let context): return "missing \"\(key.stringValue)\"" + at(context)
    case .typeMismatch(let type, let context): return "expected \(describe(type))" + at(context)
    case .valueNotFound(let type, let context): return "expected \(describe(type)), found null" + at(context)
    case .dataCorrupted(let context): return "not valid JSON" + at(context)
    @unknown default: return "\(error)"
    }
}

/// A type in words, for messages (not Swift's own spelling of it).
private func describe(_ type: Any.Type) -> String {
    switch type {
    case is String.Type: "a string"
    case is Bool.Type: "true or false"
    case is Int.Type, is Double.Type: "a number"
    case is any RangeReplaceableCollection.Type: "an array"
    default: "an object"
    }
}
