import Foundation
import StudyProgress

/// What a progress file knows of sync: its device, the hash of its progress, and when each
/// device it has heard from last sent something.
public struct SyncStatus: Sendable, Hashable, Codable {
    /// This file's device.
    public var device: String
    /// ``StudyProgress/ProgressStore/stateHash()``: equal on devices that merged the same events.
    public var stateHash: String
    /// Events in the log.
    public var events: Int
    /// The remote this file syncs with, if any.
    public var remote: String?
    /// When this device last finished a sync (ISO 8601, UTC).
    public var lastSync: String?
    /// Each device this file has objects of, this one included.
    public var devices: [Device]

    /// A device as the remote's objects show it.
    public struct Device: Sendable, Hashable, Codable {
        /// Its id.
        public var device: String
        /// When it last sent events (its clock when it sealed its newest object, ISO 8601): for this
        /// device, when it last finished a sync.
        public var lastSync: String?
        /// Objects of it this file wrote or merged.
        public var objects: Int
    }

    /// The status of `store`.
    public init(store: ProgressStore) throws(ProgressError) {
        device = store.device.description
        stateHash = try store.stateHash()
        events = try store.eventCount()
        let remote = try store.syncRemote()
        self.remote = remote?.remote
        lastSync = remote?.lastSync.map(Self.iso)
        var latest: [DeviceID: (Int64, Int)] = [:]
        for record in try store.syncObjects() {
            let known = latest[record.device] ?? (0, 0)
            latest[record.device] = (max(known.0, record.sealedAt), known.1 + 1)
        }
        if remote != nil, latest[store.device] == nil { latest[store.device] = (0, 0) }
        devices = latest.sorted { $0.key < $1.key }.map { device, value in
            let time = device == store.device ? remote?.lastSync : (value.0 > 0 ? value.0 : nil)
            return Device(device: device.description, lastSync: time.map(Self.iso), objects: value.1)
        }
    }

    static func iso(_ milliseconds: Int64) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.timeZone = TimeZone(secondsFromGMT: 0)
        return formatter.string(from: Date(timeIntervalSince1970: Double(milliseconds) / 1000))
    }
}
