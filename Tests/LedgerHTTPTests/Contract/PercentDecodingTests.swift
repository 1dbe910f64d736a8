import Testing

@testable import LedgerHTTP

/// Path segments are percent-decoded byte for byte: a U+FEFF at the start is kept (Foundation's
/// decoding dropped it, so `%EF%BB%BFbom` read as `bom`), and a broken escape or bytes that are not
/// UTF-8 are refused.
struct PercentDecodingTests {
    @Test(arguments: [
        ("plain", "plain"), ("a%2Fb", "a/b"), ("caf%C3%A9", "caf\u{E9}"), ("%EF%BB%BFbom", "\u{FEFF}bom"),
        ("x%ef%bb%bf", "x\u{FEFF}"), ("%41%42", "AB"), ("%25", "%"), ("", ""),
    ])
    func escapesAreDecodedByteForByte(_ segment: String, _ text: String) {
        #expect(PercentDecoding.decode(segment) == text)
    }

    @Test(arguments: ["%", "%4", "%zz", "%G1", "%FF", "%C3", "%C3%28", "a%2"])
    func aBrokenEscapeOrBytesThatAreNotUTF8AreRefused(_ segment: String) {
        #expect(PercentDecoding.decode(segment) == nil)
    }
}
