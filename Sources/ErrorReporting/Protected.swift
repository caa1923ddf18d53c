import Foundation

/// A value guarded by a pthread mutex (through `NSLock`), so ThreadSanitizer sees every
/// hand-over: the one lock the libraries share (the store's state, the scheduler registry,
/// delivery's counters). `@unchecked Sendable` because the value is only touched inside
/// `withLock`. (Synchronization's `Mutex` needs iOS 18 and macOS 15; the package supports older
/// systems.)
package final class Protected<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    /// A lock around `value`.
    package init(_ value: Value) { self.value = value }

    /// Runs `body` with the value, under the lock.
    package func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
