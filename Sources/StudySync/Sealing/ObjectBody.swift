import CAssetPackZlib
#if !FUZZ_STANDALONE
    import StudyProgress
#endif

/// What a sealed object carries, before sealing: who wrote it and when, the events, and for a
/// snapshot the segments it covers. Compressed with zlib (the ids are random; everything else
/// repeats).
///
/// ```
/// content = varint(size of body)  zlib(body)
/// body    = version 1, learner (8), device (8), sequence (varint), sealedAt (zigzag varint, ms),
///           covered segment names (count, strings), devices (count, 8 bytes each),
///           item keys (count, 3 strings each), events (count, then each:
///             id (16), device index, clock − previous clock (zigzag), wall − clock's ms (zigzag),
///             kind (1), key index, payload (length, bytes))
/// ```
///
/// Every byte of it comes from the remote: reading checks each count against the bytes left
/// before it allocates, each index against its table, each time for overflow, and refuses
/// trailing bytes. The declared size is capped before anything is inflated. Whatever the encoder
/// writes, the decoder reads back as it was (the fuzz target holds the two to it).
extension Result where Failure == ObjectBody.Malformed {
    static func fail(_ reason: String) -> Self { .failure(ObjectBody.Malformed(reason: reason)) }
}

struct ObjectBody: Sendable, Hashable {
    var learner: UInt64
    var device: UInt64
    var sequence: Int
    var sealedAt: Int64
    var covered: [String]
    var events: [ProgressEvent]

    /// The largest body sync inflates (about 5 million events).
    static let maximumBodySize = 256 << 20

    /// The body's bytes, compressed.
    func encoded() -> [UInt8] {
        var writer = ByteWriter()
        writer.byte(1)
        writer.fixed64(learner)
        writer.fixed64(device)
        writer.varint(UInt64(sequence))
        writer.signed(sealedAt)
        writer.varint(UInt64(covered.count))
        for name in covered { writer.string(name) }
        var devices: [DeviceID] = []
        var deviceIndex: [DeviceID: Int] = [:]
        var keys: [ItemKey] = []
        var keyIndex: [ItemKey: Int] = [:]
        for event in events {
            if deviceIndex[event.device] == nil {
                deviceIndex[event.device] = devices.count
                devices.append(event.device)
            }
            if keyIndex[event.key] == nil {
                keyIndex[event.key] = keys.count
                keys.append(event.key)
            }
        }
        writer.varint(UInt64(devices.count))
        for device in devices { writer.fixed64(device.rawValue) }
        writer.varint(UInt64(keys.count))
        for key in keys {
            writer.string(key.source)
            writer.string(key.item)
            writer.string(key.direction)
        }
        writer.varint(UInt64(events.count))
        var previous: UInt64 = 0
        for event in events {
            writer.raw(event.id.bytes)
            writer.varint(UInt64(deviceIndex[event.device] ?? 0))
            writer.signed(Int64(bitPattern: event.clock.rawValue &- previous))
            previous = event.clock.rawValue
            writer.signed(event.wall &- event.clock.milliseconds)
            writer.byte(event.kind.rawValue)
            writer.varint(UInt64(keyIndex[event.key] ?? 0))
            writer.blob(event.payload)
        }
        let body = writer.bytes
        var out = ByteWriter()
        out.varint(UInt64(body.count))
        out.raw(Self.compress(body))
        return out.bytes
    }

    /// Reads a body; `nil` with the reason when it is not one.
    static func decode(_ content: [UInt8]) -> Result<ObjectBody, Malformed> {
        var outer = ByteReader(content)
        guard let size = outer.count(atMost: maximumBodySize) else { return .fail("the declared size is missing or over \(maximumBodySize) bytes") }
        guard let compressed = outer.raw(outer.remaining), let body = inflate(compressed, size: size) else {
            return .fail("the compressed events do not inflate to the declared \(size) bytes")
        }
        var reader = ByteReader(body)
        guard reader.byte() == 1 else { return .fail("an unknown body version") }
        guard let learner = reader.fixed64(), let device = reader.fixed64(), let sequence = reader.count(atMost: ObjectName.maximumSequence),
            let sealedAt = reader.signed()
        else { return .fail("the header is cut short") }
        guard let coveredCount = reader.count(atMost: reader.remaining) else { return .fail("the covered count is past the end") }
        var covered: [String] = []
        for _ in 0..<coveredCount {
            guard let name = reader.string() else { return .fail("a covered name is cut short or not UTF-8") }
            covered.append(name)
        }
        guard let deviceCount = reader.count(atMost: reader.remaining / 8) else { return .fail("the device count is past the end") }
        var devices: [DeviceID] = []
        for _ in 0..<deviceCount {
            guard let raw = reader.fixed64() else { return .fail("a device is cut short") }
            devices.append(DeviceID(rawValue: raw))
        }
        guard let keyCount = reader.count(atMost: reader.remaining / 3) else { return .fail("the key count is past the end") }
        var keys: [ItemKey] = []
        for _ in 0..<keyCount {
            guard let source = reader.string(), let item = reader.string(), let direction = reader.string() else {
                return .fail("an item key is cut short or not UTF-8")
            }
            keys.append(ItemKey(source: source, item: item, direction: direction))
        }
        // An event takes at least 22 bytes: no count can claim more than the bytes left allow.
        guard let eventCount = reader.count(atMost: reader.remaining / 22) else { return .fail("the event count is past the end") }
        var events: [ProgressEvent] = []
        events.reserveCapacity(eventCount)
        var previous: UInt64 = 0
        for index in 0..<eventCount {
            // The id's two halves read in place (16 bytes as an array, then the id made from a
            // copy of it, were two allocations per event).
            guard let high = reader.bigEndian64(), let low = reader.bigEndian64(), let deviceIndex = reader.varint(), let clockStep = reader.signed(),
                let wallOffset = reader.signed(), let kind = reader.byte(), let keyIndex = reader.varint(), let payload = reader.blob()
            else { return .fail("event \(index) is cut short") }
            guard deviceIndex < UInt64(devices.count), keyIndex < UInt64(keys.count) else {
                return .fail("event \(index) names a device or item the tables do not have")
            }
            // The encoder writes each clock as the wrapping difference from the one before: any
            // 64-bit clock is one, so the decoder adds back the same way.
            previous = previous &+ UInt64(bitPattern: clockStep)
            let clock = HybridClock(rawValue: previous)
            let wall = clock.milliseconds.addingReportingOverflow(wallOffset)
            // Every device keeps wall times in the clock's range (ProgressStore.milliseconds).
            guard !wall.overflow, (0...Int64(HybridClock.maximumMilliseconds)).contains(wall.partialValue) else {
                return .fail("event \(index)'s time is out of range")
            }
            events.append(ProgressEvent(
                id: EventID(high: high, low: low), device: devices[Int(deviceIndex)], clock: clock, wall: wall.partialValue, kind: ProgressEvent.Kind(rawValue: kind),
                key: keys[Int(keyIndex)], payload: payload))
        }
        guard reader.isAtEnd else { return .fail("\(reader.remaining) bytes after the last event") }
        return .success(ObjectBody(learner: learner, device: device, sequence: sequence, sealedAt: sealedAt, covered: covered, events: events))
    }

    /// Why a body does not read.
    struct Malformed: Error, Sendable {
        var reason: String
    }

    /// zlib's compress2 at level 6.
    static func compress(_ bytes: [UInt8]) -> [UInt8] {
        var capacity = compressBound(uLong(bytes.count))
        var out = [UInt8](repeating: 0, count: Int(capacity))
        let status = bytes.withUnsafeBufferPointer { input in
            out.withUnsafeMutableBufferPointer { output in
                compress2(output.baseAddress, &capacity, input.baseAddress, uLong(input.count), 6)
            }
        }
        precondition(status == Z_OK, "zlib's compress2 failed with a buffer of compressBound bytes")
        return Array(out.prefix(Int(capacity)))
    }

    /// Inflates zlib data to exactly `size` bytes; `nil` if it does not (more, fewer, damaged).
    static func inflate(_ bytes: [UInt8], size: Int) -> [UInt8]? {
        // A zlib stream expands at most about 1032 times: a tiny input never gets a large buffer.
        guard size <= bytes.count.multipliedReportingOverflow(by: 1032).partialValue + 64 else { return nil }
        var out = [UInt8](repeating: 0, count: max(size, 1))
        var length = uLong(size)
        var consumed = uLong(bytes.count)
        let status = bytes.withUnsafeBufferPointer { input in
            out.withUnsafeMutableBufferPointer { output in
                uncompress2(output.baseAddress, &length, input.baseAddress, &consumed)
            }
        }
        // Exactly the declared size, and no bytes after the stream's end.
        guard status == Z_OK, length == uLong(size), consumed == uLong(bytes.count) else { return nil }
        return Array(out.prefix(size))
    }
}
