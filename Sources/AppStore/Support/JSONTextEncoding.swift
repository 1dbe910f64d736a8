import Foundation

/// The Unicode encoding a JSON body arrived in, told as Foundation's decoder tells it, and the same
/// text in UTF-8.
///
/// RFC 8259 asks for UTF-8 between systems, and Apple sends UTF-8, but the decoder also reads UTF-16
/// and UTF-32 (told by a byte order mark or by the NULs of the first bytes). A body the decoder
/// accepted in one of those must be kept as its text, not as its bytes read as UTF-8 (which would
/// turn every NUL into a character and the byte order mark into U+FFFD).
public enum JSONTextEncoding {
    /// The UTF-16 or UTF-32 encoding the decoder would read `body` in, or nil for UTF-8.
    public static func nonUTF8(of body: Data) -> String.Encoding? {
        let head = Array(body.prefix(4))
        if head.starts(with: [0, 0, 0xFE, 0xFF]) || head.starts(with: [0xFF, 0xFE, 0, 0]) { return .utf32 }
        if head.starts(with: [0xFE, 0xFF]) || head.starts(with: [0xFF, 0xFE]) { return .utf16 }
        guard head.count >= 2 else { return nil }
        if head.count == 4, head[0] == 0, head[1] == 0, head[2] == 0 { return .utf32BigEndian }
        if head.count == 4, head[1] == 0, head[2] == 0, head[3] == 0 { return .utf32LittleEndian }
        if head[0] == 0 { return .utf16BigEndian }
        if head[1] == 0 { return .utf16LittleEndian }
        return nil
    }

    /// `body` itself when it is read as UTF-8; its text converted to UTF-8 (without the byte order
    /// mark) when it is UTF-16 or UTF-32; nil when it is neither valid UTF-16 nor valid UTF-32.
    public static func utf8(_ body: Data) -> Data? {
        guard let encoding = nonUTF8(of: body) else { return body }
        return String(data: body, encoding: encoding).map { Data($0.utf8) }
    }
}
