import Foundation

/// A value guarded by a pthread mutex (through `NSLock`), so ThreadSanitizer sees every
/// hand-over; `@unchecked Sendable` because the value is only touched inside `withLock`.
final class Protected<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) { self.value = value }

    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
