import AssetPack
import Foundation

/// What a second installer does when another holds the folder.
public enum BusyFolderPolicy: Sendable, Equatable {
    /// Fail at once with ``DeliveryError/Code/busy``.
    case fail
    /// Wait until the other lets go (cancellable), checking every 50 ms.
    case wait
}

/// One installer per folder: an exclusive `flock` on `FOLDER/.lock`, held for one update. A
/// killed holder never leaves it held (the kernel drops a dead process's locks).
struct FolderLock {
    private let file: WritableFile

    /// Takes the lock of `folder`, as `policy` says when another holds it.
    static func take(_ folder: String, policy: BusyFolderPolicy) async throws -> FolderLock {
        let path = folder + "/.lock"
        let file: WritableFile
        do {
            file = try WritableFile(path: path, create: true)
        } catch {
            throw DeliveryError.fileSystem(error)
        }
        while true {
            let taken: Bool
            do {
                taken = try file.lock(wait: false)
            } catch {
                throw DeliveryError.fileSystem(error)
            }
            if taken { return FolderLock(file: file) }
            guard policy == .wait else {
                throw DeliveryError(.busy, "another installer is updating this folder; try again when it is done", at: .file(folder))
            }
            do {
                try await Task.sleep(nanoseconds: 50_000_000)
            } catch {
                throw DeliveryError(.cancelled, "while waiting for another installer", at: .file(folder))
            }
        }
    }

    /// Lets go of the lock (closing the file does it).
    func release() { _ = file }
}
