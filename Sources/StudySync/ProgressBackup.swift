import Foundation
import StudyProgress

/// Backup and transfer without a remote: the whole log in one file sealed with the learner's
/// key, and a restore that merges it (the same union as a sync: nothing already there is lost
/// or counted twice, and restoring twice changes nothing).
public enum ProgressBackup {
    /// The name a backup is sealed under.
    static let name = "backup"

    /// Writes every event of `store` to `path`, sealed with `key` (a temporary file renamed into
    /// place). Returns the events written.
    @discardableResult
    public static func write(_ store: ProgressStore, key: LearnerKey, to path: String) async throws(SyncError) -> Int {
        let events: [ProgressEvent]
        do throws(ProgressError) {
            events = try store.allEvents()
        } catch {
            throw SyncError(error)
        }
        let body = ObjectBody(
            learner: key.learner, device: store.device.rawValue, sequence: 0, sealedAt: Int64(Date().timeIntervalSince1970 * 1000), covered: [],
            events: events)
        let sealed = try SealedObject.seal(body.encoded(), kind: .backup, name: name, key: key)
        let url = URL(fileURLWithPath: path)
        let folder = FolderRemote(root: url.deletingLastPathComponent().path)
        try await folder.put(url.lastPathComponent, sealed)
        return events.count
    }

    /// Merges the backup at `path` into `store`. Returns the events that were new here.
    @discardableResult
    public static func restore(_ store: ProgressStore, key: LearnerKey, from path: String) async throws(SyncError) -> Int {
        let url = URL(fileURLWithPath: path)
        let folder = FolderRemote(root: url.deletingLastPathComponent().path)
        let bytes = try await folder.get(url.lastPathComponent, limit: ProgressSync.maximumSnapshotSize)
        let content: [UInt8]
        do {
            content = try SealedObject.open(bytes, kind: .backup, name: name, key: key)
        } catch {
            throw SyncError(.notAuthentic, "not a backup this learner key opens (another key, or the file was changed)", at: .file(path))
        }
        guard case .success(let body) = ObjectBody.decode(content) else {
            throw SyncError(.malformedObject, "the backup's events do not read", at: .file(path))
        }
        guard body.learner == key.learner else { throw SyncError(.notAuthentic, "the backup is another learner's", at: .file(path)) }
        do throws(ProgressError) {
            return try store.merge(body.events, sent: false).added
        } catch {
            throw SyncError(error)
        }
    }
}

extension ProgressStore {
    /// SHA-256 of the derived progress (items, session days, the learner's seed) in a canonical
    /// form, as 64 hexadecimal digits: two devices whose logs hold the same events show the same hash.
    public func stateHash() throws(ProgressError) -> String {
        SigV4.hexSHA256(try derivedState())
    }
}
