import Foundation

/// Where a learner's devices leave their progress for each other: any store that lists, reads,
/// writes and deletes whole objects by name. Sync writes each name once and deletes only what a
/// verified snapshot covers, so a store needs no locking, no conditional writes and no
/// read-after-write consistency: an object missing from a listing is merged at a later sync.
///
/// Everything a remote returns is treated as hostile: sizes are checked, content is opened
/// only if the learner's key sealed it under that very name.
public protocol SyncRemote: Sendable {
    /// A name for the remote that stays the same across runs (a folder's path, an S3 URL): a
    /// progress file syncs with one remote, and keeps what it knows of it under this name.
    var identity: String { get }

    /// Every object whose name starts with `prefix`.
    func list(prefix: String) async throws(SyncError) -> [RemoteObject]

    /// The object `name`; ``SyncError/Code/tooLarge`` if it has more than `limit` bytes (the
    /// read stops there).
    func get(_ name: String, limit: Int) async throws(SyncError) -> [UInt8]

    /// Writes the object `name` (a retry writes the same bytes under the same name).
    func put(_ name: String, _ bytes: [UInt8]) async throws(SyncError)

    /// Deletes the object `name` (no error if it is gone).
    func delete(_ name: String) async throws(SyncError)
}
