import Foundation
import StudyEngine

// The compact coder: any Codable value as tagged binary, for the item rows' scheduler state
// (schema v3). JSON costs 10–15 µs a state on Linux, and a merge writes one per item it touches;
// this costs a few. Deterministic (keys in the order the type encodes them), exact (a Double
// keeps its bits), and safe to read from a damaged file: every read is bounds-checked, nesting is
// limited, a value of the wrong kind is a DecodingError, never a trap.
//
//   value   = 0 nil | 1 false | 2 true | 3 int (zigzag varint) | 4 uint (varint)
//           | 5 double (8 bytes, little-endian bits) | 6 string (length, UTF-8)
//           | 7 keyed (count, then key string and value each) | 8 unkeyed (count, then values)

/// A value the compact coder holds.
indirect enum CompactValue: Sendable, Hashable {
    case null
    case bool(Bool)
    case int(Int64)
    case uint(UInt64)
    case double(UInt64)
    case string(String)
    case keyed([(String, CompactValue)])
    case unkeyed([CompactValue])

    static func == (lhs: CompactValue, rhs: CompactValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): true
        case (.bool(let a), .bool(let b)): a == b
        case (.int(let a), .int(let b)): a == b
        case (.uint(let a), .uint(let b)): a == b
        case (.double(let a), .double(let b)): a == b
        case (.string(let a), .string(let b)): a == b
        case (.keyed(let a), .keyed(let b)): a.count == b.count && zip(a, b).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
        case (.unkeyed(let a), .unkeyed(let b)): a == b
        default: false
        }
    }

    func hash(into hasher: inout Hasher) { hasher.combine(Array(bytes)) }

    /// The value's bytes.
    var bytes: [UInt8] {
        var writer = ByteWriter()
        write(to: &writer)
        return writer.bytes
    }

    func write(to writer: inout ByteWriter) {
        switch self {
        case .null: writer.byte(0)
        case .bool(let value): writer.byte(value ? 2 : 1)
        case .int(let value):
            writer.byte(3)
            writer.signed(value)
        case .uint(let value):
            writer.byte(4)
            writer.varint(value)
        case .double(let bits):
            writer.byte(5)
            writer.fixed64(bits)
        case .string(let text):
            writer.byte(6)
            writer.string(text)
        case .keyed(let entries):
            writer.byte(7)
            writer.varint(UInt64(entries.count))
            for (key, value) in entries {
                writer.string(key)
                value.write(to: &writer)
            }
        case .unkeyed(let values):
            writer.byte(8)
            writer.varint(UInt64(values.count))
            for value in values { value.write(to: &writer) }
        }
    }

    /// The deepest nesting read (a damaged file cannot overflow the stack).
    static let maximumDepth = 32

    /// Reads one value; `nil` for bytes that are not one.
    static func read(_ reader: inout ByteReader, depth: Int = 0) -> CompactValue? {
        guard depth <= maximumDepth, let tag = reader.byte() else { return nil }
        switch tag {
        case 0: return .null
        case 1: return .bool(false)
        case 2: return .bool(true)
        case 3: return reader.signed().map(CompactValue.int)
        case 4: return reader.varint().map(CompactValue.uint)
        case 5: return reader.fixed64().map(CompactValue.double)
        case 6: return reader.string().map(CompactValue.string)
        case 7:
            // Each entry takes at least two bytes: no count can claim more than the bytes allow.
            guard let count = reader.count(atMost: reader.remaining / 2) else { return nil }
            var entries: [(String, CompactValue)] = []
            for _ in 0..<count {
                guard let key = reader.string(), let value = read(&reader, depth: depth + 1) else { return nil }
                entries.append((key, value))
            }
            return .keyed(entries)
        case 8:
            guard let count = reader.count(atMost: reader.remaining) else { return nil }
            var values: [CompactValue] = []
            for _ in 0..<count {
                guard let value = read(&reader, depth: depth + 1) else { return nil }
                values.append(value)
            }
            return .unkeyed(values)
        default: return nil
        }
    }
}

/// Encodes and decodes Codable values with the compact coder.
enum CompactCoder {
    /// The first byte of a compact state (JSON text starts with `{`).
    static let marker: UInt8 = 0xC1

    /// `value`'s bytes, after the marker.
    static func encode<T: Encodable>(_ value: T) throws -> [UInt8] { try encodeCodable(value) }

    /// ``encode(_:)-(T)`` through Codable, whatever the type.
    static func encodeCodable<T: Encodable>(_ value: T) throws -> [UInt8] {
        let root = CompactNode()
        try value.encode(to: CompactEncoder(node: root, codingPath: []))
        var writer = ByteWriter()
        writer.byte(marker)
        root.value.write(to: &writer)
        return writer.bytes
    }

    /// Decodes bytes `encode` made.
    static func decode<T: Decodable>(_ type: T.Type, from bytes: [UInt8]) throws -> T { try decodeCodable(type, from: bytes) }

    /// ``decode(_:from:)-(T.Type,_)`` through Codable, whatever the type.
    static func decodeCodable<T: Decodable>(_ type: T.Type, from bytes: [UInt8]) throws -> T {
        var reader = ByteReader(bytes)
        guard reader.byte() == marker, let value = CompactValue.read(&reader), reader.isAtEnd else {
            throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "not a compact value"))
        }
        return try T(from: CompactDecoder(value: value, codingPath: []))
    }
}

// MARK: - Encoding

/// A value being built: containers fill in their children as the type encodes them.
final class CompactNode {
    var kind: Kind = .empty

    enum Kind {
        case empty
        case value(CompactValue)
        case keyed([(String, CompactNode)])
        case unkeyed([CompactNode])
    }

    var value: CompactValue {
        switch kind {
        case .empty: .keyed([])
        case .value(let value): value
        case .keyed(let entries): .keyed(entries.map { ($0.0, $0.1.value) })
        case .unkeyed(let nodes): .unkeyed(nodes.map(\.value))
        }
    }

    func append(_ key: String, _ node: CompactNode) {
        if case .keyed(var entries) = kind {
            entries.append((key, node))
            kind = .keyed(entries)
        } else {
            kind = .keyed([(key, node)])
        }
    }

    func append(_ node: CompactNode) {
        if case .unkeyed(var nodes) = kind {
            nodes.append(node)
            kind = .unkeyed(nodes)
        } else {
            kind = .unkeyed([node])
        }
    }

    static func leaf(_ value: CompactValue) -> CompactNode {
        let node = CompactNode()
        node.kind = .value(value)
        return node
    }
}

struct CompactEncoder: Encoder {
    let node: CompactNode
    var codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        if case .empty = node.kind { node.kind = .keyed([]) }
        return KeyedEncodingContainer(Keyed<Key>(node: node, codingPath: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        if case .empty = node.kind { node.kind = .unkeyed([]) }
        return Unkeyed(node: node, codingPath: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer { Single(node: node, codingPath: codingPath) }

    /// A primitive's value, or `nil` for a type that encodes itself.
    static func primitive(_ value: some Encodable) -> CompactValue? {
        switch value {
        case let value as Bool: .bool(value)
        case let value as String: .string(value)
        case let value as Double: .double(value.bitPattern)
        case let value as Float: .double(Double(value).bitPattern)
        case let value as Int: .int(Int64(value))
        case let value as Int8: .int(Int64(value))
        case let value as Int16: .int(Int64(value))
        case let value as Int32: .int(Int64(value))
        case let value as Int64: .int(value)
        case let value as UInt: .uint(UInt64(value))
        case let value as UInt8: .uint(UInt64(value))
        case let value as UInt16: .uint(UInt64(value))
        case let value as UInt32: .uint(UInt64(value))
        case let value as UInt64: .uint(value)
        default: nil
        }
    }

    /// The node of any value: a primitive's leaf, or what the type encodes.
    static func node(_ value: some Encodable, codingPath: [any CodingKey]) throws -> CompactNode {
        if let primitive = primitive(value) { return .leaf(primitive) }
        let child = CompactNode()
        try value.encode(to: CompactEncoder(node: child, codingPath: codingPath))
        return child
    }

    struct Keyed<Key: CodingKey>: KeyedEncodingContainerProtocol {
        let node: CompactNode
        var codingPath: [any CodingKey]

        mutating func encodeNil(forKey key: Key) throws { node.append(key.stringValue, .leaf(.null)) }

        mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
            node.append(key.stringValue, try CompactEncoder.node(value, codingPath: codingPath + [key]))
        }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
            let child = CompactNode()
            child.kind = .keyed([])
            node.append(key.stringValue, child)
            return KeyedEncodingContainer(Keyed<NestedKey>(node: child, codingPath: codingPath + [key]))
        }

        mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
            let child = CompactNode()
            child.kind = .unkeyed([])
            node.append(key.stringValue, child)
            return Unkeyed(node: child, codingPath: codingPath + [key])
        }

        mutating func superEncoder() -> any Encoder { superEncoder(named: "super") }

        mutating func superEncoder(forKey key: Key) -> any Encoder { superEncoder(named: key.stringValue) }

        private func superEncoder(named name: String) -> any Encoder {
            let child = CompactNode()
            node.append(name, child)
            return CompactEncoder(node: child, codingPath: codingPath)
        }
    }

    struct Unkeyed: UnkeyedEncodingContainer {
        let node: CompactNode
        var codingPath: [any CodingKey]
        var count: Int {
            if case .unkeyed(let nodes) = node.kind { return nodes.count }
            return 0
        }

        mutating func encodeNil() throws { node.append(.leaf(.null)) }

        mutating func encode<T: Encodable>(_ value: T) throws { node.append(try CompactEncoder.node(value, codingPath: codingPath)) }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
            let child = CompactNode()
            child.kind = .keyed([])
            node.append(child)
            return KeyedEncodingContainer(Keyed<NestedKey>(node: child, codingPath: codingPath))
        }

        mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
            let child = CompactNode()
            child.kind = .unkeyed([])
            node.append(child)
            return Unkeyed(node: child, codingPath: codingPath)
        }

        mutating func superEncoder() -> any Encoder {
            let child = CompactNode()
            node.append(child)
            return CompactEncoder(node: child, codingPath: codingPath)
        }
    }

    struct Single: SingleValueEncodingContainer {
        let node: CompactNode
        var codingPath: [any CodingKey]

        mutating func encodeNil() throws { node.kind = .value(.null) }

        mutating func encode<T: Encodable>(_ value: T) throws {
            node.kind = try CompactEncoder.node(value, codingPath: codingPath).kind
        }
    }
}

// MARK: - Decoding

struct CompactDecoder: Decoder {
    let value: CompactValue
    var codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func mismatch(_ expected: String) -> DecodingError {
        .typeMismatch(Any.self, .init(codingPath: codingPath, debugDescription: "expected \(expected), found \(value)"))
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case .keyed(let entries) = value else { throw mismatch("a keyed container") }
        var table: [String: CompactValue] = [:]
        for (key, value) in entries where table[key] == nil { table[key] = value }
        return KeyedDecodingContainer(Keyed<Key>(entries: table, codingPath: codingPath))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard case .unkeyed(let values) = value else { throw mismatch("an unkeyed container") }
        return Unkeyed(values: values, codingPath: codingPath)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { Single(value: value, codingPath: codingPath) }

    /// A value of `type` from `value`: a primitive read with exact conversion, or what the type decodes.
    static func decode<T: Decodable>(_ type: T.Type, from value: CompactValue, codingPath: [any CodingKey]) throws -> T {
        func exact<I: FixedWidthInteger>(_: I.Type) -> I? {
            switch value {
            case .int(let number): I(exactly: number)
            case .uint(let number): I(exactly: number)
            default: nil
            }
        }
        let primitive: Any?
        switch type {
        case is Bool.Type:
            if case .bool(let flag) = value { primitive = flag } else { primitive = nil }
        case is String.Type:
            if case .string(let text) = value { primitive = text } else { primitive = nil }
        case is Double.Type:
            if case .double(let bits) = value { primitive = Double(bitPattern: bits) } else { primitive = nil }
        case is Float.Type:
            if case .double(let bits) = value { primitive = Float(Double(bitPattern: bits)) } else { primitive = nil }
        case is Int.Type: primitive = exact(Int.self)
        case is Int8.Type: primitive = exact(Int8.self)
        case is Int16.Type: primitive = exact(Int16.self)
        case is Int32.Type: primitive = exact(Int32.self)
        case is Int64.Type: primitive = exact(Int64.self)
        case is UInt.Type: primitive = exact(UInt.self)
        case is UInt8.Type: primitive = exact(UInt8.self)
        case is UInt16.Type: primitive = exact(UInt16.self)
        case is UInt32.Type: primitive = exact(UInt32.self)
        case is UInt64.Type: primitive = exact(UInt64.self)
        default: return try T(from: CompactDecoder(value: value, codingPath: codingPath))
        }
        guard let result = primitive as? T else {
            throw DecodingError.typeMismatch(T.self, .init(codingPath: codingPath, debugDescription: "found \(value)"))
        }
        return result
    }

    struct Keyed<Key: CodingKey>: KeyedDecodingContainerProtocol {
        let entries: [String: CompactValue]
        var codingPath: [any CodingKey]
        var allKeys: [Key] { entries.keys.compactMap { Key(stringValue: $0) } }

        func contains(_ key: Key) -> Bool { entries[key.stringValue] != nil }

        private func entry(_ key: Key) throws -> CompactValue {
            guard let value = entries[key.stringValue] else {
                throw DecodingError.keyNotFound(key, .init(codingPath: codingPath, debugDescription: "no value for \(key.stringValue)"))
            }
            return value
        }

        func decodeNil(forKey key: Key) throws -> Bool { try entry(key) == .null }

        func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
            try CompactDecoder.decode(type, from: try entry(key), codingPath: codingPath + [key])
        }

        func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
            try CompactDecoder(value: try entry(key), codingPath: codingPath + [key]).container(keyedBy: type)
        }

        func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
            try CompactDecoder(value: try entry(key), codingPath: codingPath + [key]).unkeyedContainer()
        }

        func superDecoder() throws -> any Decoder { CompactDecoder(value: entries["super"] ?? .null, codingPath: codingPath) }

        func superDecoder(forKey key: Key) throws -> any Decoder { CompactDecoder(value: try entry(key), codingPath: codingPath + [key]) }
    }

    struct Unkeyed: UnkeyedDecodingContainer {
        let values: [CompactValue]
        var codingPath: [any CodingKey]
        var currentIndex = 0
        var count: Int? { values.count }
        var isAtEnd: Bool { currentIndex >= values.count }

        init(values: [CompactValue], codingPath: [any CodingKey]) {
            self.values = values
            self.codingPath = codingPath
        }

        private mutating func next() throws -> CompactValue {
            guard currentIndex < values.count else {
                throw DecodingError.valueNotFound(Any.self, .init(codingPath: codingPath, debugDescription: "the unkeyed container has no more values"))
            }
            defer { currentIndex += 1 }
            return values[currentIndex]
        }

        mutating func decodeNil() throws -> Bool {
            guard currentIndex < values.count, values[currentIndex] == .null else { return false }
            currentIndex += 1
            return true
        }

        mutating func decode<T: Decodable>(_ type: T.Type) throws -> T { try CompactDecoder.decode(type, from: try next(), codingPath: codingPath) }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
            try CompactDecoder(value: try next(), codingPath: codingPath).container(keyedBy: type)
        }

        mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
            try CompactDecoder(value: try next(), codingPath: codingPath).unkeyedContainer()
        }

        mutating func superDecoder() throws -> any Decoder { CompactDecoder(value: try next(), codingPath: codingPath) }
    }

    struct Single: SingleValueDecodingContainer {
        let value: CompactValue
        var codingPath: [any CodingKey]

        func decodeNil() -> Bool { value == .null }

        func decode<T: Decodable>(_ type: T.Type) throws -> T { try CompactDecoder.decode(type, from: value, codingPath: codingPath) }
    }
}

// MARK: - FSRS states, directly

extension CompactCoder {
    /// An item's state as ``encode(_:)-(T)`` writes it, byte for byte; an FSRS state is written
    /// directly (Codable's path builds a tree of nodes and boxes every field: about 6 µs a state,
    /// paid for each item a merge writes). A debug build checks each against the generic path.
    static func encode(_ state: CardState) throws -> [UInt8] {
        guard let fsrs = state.value(as: FSRSState.self) else { return try encodeCodable(state) }
        var writer = ByteWriter()
        writer.bytes.reserveCapacity(96)
        writer.byte(marker)
        // CardState: {scheduler: name, state: {…}}; FSRSState's synthesized keys, in order, a nil
        // optional left out (encodeIfPresent), a date as seconds since 2001.
        writer.byte(7)
        writer.varint(2)
        writer.string("scheduler")
        writer.byte(6)
        writer.string(state.kind.rawValue)
        writer.string("state")
        writer.byte(7)
        var entries: UInt64 = 2
        if fsrs.step != nil { entries += 1 }
        if fsrs.stability != nil { entries += 1 }
        if fsrs.difficulty != nil { entries += 1 }
        if fsrs.lastReview != nil { entries += 1 }
        writer.varint(entries)
        writer.string("phase")
        writer.byte(6)
        writer.string(fsrs.phase.rawValue)
        if let step = fsrs.step {
            writer.string("step")
            writer.byte(3)
            writer.signed(Int64(step))
        }
        if let stability = fsrs.stability {
            writer.string("stability")
            writer.byte(5)
            writer.fixed64(stability.bitPattern)
        }
        if let difficulty = fsrs.difficulty {
            writer.string("difficulty")
            writer.byte(5)
            writer.fixed64(difficulty.bitPattern)
        }
        if let lastReview = fsrs.lastReview {
            writer.string("lastReview")
            writer.byte(5)
            writer.fixed64(lastReview.timeIntervalSinceReferenceDate.bitPattern)
        }
        writer.string("due")
        writer.byte(5)
        writer.fixed64(fsrs.due.timeIntervalSinceReferenceDate.bitPattern)
        assert(writer.bytes == (try? encodeCodable(state)), "the direct FSRS encoding differs from Codable's")
        return writer.bytes
    }

    /// ``decode(_:from:)`` of an item's state: an FSRS-6 state in exactly the shape ``encode(_:)-(CardState)``
    /// writes is read directly; anything else goes through Codable (which then decides).
    static func decode(_ type: CardState.Type, from bytes: [UInt8]) throws -> CardState {
        if let state = directFSRS(bytes) {
            assert(
                (try? encodeCodable(state)) == (try? encodeCodable(decodeCodable(CardState.self, from: bytes))),
                "the direct FSRS decoding differs from Codable's")
            return state
        }
        return try decodeCodable(type, from: bytes)
    }

    /// An FSRS-6 state in the exact shape the direct encoding writes; `nil` for anything else.
    private static func directFSRS(_ bytes: [UInt8]) -> CardState? {
        var reader = ByteReader(bytes)
        guard reader.byte() == marker, reader.byte() == 7, reader.varint() == 2, reader.string() == "scheduler", reader.byte() == 6,
            reader.string() == SchedulerKind.fsrs6.rawValue, reader.string() == "state", reader.byte() == 7,
            let count = reader.varint(), (2...6).contains(count), reader.string() == "phase", reader.byte() == 6,
            let phaseName = reader.string(), let phase = FSRSState.Phase(rawValue: phaseName)
        else { return nil }
        var step: Int?
        var stability: Double?
        var difficulty: Double?
        var lastReview: Date?
        var due: Date?
        var order = 0
        for _ in 1..<count {
            guard let key = reader.string(), let tag = reader.byte() else { return nil }
            // Each key once, in the order the encoding writes them.
            let place =
                switch key {
                case "step": 1
                case "stability": 2
                case "difficulty": 3
                case "lastReview": 4
                case "due": 5
                default: 0
                }
            guard place > order else { return nil }
            order = place
            if place == 1 {
                guard tag == 3, let value = reader.signed(), let exact = Int(exactly: value) else { return nil }
                step = exact
            } else {
                guard tag == 5, let bits = reader.fixed64() else { return nil }
                let number = Double(bitPattern: bits)
                switch place {
                case 2: stability = number
                case 3: difficulty = number
                case 4: lastReview = Date(timeIntervalSinceReferenceDate: number)
                default: due = Date(timeIntervalSinceReferenceDate: number)
                }
            }
        }
        guard reader.isAtEnd, order == 5, let due else { return nil }
        return CardState(
            .fsrs6, FSRSState(phase: phase, step: step, stability: stability, difficulty: difficulty, lastReview: lastReview, due: due))
    }
}
