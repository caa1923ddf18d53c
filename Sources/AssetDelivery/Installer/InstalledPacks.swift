import AssetPack
import Foundation
import PackTrust

/// The packs installed in a folder and the SHA-256 of each file's bytes: "unchanged" means the
/// file's real bytes are the catalog's, never what its index claims. Hashing a pack costs a
/// read of it, so each hash is remembered in `FOLDER/.verified` with the file's identity
/// (device, inode, size, modification time); a file replaced or written since has another
/// identity and is hashed again.
struct InstalledPacks {
    let folder: String
    private var known: [String: (identity: FileIdentity, sha256: EntryHash)] = [:]

    var cachePath: String { folder + "/.verified" }

    /// The folder's packs and the hashes remembered for them (a damaged cache is forgotten).
    init(folder: String) {
        self.folder = folder
        guard let bytes = try? readRegularFile(cachePath, limit: 4 << 20), let text = String(validating: bytes, as: UTF8.self) else { return }
        for line in text.split(separator: "\n") {
            let fields = line.split(separator: " ", maxSplits: 6)
            guard fields.count == 7, let hash = EntryHash(hex: fields[0]), let device = UInt64(fields[1]), let inode = UInt64(fields[2]),
                let size = UInt64(fields[3]), let seconds = Int64(fields[4]), let nanoseconds = Int64(fields[5])
            else { continue }
            known[String(fields[6])] = (
                FileIdentity(device: device, inode: inode, size: size, modificationSeconds: seconds, modificationNanoseconds: nanoseconds), hash
            )
        }
    }

    /// The SHA-256 of the installed file `name`, or `nil` when there is none.
    mutating func sha256(of name: String) throws -> EntryHash? {
        let path = folder + "/" + name
        guard FileSystem.exists(path) else { return nil }
        let identity: FileIdentity
        do {
            identity = try FileIdentity(path: path)
        } catch {
            return nil
        }
        if let cached = known[name], cached.identity == identity { return cached.sha256 }
        do {
            let hash = try Pack.fileSHA256(path: path).hash
            // Remembered only if the file did not change while it was read.
            if (try? FileIdentity(path: path)) == identity { known[name] = (identity, hash) }
            return hash
        } catch {
            return nil
        }
    }

    /// Remembers that the file `name` now has `sha256` (it was just verified and renamed into place).
    mutating func installed(_ name: String, sha256: EntryHash) {
        guard let identity = try? FileIdentity(path: folder + "/" + name) else { return }
        known[name] = (identity, sha256)
    }

    /// Writes the remembered hashes (a failure only costs a hash next time).
    func save() {
        var text = ""
        for (name, value) in known.sorted(by: { $0.key < $1.key }) where FileSystem.exists(folder + "/" + name) {
            let identity = value.identity
            text += "\(value.sha256.hex) \(identity.device) \(identity.inode) \(identity.size) \(identity.modificationSeconds) \(identity.modificationNanoseconds) \(name)\n"
        }
        try? DurableFile.write(Array(text.utf8), to: cachePath)
    }

    /// Removes partial files and journals in `workFolder` that no pack of `keep` is built from
    /// (an update abandoned for a newer catalog leaves them).
    static func removeStalePartials(in workFolder: String, keep: [Catalog.Entry]) {
        let wanted = Set(keep.map(\.sha256.hex))
        for name in FileSystem.names(in: workFolder) {
            let stem = name.split(separator: ".").first.map(String.init) ?? name
            if !wanted.contains(stem) { FileSystem.remove(workFolder + "/" + name) }
        }
    }
}
