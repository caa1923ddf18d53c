import AssetLibrary
import AssetPack

/// Where content files are read from: a store (through its locale chain), a pack, or a source
/// folder before it is packed.
public protocol ContentSource: Sendable {
    /// The bytes of the file at `path` (zero-copy from a mapped pack), or `nil` if the source has
    /// no such file.
    ///
    /// - Throws: ``ContentError/Code/unreadable`` with the pack or store error as its cause when
    ///   the file exists but cannot be read; ``ContentError/Code/unsafeReference`` for a path that
    ///   would leave the content (a source folder never opens such a path).
    func data(atPath path: String) throws(ContentError) -> PackData?
    /// Whether the source has the file.
    func contains(_ path: String) -> Bool
    /// Paths of the files directly in `folder`.
    func files(inDirectory folder: String) -> [String]
    /// Paths of the sub-folders directly in `folder`.
    func subdirectories(inDirectory folder: String) -> [String]
}

/// The rules for paths content refers to (pictures, category files): the pack's own name rules
/// (relative, no `..`, no control characters, …), and no hidden component, since the builder
/// skips hidden files and such a file would never be in the pack.
public enum ContentPath {
    /// Why `path` cannot name a file of the pack, or `nil` if it can.
    public static func problem(with path: String) -> String? {
        if let problem = PackPath.problem(with: path.utf8) { return problem }
        if path.split(separator: "/").contains(where: { $0.hasPrefix(".") }) {
            return "it names a hidden file, which is never packed"
        }
        return nil
    }

    /// Throws ``ContentError/Code/unsafeReference`` naming `file` and `item` if `path` cannot
    /// name a file of the pack.
    static func check(_ path: String, file: String, item: String?) throws(ContentError) {
        if let problem = problem(with: path) {
            throw ContentError(.unsafeReference, "\"\(path)\": \(problem)", at: .file(file, item: item))
        }
    }
}

extension AssetView: ContentSource {
    public func data(atPath path: String) throws(ContentError) -> PackData? {
        guard let hit = lookup(path) else { return nil }
        do {
            return try hit.data()
        } catch {
            throw ContentError(.unreadable, at: .file(path), underlying: .store(error))
        }
    }

    public func contains(_ path: String) -> Bool { lookup(path) != nil }

    public func files(inDirectory folder: String) -> [String] {
        Array(Set(packs.flatMap { $0.files(inDirectory: folder) })).sorted()
    }

    public func subdirectories(inDirectory folder: String) -> [String] {
        Array(Set(packs.flatMap { $0.subdirectories(inDirectory: folder) })).sorted()
    }
}

extension Pack: ContentSource {
    public func data(atPath path: String) throws(ContentError) -> PackData? {
        guard let entry = entry(forPath: path) else { return nil }
        do {
            return try data(for: entry)
        } catch {
            throw ContentError(.unreadable, at: .file(path), underlying: .pack(error))
        }
    }

    public func files(inDirectory folder: String) -> [String] {
        contentsOfDirectory(atPath: folder).filter { !$0.isDirectory }.map(\.path)
    }

    public func subdirectories(inDirectory folder: String) -> [String] {
        contentsOfDirectory(atPath: folder).filter(\.isDirectory).map(\.path)
    }
}

/// A source folder on disk, as `packtool build` sees it before packing.
///
/// Only paths that can name a file of the pack are ever opened (never `..`, an absolute path
/// or a hidden file), and only regular files are read: a FIFO or device is refused without
/// waiting on it.
public struct FolderSource: ContentSource {
    /// The folder.
    public let root: String

    /// The source folder at `root`.
    public init(root: String) { self.root = root }

    private func full(_ path: String) -> String { path.isEmpty ? root : root + "/" + path }

    public func data(atPath path: String) throws(ContentError) -> PackData? {
        try ContentPath.check(path, file: path, item: nil)
        do {
            return PackData(copying: try readRegularFile(full(path)))
        } catch where error.code == .fileNotFound {
            return nil
        } catch {
            throw ContentError(.unreadable, at: .file(path), underlying: .pack(error))
        }
    }

    public func contains(_ path: String) -> Bool {
        ContentPath.problem(with: path) == nil && SourceFolder.kind(of: full(path)) == .file
    }

    public func files(inDirectory folder: String) -> [String] { children(of: folder, kind: .file) }

    public func subdirectories(inDirectory folder: String) -> [String] { children(of: folder, kind: .folder) }

    private func children(of folder: String, kind: SourceFolder.Kind) -> [String] {
        guard folder.isEmpty || ContentPath.problem(with: folder) == nil else { return [] }
        return SourceFolder.items(in: full(folder)).filter { $0.kind == kind }.map {
            folder.isEmpty ? $0.name : folder + "/" + $0.name
        }
    }
}

/// Several sources searched in order (a pack and its base pack).
public struct LayeredSource: ContentSource {
    /// The sources, the first searched first.
    public let layers: [any ContentSource]

    /// Sources searched in the given order.
    public init(_ layers: [any ContentSource]) { self.layers = layers }

    public func data(atPath path: String) throws(ContentError) -> PackData? {
        for layer in layers { if let found = try layer.data(atPath: path) { return found } }
        return nil
    }

    public func contains(_ path: String) -> Bool { layers.contains { $0.contains(path) } }

    public func files(inDirectory folder: String) -> [String] { Array(Set(layers.flatMap { $0.files(inDirectory: folder) })).sorted() }

    public func subdirectories(inDirectory folder: String) -> [String] {
        Array(Set(layers.flatMap { $0.subdirectories(inDirectory: folder) })).sorted()
    }
}
