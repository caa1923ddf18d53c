// libFuzzer target over what a delivery client reads before anything is authenticated: the
// pack's tail (PackLayout) and the local headers made again from it. The input is an 8-byte
// little-endian tail offset (what a catalog would sign) followed by the file. Whatever the
// bytes, parsing gives a layout or a typed error; a layout it gives must hold the invariants
// the download planner relies on (checked here, trapping if broken). Built by Scripts/fuzz
// with the library's sources (one module, FUZZ_STANDALONE).

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPackLayout(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size >= 8 else { return 0 }
    let input = UnsafeBufferPointer(start: data, count: size)
    var tail: UInt64 = 0
    for index in 0..<8 { tail |= UInt64(input[index]) << (8 * UInt64(index)) }
    let file = Array(input[8...])
    let fileSize = UInt64(file.count)
    guard tail <= fileSize else { return 0 }
    guard let layout = try? PackLayout.parse(tail: Array(file[Int(tail)...]), from: tail, fileSize: fileSize, name: "fuzz-input") else {
        return 0
    }
    // What PackDownload and DownloadPlan rely on.
    var previousEnd: UInt64 = 0
    for item in layout.entries {
        let location = item.location
        precondition(location.headerOffset >= previousEnd && location.headerOffset <= location.dataOffset)
        precondition(location.dataOffset <= fileSize && location.size <= fileSize - location.dataOffset)
        precondition(location.dataOffset + location.size <= tail || location.number == layout.entries.count - 1)
        if let header = item.header { precondition(UInt64(header.count) == location.dataOffset - location.headerOffset) }
        previousEnd = location.dataOffset + location.size
    }
    return 0
}
