/// The build settings a source folder keeps in its `.pack.json`: the options of a build, so
/// `packtool build FOLDER -o OUT.pack` and the build-tool plugin need none on the command line.
///
/// ```json
/// {"name": "driving-ru", "locale": "ru", "contentVersion": "2026.11",
///  "base": "../driving-base", "reference": "../driving-en"}
/// ```
///
/// Every key is optional; `base` and `reference` are paths relative to the folder. An unknown
/// key (with the known key it most resembles) or a value of the wrong type is an error naming
/// the file, the line and the key.
public struct PackBuildSettings: Sendable, Equatable {
    /// The file name, in the source folder.
    public static let fileName = ".pack.json"

    /// The pack's name in its index.
    public var name: String?
    /// The BCP 47 tag of a locale pack.
    public var locale: String?
    /// The content's version, recorded in the index.
    public var contentVersion: String?
    /// The alignment of every entry's data (a power of two, 1–32,768).
    public var alignment: Int?
    /// The base pack or source folder where pictures referenced by content may be, relative to
    /// the source folder.
    public var base: String?
    /// The development-locale pack or folder a translation must match, relative to the source
    /// folder.
    public var reference: String?

    /// Settings with the given values; `nil` leaves a setting to its default.
    public init(
        name: String? = nil, locale: String? = nil, contentVersion: String? = nil, alignment: Int? = nil,
        base: String? = nil, reference: String? = nil
    ) {
        self.name = name
        self.locale = locale
        self.contentVersion = contentVersion
        self.alignment = alignment
        self.base = base
        self.reference = reference
    }

    private static let keys = ["name", "locale", "contentVersion", "alignment", "base", "reference"]

    /// The settings in `folder`'s `.pack.json`; empty settings when the folder has none.
    ///
    /// - Throws: ``PackError/Code/invalidSettings`` naming the file and line for malformed JSON,
    ///   an unknown key or a wrong type; ``PackError/Code/notRegularFile`` if the name is taken
    ///   by a folder, FIFO or device (which is never waited on).
    public static func load(fromFolder folder: String) throws(PackError) -> PackBuildSettings {
        let path = (folder.hasSuffix("/") ? folder : folder + "/") + fileName
        let bytes: [UInt8]
        do {
            bytes = try readRegularFile(path, limit: 1 << 20)
        } catch where error.code == .fileNotFound {
            return PackBuildSettings()
        }
        return try PackBuildSettings(json: bytes, file: path)
    }

    /// Parses settings from the JSON `bytes` of `file` (named in errors).
    public init(json bytes: [UInt8], file: String) throws(PackError) {
        let document: JSONValue
        do {
            document = try JSONValue.parse(bytes)
        } catch {
            throw PackError(
                .invalidSettings, "not valid JSON: \(error.message) (column \(error.column))", at: .file(file, line: error.line))
        }
        guard case .object(let members) = document.kind else {
            throw PackError(.invalidSettings, "expected an object of settings, found \(document.typeName)", at: .file(file, line: 1))
        }
        self.init()
        for member in members {
            func string() throws(PackError) -> String {
                guard let text = member.value.string else {
                    throw PackError(
                        .invalidSettings, "\"\(member.key)\" must be a string, not \(member.value.typeName)", at: .file(file, line: member.value.line))
                }
                return text
            }
            switch member.key {
            case "name": name = try string()
            case "locale": locale = try string()
            case "contentVersion": contentVersion = try string()
            case "base": base = try string()
            case "reference": reference = try string()
            case "alignment":
                guard case .number(let text) = member.value.kind, let value = Int(text) else {
                    throw PackError(
                        .invalidSettings, "\"alignment\" must be a whole number, not \(member.value.typeName)",
                        at: .file(file, line: member.value.line))
                }
                alignment = value
            default:
                var detail = "unknown key \"\(member.key)\""
                if let near = Self.nearestKey(to: member.key) { detail += " (did you mean \"\(near)\"?)" }
                detail += "; the keys are " + Self.keys.joined(separator: ", ")
                throw PackError(.invalidSettings, detail, at: .file(file, line: member.value.line))
            }
        }
    }

    /// The known key an unknown one most likely meant: the same letters in another case, or
    /// within two edits.
    static func nearestKey(to key: String) -> String? {
        if let same = keys.first(where: { $0.lowercased() == key.lowercased() }) { return same }
        let candidates = keys.map { ($0, editDistance(Array($0.lowercased()), Array(key.lowercased()))) }
        guard let best = candidates.min(by: { $0.1 < $1.1 }), best.1 <= 2 else { return nil }
        return best.0
    }

    private static func editDistance(_ a: [Character], _ b: [Character]) -> Int {
        var previous = Array(0...b.count)
        for (i, x) in a.enumerated() {
            var current = [i + 1] + Array(repeating: 0, count: b.count)
            for (j, y) in b.enumerated() {
                current[j + 1] = min(previous[j + 1] + 1, current[j] + 1, previous[j] + (x == y ? 0 : 1))
            }
            previous = current
        }
        return previous[b.count]
    }
}
