import Crypto
import Foundation

/// Credentials for an S3-compatible store: an access key id and its secret, and for temporary
/// credentials (STS, Cognito) the session token that goes with them.
public struct StoreCredentials: Sendable, Hashable {
    /// The access key id.
    public var accessKeyID: String
    /// The secret access key.
    public var secretAccessKey: String
    /// The session token of temporary credentials (sent as `X-Amz-Security-Token`, signed).
    public var sessionToken: String?

    /// Credentials with their parts.
    public init(accessKeyID: String, secretAccessKey: String, sessionToken: String? = nil) {
        self.accessKeyID = accessKeyID
        self.secretAccessKey = secretAccessKey
        self.sessionToken = sessionToken
    }

    /// `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY` and `AWS_SESSION_TOKEN` from `environment`;
    /// `nil` when the first two are not both set.
    public static func fromEnvironment(_ environment: [String: String] = ProcessInfo.processInfo.environment) -> StoreCredentials? {
        guard let id = environment["AWS_ACCESS_KEY_ID"], !id.isEmpty, let secret = environment["AWS_SECRET_ACCESS_KEY"], !secret.isEmpty else {
            return nil
        }
        let token = environment["AWS_SESSION_TOKEN"].flatMap { $0.isEmpty ? nil : $0 }
        return StoreCredentials(accessKeyID: id, secretAccessKey: secret, sessionToken: token)
    }
}

/// What a log shows of credentials: the access key id, never the secret or the session token
/// (an app that logs its remote, `"\(remote)"` or `dump(remote)`, would otherwise write them out).
extension StoreCredentials: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// `StoreCredentials(ACCESS_KEY_ID, secret hidden)`.
    public var description: String {
        "StoreCredentials(\(accessKeyID), secret hidden\(sessionToken == nil ? "" : ", session token hidden"))"
    }

    /// The same as ``description``.
    public var debugDescription: String { description }

    /// The access key id only.
    public var customMirror: Mirror { Mirror(self, children: ["accessKeyID": accessKeyID], displayStyle: .struct) }
}

/// AWS Signature Version 4 (the header form), as the AWS signature test suite and the S3 API
/// reference compute it: a canonical request, the string to sign, a signing key derived from
/// the secret by date, region and service, and the `Authorization` header.
public enum SigV4 {
    /// The SHA-256 of an empty payload, in hex.
    public static let emptyPayloadHash = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

    /// `date` as `YYYYMMDDTHHMMSSZ`.
    public static func amzDate(_ date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(secondsFromGMT: 0) ?? calendar.timeZone
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        return String(
            format: "%04d%02d%02dT%02d%02d%02dZ", parts.year ?? 0, parts.month ?? 0, parts.day ?? 0, parts.hour ?? 0, parts.minute ?? 0,
            parts.second ?? 0)
    }

    /// RFC 3986 percent-encoding of everything but unreserved characters (and `/` when asked).
    public static func encode(_ text: String, keepingSlashes: Bool = false) -> String {
        var out = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                out.append(Character(UnicodeScalar(byte)))
            case UInt8(ascii: "/") where keepingSlashes:
                out.append("/")
            default:
                out += String(format: "%%%02X", byte)
            }
        }
        return out
    }

    /// The canonical query string: each name and value encoded, sorted by name, then value.
    public static func canonicalQuery(_ query: [(String, String)]) -> String {
        query.map { (encode($0.0), encode($0.1)) }.sorted { ($0.0, $0.1) < ($1.0, $1.1) }.map { "\($0.0)=\($0.1)" }.joined(separator: "&")
    }

    /// The `Authorization` header for a request.
    ///
    /// - Parameters:
    ///   - method: `GET`, `PUT`, …
    ///   - path: The canonical URI, already encoded (S3 encodes each segment once).
    ///   - query: The query's names and values, not encoded.
    ///   - headers: Every header to sign, with `host` and `x-amz-date` among them (names in any case).
    ///   - payloadHash: The hex SHA-256 of the body (or `UNSIGNED-PAYLOAD`).
    ///   - region: The region (`us-east-1`).
    ///   - service: The service (`s3`).
    ///   - credentials: The key id and secret.
    public static func authorization(
        method: String, path: String, query: [(String, String)], headers: [(String, String)], payloadHash: String, region: String,
        service: String, credentials: StoreCredentials
    ) -> String {
        var canonicalHeaders: [(String, String)] = []
        for (name, value) in headers {
            let trimmed = value.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
            canonicalHeaders.append((name.lowercased(), trimmed))
        }
        canonicalHeaders.sort { $0.0 < $1.0 }
        let signedHeaders = canonicalHeaders.map(\.0).joined(separator: ";")
        let amzDate = canonicalHeaders.first { $0.0 == "x-amz-date" }?.1 ?? ""
        let canonicalRequest = [
            method, path, canonicalQuery(query), canonicalHeaders.map { "\($0.0):\($0.1)\n" }.joined(), signedHeaders, payloadHash,
        ].joined(separator: "\n")
        let day = String(amzDate.prefix(8))
        let scope = "\(day)/\(region)/\(service)/aws4_request"
        let stringToSign = ["AWS4-HMAC-SHA256", amzDate, scope, hexSHA256(Array(canonicalRequest.utf8))].joined(separator: "\n")
        var key = SymmetricKey(data: Array(("AWS4" + credentials.secretAccessKey).utf8))
        for part in [day, region, service, "aws4_request"] {
            key = SymmetricKey(data: Array(HMAC<SHA256>.authenticationCode(for: Array(part.utf8), using: key)))
        }
        let signature = HMAC<SHA256>.authenticationCode(for: Array(stringToSign.utf8), using: key).map { String(format: "%02x", $0) }.joined()
        return "AWS4-HMAC-SHA256 Credential=\(credentials.accessKeyID)/\(scope), SignedHeaders=\(signedHeaders), Signature=\(signature)"
    }

    /// The hex SHA-256 of `bytes`.
    public static func hexSHA256(_ bytes: [UInt8]) -> String {
        SHA256.hash(data: bytes).map { String(format: "%02x", $0) }.joined()
    }
}
