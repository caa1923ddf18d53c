import AssetPack
import Foundation

/// A temporary folder removed afterwards.
final class Scratch: @unchecked Sendable {
    let path: String

    init() throws {
        path = NSTemporaryDirectory() + "assetlibrary-test-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    /// Builds a pack of text files and returns its path.
    @discardableResult
    func pack(_ name: String, locale: String? = nil, files: [String: String]) throws -> String {
        var builder = PackBuilder(options: .init(name: name, locale: locale))
        for (path, text) in files { try builder.add(path: path, contents: Array(text.utf8)) }
        let destination = path + "/" + name + ".pack"
        try builder.write(to: destination)
        return destination
    }
}

extension PackData {
    var text: String { String(decoding: self, as: UTF8.self) }
}
