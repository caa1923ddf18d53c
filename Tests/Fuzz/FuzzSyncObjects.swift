// libFuzzer target over what progress sync reads from a store: the content of an opened segment
// or snapshot (ObjectBody: what a key holder sealed, honest or buggy), an answer's payload inside
// it (AnswerPayload, read by replay), an object name from a listing (ObjectName), and a page of an
// S3 listing (ListPage, read before anything from the store is authenticated). The first byte
// chooses which. Whatever the bytes, parsing gives a value or a typed failure, never a trap; what
// it gives must hold what sync relies on, checked here (trapping if broken): it reads back the
// same after writing, its times are in the clock's range, a name is exactly the text it came from.
// Built by Scripts/fuzz with the parsing's sources (one module, FUZZ_STANDALONE).

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSyncObjects(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size >= 1 else { return 0 }
    let input = Array(UnsafeBufferPointer(start: data, count: size))
    let rest = Array(input.dropFirst())
    switch input[0] % 4 {
    case 0:
        guard case .success(let body) = ObjectBody.decode(rest) else { return 0 }
        for event in body.events {
            precondition((0...Int64(HybridClock.maximumMilliseconds)).contains(event.wall), "a decoded time out of range")
        }
        guard case .success(let again) = ObjectBody.decode(body.encoded()) else {
            preconditionFailure("a body that decoded does not decode once encoded again")
        }
        precondition(again == body, "a body reads back differently once encoded again")
    case 1:
        guard let payload = AnswerPayload(bytes: rest) else { return 0 }
        precondition(AnswerPayload(bytes: payload.bytes) == payload, "a payload reads back differently once encoded again")
    case 2:
        let text = String(decoding: rest, as: UTF8.self)
        guard let name = ObjectName(parsing: text) else { return 0 }
        precondition(name.description == text, "a parsed name is not the text it came from")
        precondition(!text.split(separator: "/", omittingEmptySubsequences: false).contains { $0.isEmpty || $0 == "." || $0 == ".." })
    default:
        guard case .success(let page) = ListPage.parse(rest) else { return 0 }
        precondition(page.objects.allSatisfy { $0.size >= 0 }, "a listed size is negative")
        precondition(!page.isTruncated || !(page.nextToken ?? "").isEmpty, "a truncated page without a token")
    }
    return 0
}
