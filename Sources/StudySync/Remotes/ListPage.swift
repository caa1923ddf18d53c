// No package dependency: compiled standalone by Scripts/fuzz (a listing is read before anything
// from the store is authenticated).
import Foundation

/// One page of a ListObjectsV2 answer, read by hand: only the elements sync needs, every value
/// unescaped and checked (a key must be UTF-8 text, a size a non-negative number).
struct ListPage: Sendable, Hashable {
    var objects: [RemoteObject] = []
    var isTruncated = false
    var nextToken: String?

    /// Why a page does not read.
    struct Malformed: Error, Sendable {
        var reason: String
    }

    /// Reads a page; the reason when it is not one.
    static func parse(_ body: [UInt8]) -> Result<ListPage, Malformed> {
        let text = String(decoding: body, as: UTF8.self)
        guard text.contains("<ListBucketResult") else { return .failure(Malformed(reason: "the listing is not a ListBucketResult")) }
        var page = ListPage()
        for block in XMLText.all("Contents", in: text) {
            guard let key = XMLText.first("Key", in: block), let sizeText = XMLText.first("Size", in: block), let size = Int(sizeText), size >= 0
            else { return .failure(Malformed(reason: "a listed object has no key or size")) }
            page.objects.append(RemoteObject(name: key, size: size))
        }
        page.isTruncated = XMLText.first("IsTruncated", in: text) == "true"
        page.nextToken = XMLText.first("NextContinuationToken", in: text)
        if page.isTruncated, page.nextToken?.isEmpty ?? true {
            return .failure(Malformed(reason: "a truncated listing without a continuation token"))
        }
        return .success(page)
    }
}

/// The few XML reads S3's answers need: the text of `<NAME>…</NAME>` elements, unescaped.
enum XMLText {
    static func all(_ name: String, in text: String) -> [String] {
        var results: [String] = []
        var rest = text[...]
        while let open = rest.range(of: "<\(name)>"), let close = rest[open.upperBound...].range(of: "</\(name)>") {
            results.append(unescape(String(rest[open.upperBound..<close.lowerBound])))
            rest = rest[close.upperBound...]
        }
        return results
    }

    static func first(_ name: String, in text: String) -> String? {
        guard let open = text.range(of: "<\(name)>"), let close = text[open.upperBound...].range(of: "</\(name)>") else { return nil }
        return unescape(String(text[open.upperBound..<close.lowerBound]))
    }

    static func unescape(_ text: String) -> String {
        guard text.contains("&") else { return text }
        var out = ""
        var rest = text[...]
        while let amp = rest.firstIndex(of: "&") {
            out += rest[..<amp]
            guard let semi = rest[amp...].firstIndex(of: ";"), rest.distance(from: amp, to: semi) <= 10 else {
                out += "&"
                rest = rest[rest.index(after: amp)...]
                continue
            }
            let entity = String(rest[rest.index(after: amp)..<semi])
            switch entity {
            case "amp": out += "&"
            case "lt": out += "<"
            case "gt": out += ">"
            case "quot": out += "\""
            case "apos": out += "'"
            default:
                let number = entity.hasPrefix("#x") ? UInt32(entity.dropFirst(2), radix: 16) : entity.hasPrefix("#") ? UInt32(entity.dropFirst()) : nil
                if let number, let scalar = UnicodeScalar(number) { out.unicodeScalars.append(scalar) } else { out += "&" + entity + ";" }
            }
            rest = rest[rest.index(after: semi)...]
        }
        return out + rest
    }
}
