import AssetPack
import Foundation
import PackTrust

/// The packs installed in a folder and the SHA-256 of each file's bytes: "unchanged" means the
/// file's real bytes are the catalog's, never what its index claims. Hashing a pack costs a
/// read of it, so each hash is remembered in `FOLDER/.verified` with the file's identity
/// (device, inode, size, modification time) and whether it was checked against a signed
/// catalog at install; a file replaced or written since has another identity and is hashed
/// again.
struct InstalledPacks {
    let folder: String
    /// Each file's identity when it was hashed, its SHA-256, and whether that hash was checked
    /// against a signed catalog when the file was installed (a trusted file).
    private var known: [String: (identity: FileIdentity, sha256: EntryHash, verified: Bool)] = [:]

    var cachePath: String { folder + "/.verified" }

    /// The folder's packs and the hashes remembered for them (a damaged cache is forgotten).
    init(folder: String) {
        self.folder = folder
        guard let bytes = try? readRegularFile(cachePath, limit: 4 << 20), let text = String(validating: bytes, as: UTF8.self) else { return }
        for line in text.split(separator: "\n") {
            let fields = line.split(separator: " ", maxSplits: 7)
            guard fields.count == 8, let hash = EntryHash(hex: fields[0]), let device = UInt64(fields[1]), let inode = UInt64(fields[2]),
                let size = UInt64(fields[3]), let seconds = Int64(fields[4]), let nanoseconds = Int64(fields[5]), fields[6] == "v" || fields[6] == "h"
            else { continue }
            known[String(fields[7])] = (
                FileIdentity(device: device, inode: inode, size: size, modificationSeconds: seconds, modificationNanoseconds: nanoseconds), hash,
                fields[6] == "v"
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
            if (try? FileIdentity(path: path)) == identity { known[name] = (identity, hash, false) }
            return hash
        } catch {
            return nil
        }
    }

    /// Remembers that the file `name` now has `sha256` (it was just verified and renamed into place).
    mutating func installed(_ name: String, sha256: EntryHash) {
        guard let identity = try? FileIdentity(path: folder + "/" + name) else { return }
        known[name] = (identity, sha256, true)
    }

    /// Whether the installed file `name` is the one verified against a signed catalog when it
    /// was installed, unchanged since (by its identity): its entries' listed SHA-256s can be
    /// trusted without hashing them again.
    func isTrusted(_ name: String) -> Bool {
        guard let cached = known[name], cached.verified, let identity = try? FileIdentity(path: folder + "/" + name) else { return false }
        return cached.identity == identity
    }

    /// Writes the remembered hashes (a failure only costs a hash next time).
    func save() {
        var text = ""
        for (name, value) in known.sorted(by: { $0.key < $1.key }) where FileSystem.exists(folder + "/" + name) {
            let identity = value.identity
            text += "\(value.sha256.hex) \(identity.device) \(identity.inode) \(identity.size) \(identity.modificationSeconds) "
            text += "\(identity.modificationNanoseconds) \(value.verified ? "v" : "h") \(name)\n"
        }
        try? DurableFile.write(Array(text.utf8), to: cachePath)
    }

    /// Removes partial files and journals in `workFolder` that no pack of `keep` is built from
    /// (an update abandoned for a newer catalog leaves them), and anything there that is not a
    /// regular file (a symbolic link planted at a partial file's name goes, unfollowed, instead
    /// of failing every update). A work folder that is itself a link is never listed: its
    /// files are someone else's.
    static func removeStalePartials(in workFolder: String, keep: [Catalog.Entry]) {
        let wanted = Set(keep.map(\.sha256.hex))
        FileSystem.removeEntries(in: workFolder) { name, isRegularFile in
            let stem = name.split(separator: ".").first.map(String.init) ?? name
            return !isRegularFile || !wanted.contains(stem)
        }
    }
}
