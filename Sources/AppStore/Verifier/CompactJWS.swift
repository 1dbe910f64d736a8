import Foundation

/// A compact JWS split into its three segments, with the header and payload decoded.
///
/// Parsing is separate from verification so the shape errors (`invalid_format`) are raised before
/// any cryptography. It works on the string's contiguous UTF-8 bytes: the hot path of the verifier
/// is dominated by this and the ES256 check, so no per-character `String` indexing is used. The
/// signing input (`header.payload`) is the input's own bytes, located by ``signingInputLength``.
struct CompactJWS: Sendable {
    /// The JOSE header fields this library reads; every other field is ignored.
    struct Header: Decodable, Sendable {
        /// The signature algorithm; must be `ES256`.
        var alg: String?
        /// The certificate chain, leaf first, as standard base64 DER.
        var x5c: [String]?
    }

    /// The decoded header, with the chain-cache key of its `x5c` precomputed.
    let header: ParsedHeader
    /// The base64url-decoded payload bytes (JSON).
    let payload: Data
    /// The raw signature bytes (`r || s` for ES256).
    let signature: [UInt8]
    /// The length in bytes of `base64url(header) "." base64url(payload)` at the start of the input.
    let signingInputLength: Int

    /// Splits and decodes `text`, throwing `invalid_format` for anything but three base64url segments
    /// whose header is a JSON object. `headers` memoizes header parsing (nil: parse every time).
    init(_ text: String, headers: HeaderMemo?) throws {
        var text = text
        (header, payload, signature, signingInputLength) = try text.withUTF8 { bytes in
            guard let firstDot = Self.dot(in: bytes, from: 0) else {
                throw AppStoreError(.invalidFormat, "not a compact JWS: no '.' separator")
            }
            guard let secondDot = Self.dot(in: bytes, from: firstDot + 1) else {
                throw AppStoreError(.invalidFormat, "not a compact JWS: expected 3 segments, found 2")
            }
            if Self.dot(in: bytes, from: secondDot + 1) != nil {
                let segments = bytes.count { $0 == UInt8(ascii: ".") } + 1
                throw AppStoreError(.invalidFormat, "not a compact JWS: expected 3 segments, found \(segments)")
            }
            let headerSegment = UnsafeBufferPointer(rebasing: bytes[..<firstDot])
            let payloadSegment = UnsafeBufferPointer(rebasing: bytes[(firstDot + 1)..<secondDot])
            let signatureSegment = UnsafeBufferPointer(rebasing: bytes[(secondDot + 1)...])
            guard !headerSegment.isEmpty, !payloadSegment.isEmpty, !signatureSegment.isEmpty else {
                throw AppStoreError(.invalidFormat, "not a compact JWS: empty segment")
            }
            let header = try headers?.lookup(headerSegment) ?? Self.parseHeader(headerSegment, memo: headers)
            guard let payloadBytes = Base64.decode(payloadSegment) else {
                throw Self.notBase64URL("payload", payloadSegment, at: firstDot + 1)
            }
            guard let signatureBytes = Base64.decode(signatureSegment) else {
                throw Self.notBase64URL("signature", signatureSegment, at: secondDot + 1)
            }
            return (header, Data(payloadBytes), signatureBytes, secondDot)
        }
    }

    /// The index of the first `.` at or after `start`, found by `memchr` (a notification's JWS is
    /// about 12 KB, and a byte-at-a-time search showed in the ingest profile).
    private static func dot(in bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int? {
        guard let base = bytes.baseAddress, start < bytes.count,
              let found = memchr(base + start, Int32(UInt8(ascii: ".")), bytes.count - start) else { return nil }
        return base.distance(to: found.assumingMemoryBound(to: UInt8.self))
    }

    /// Why a segment (`name`, starting at byte `start` of the JWS) is not base64url, pointing at the
    /// first byte no base64 alphabet has: a JWS copied with a line end, wrapped, or quoted on the
    /// way was told only that a segment is not base64url.
    static func notBase64URL(_ name: String, _ segment: UnsafeBufferPointer<UInt8>, at start: Int) -> AppStoreError {
        guard let offset = Base64.firstForeignByte(in: segment) else {
            return AppStoreError(.invalidFormat, "JWS \(name) is not base64url: its \(segment.count) characters are not a length or padding base64url text has")
        }
        let byte = segment[offset]
        let what = switch byte {
        case UInt8(ascii: "\n"), UInt8(ascii: "\r"): "a line break (a JWS holds no whitespace: was it wrapped, or copied with its line end?)"
        case UInt8(ascii: " "), UInt8(ascii: "\t"): "whitespace (a JWS holds none: was it wrapped, or copied with a space?)"
        case UInt8(ascii: "\""), UInt8(ascii: "'"): "a quote (was it copied with the quotes around it?)"
        case UInt8(ascii: "\\"): "a backslash (was it copied from JSON with its escapes?)"
        case 0x21...0x7E: "'\(Character(UnicodeScalar(byte)))'"
        default: "the byte 0x\(String(byte, radix: 16, uppercase: true))"
        }
        return AppStoreError(.invalidFormat, "JWS \(name) is not base64url: it holds \(what) at character \(start + offset + 1) of the JWS")
    }

    private static func parseHeader(_ segment: UnsafeBufferPointer<UInt8>, memo: HeaderMemo?) throws -> ParsedHeader {
        guard let headerBytes = Base64.decode(segment) else {
            throw notBase64URL("header", segment, at: 0)
        }
        let decoded: Header
        do {
            decoded = try JSONDecoder().decode(Header.self, fromUntrusted: Data(headerBytes))
        } catch {
            throw AppStoreError(.invalidFormat, "JWS header is not a JSON object with string alg and x5c")
        }
        let parsed = ParsedHeader(decoded)
        memo?.insert(parsed, for: segment)
        return parsed
    }
}
