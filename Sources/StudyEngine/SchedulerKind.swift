/// A scheduler's name, as the command line takes it and card states store it.
///
/// Each scheduler declares its own (`extension SchedulerKind { static let sm2 = … }` in its
/// file) and registers it in ``SchedulerRegistry``. Only registered names decode or parse.
public struct SchedulerKind: RawRepresentable, Sendable, Hashable, Codable, CaseIterable, CustomStringConvertible {
    /// The name (`sm2`, `fsrs6`, `half-life`).
    public let rawValue: String

    /// The kind with this name, `nil` if no scheduler is registered under it.
    public init?(rawValue: String) {
        guard SchedulerRegistry.registration(for: rawValue) != nil else { return nil }
        self.rawValue = rawValue
    }

    /// Declares a scheduler's name (register it in ``SchedulerRegistry`` to use it).
    public init(declaring name: String) { rawValue = name }

    /// Every registered scheduler, in registration order.
    public static var allCases: [SchedulerKind] { SchedulerRegistry.all.map(\.kind) }

    /// The name.
    public var description: String { rawValue }

    /// Reads a registered name; any other is a decoding error.
    public init(from decoder: any Decoder) throws {
        let name = try decoder.singleValueContainer().decode(String.self)
        guard let kind = SchedulerKind(rawValue: name) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "no scheduler is named \(name)"))
        }
        self = kind
    }

    /// Writes the name.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}
