import SystemPackage

/// Identifies a file on disk: which file (device and inode) and which version of it (size and
/// modification time).
public struct FileIdentity: Hashable, Sendable {
    /// The device the file is on.
    public var device: UInt64
    /// The file's inode number on that device.
    public var inode: UInt64
    /// The file's size in bytes.
    public var size: UInt64
    /// The modification time's whole seconds since 1970.
    public var modificationSeconds: Int64
    /// The modification time's nanoseconds.
    public var modificationNanoseconds: Int64

    /// The identity in a file's status (`st_mtimespec` on Apple platforms, `st_mtim` elsewhere,
    /// which swift-system's `Stat.st_mtim` reads for us).
    init(_ status: Stat) {
        device = UInt64(truncatingIfNeeded: status.deviceID.rawValue)
        inode = UInt64(truncatingIfNeeded: status.inode.rawValue)
        size = UInt64(clamping: status.size)
        modificationSeconds = Int64(status.st_mtim.tv_sec)
        modificationNanoseconds = Int64(status.st_mtim.tv_nsec)
    }

    /// An identity from its parts (for packs held in memory, and tests).
    package init(device: UInt64, inode: UInt64, size: UInt64, modificationSeconds: Int64, modificationNanoseconds: Int64) {
        self.device = device
        self.inode = inode
        self.size = size
        self.modificationSeconds = modificationSeconds
        self.modificationNanoseconds = modificationNanoseconds
    }

    /// The identity of the file at `path` now (`stat`, following links).
    public init(path: String) throws(PackError) {
        do {
            self.init(try FilePath(path).stat())
        } catch {
            throw PackError.system(error, "cannot stat", at: .file(path))
        }
    }
}
