/// A library error built from exactly four stored parts: a ``code``, a ``LibraryError/detail``,
/// a ``LibraryError/location`` and the error ``underlying`` it, kept as a typed value.
///
/// Every library error type is built the one way this protocol requires,
/// `init(_:_:at:underlying:)`, and gets the rest from it: ``LibraryError/codeName`` (the code's
/// raw value), ``LibraryError/underlyingError`` (from the typed ``underlying``) and a one-line
/// ``description``:
///
/// ```swift
/// throw PackError(.crcMismatch, "stored 1, computed 2", at: .pack(path, entry: name, offset: 48))
/// throw StoreError(.pack, at: .item(asset), underlying: error)
/// ```
public protocol CodedError: LibraryError {
    /// What can go wrong: a stable code from the vocabulary, with an English summary.
    associatedtype Code: ErrorCode
    /// What can lie underneath: another library's error, the system's `Errno`, an enum of a few
    /// such, or `Never`.
    associatedtype Underlying: ErrorCause

    /// What went wrong.
    var code: Code { get }
    /// The error underneath, when this one wraps another; `nil` when this error is where the
    /// problem is.
    var underlying: Underlying? { get }

    /// An error with its code, what was found, where, and the error underneath.
    ///
    /// Each conforming type declares it with the defaults `detail: String = ""`,
    /// `at location: ErrorLocation = ErrorLocation()` and `underlying: Underlying? = nil`.
    init(_ code: Code, _ detail: String, at location: ErrorLocation, underlying: Underlying?)
}

/// A code of a library error: a case whose raw value is its name in the error vocabulary.
public protocol ErrorCode: RawRepresentable, CaseIterable, Hashable, Sendable where RawValue == String {
    /// The code as a message shows it: a few English words, or the code's own name.
    var summary: String { get }
}

/// What can lie underneath a library error: another library error, a system error, or an enum
/// of a few such.
public protocol ErrorCause: Sendable {
    /// The cause as a library error, for ``LibraryError/underlyingError``; `nil` for an error of
    /// the system (an `Errno` is kept as a value, and its words are in the detail).
    var libraryError: (any LibraryError)? { get }
}

extension ErrorCode {
    /// The code's own name (`gradeOutOfRange`), for a vocabulary without English summaries.
    public var summary: String { rawValue }
}

extension Never: ErrorCause {
    /// Never called: an error with nothing underneath has `Never` as its ``CodedError/Underlying``.
    public var libraryError: (any LibraryError)? { nil }
}

extension CodedError {
    /// The code's raw value (`crcMismatch`).
    public var codeName: String { code.rawValue }

    /// The library error ``underlying`` is, if it is one.
    public var underlyingError: (any LibraryError)? { underlying?.libraryError }

    /// One line that says where and what: the location (`FILE:LINE`, `entry "NAME"`, the item,
    /// the field), the code's summary and the detail, ` (at offset N)`, then the line of the
    /// error underneath; control characters escaped. A place is said once: when the error
    /// underneath has the same location, only its line names it; and an error that adds
    /// nothing to it (no detail, the same place) is described by that error's line alone.
    public var description: String {
        let underlying = underlyingError
        let samePlace = underlying?.location == location
        if let underlying, samePlace, detail.isEmpty { return underlying.description }
        let place = samePlace ? ErrorLocation() : location
        var parts = place.messageParts
        parts.append(detail.isEmpty ? code.summary : "\(code.summary): \(detail.escapingControlCharacters)")
        var line = parts.joined(separator: ": ")
        if let offset = place.offset { line += " (at offset \(offset))" }
        if let underlying { line += ": " + underlying.description }
        return line
    }

    /// The same error, placed in `file` unless its location already names a file (the one it
    /// names is the more precise).
    public func at(file: String) -> Self {
        var location = location
        location.file = location.file ?? file
        return Self(code, detail, at: location, underlying: underlying)
    }
}
