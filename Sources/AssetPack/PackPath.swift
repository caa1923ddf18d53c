import Foundation

/// The rules for entry names: what the builder accepts and what `verify` and `extract` call safe.
///
/// A safe name is relative, `/`-separated, valid UTF-8, with no empty, `.` or `..` component,
/// no leading `/`, no `\`, no drive prefix (`C:`), no NUL or control characters, components of at
/// most 255 bytes and at most 1,024 bytes in all (the limits of Apple's file systems).
public enum PackPath {
    /// The longest entry name accepted, in UTF-8 bytes.
    public static let maxLength = 1024
    /// The longest name component accepted, in UTF-8 bytes.
    public static let maxComponentLength = 255
    /// The index's entry name; reserved for the builder.
    public static let indexPath = ".pack/index.json"

    /// Why `name` is unsafe, or `nil` if it is safe.
    ///
    /// - Parameters:
    ///   - name: the name's bytes, as stored.
    ///   - allowDirectory: accept one trailing `/` (a directory entry in another zip).
    public static func problem<C: Collection<UInt8>>(with name: C, allowDirectory: Bool = false) -> String? {
        if !allowDirectory, isPlainSafe(name) { return nil }
        var bytes = Array(name)
        if allowDirectory, bytes.count > 1, bytes.last == UInt8(ascii: "/") { bytes.removeLast() }
        if bytes.isEmpty { return "the name is empty" }
        if bytes.count > maxLength { return "the name is \(bytes.count) bytes long (at most \(maxLength))" }
        guard String(validating: bytes, as: UTF8.self) != nil else { return "the name is not valid UTF-8" }
        if let control = bytes.first(where: { $0 < 0x20 || $0 == 0x7F }) {
            return control == 0 ? "the name contains a NUL byte" : "the name contains a control character"
        }
        if bytes.contains(UInt8(ascii: "\\")) { return "the name contains a backslash" }
        if bytes.first == UInt8(ascii: "/") { return "the name is an absolute path" }
        if bytes.count >= 2, bytes[1] == UInt8(ascii: ":"),
            (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(bytes[0] & 0xDF)
        {
            return "the name starts with a drive prefix"
        }
        for component in bytes.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false) {
            if component.isEmpty { return "the name has an empty component" }
            if component.elementsEqual([UInt8(ascii: ".")]) { return "the name has a '.' component" }
            if component.elementsEqual([UInt8(ascii: "."), UInt8(ascii: ".")]) {
                return "the name has a '..' component"
            }
            if component.count > maxComponentLength {
                return "a component is \(component.count) bytes long (at most \(maxComponentLength))"
            }
        }
        return nil
    }

    /// Whether `name` is safe by the quick test every builder name meets in practice: printable
    /// ASCII with no backslash, no empty, `.` or `..` component, no leading `/` or drive prefix,
    /// within the length limits. One pass, no allocation; anything else takes the full check.
    private static func isPlainSafe<C: Collection<UInt8>>(_ name: C) -> Bool {
        var total = 0
        var component = 0
        var dots = 0
        var previous: UInt8 = 0
        for byte in name {
            guard byte >= 0x20, byte < 0x7F, byte != UInt8(ascii: "\\") else { return false }
            total += 1
            if byte == UInt8(ascii: "/") {
                guard component > 0, dots != component || dots > 2 else { return false }
                component = 0
                dots = 0
            } else {
                if byte == UInt8(ascii: ":"), total == 2, (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(previous & 0xDF) {
                    return false
                }
                component += 1
                if byte == UInt8(ascii: ".") { dots += 1 }
                guard component <= maxComponentLength else { return false }
            }
            previous = byte
        }
        return total > 0 && total <= maxLength && component > 0 && (dots != component || dots > 2)
    }

    /// The NFC form of a safe name, or an ``PackError/Code/unsafeName`` error.
    public static func normalized(_ name: String) throws(PackError) -> String {
        let nfc = name.utf8.allSatisfy({ $0 < 0x80 }) ? name : name.precomposedStringWithCanonicalMapping
        if let problem = problem(with: nfc.utf8) { throw PackError(.unsafeName, problem, at: .pack(entry: name)) }
        return nfc
    }

    /// The key under which two names collide on a case-insensitive, normalization-insensitive
    /// file system (APFS, HFS+): NFC, then lower case.
    public static func collisionKey(_ name: String) -> String {
        if name.utf8.allSatisfy({ $0 < 0x80 }) {
            return String(decoding: name.utf8.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }, as: UTF8.self)
        }
        return name.precomposedStringWithCanonicalMapping.lowercased().precomposedStringWithCanonicalMapping
    }
}
