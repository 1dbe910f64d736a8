@testable import AppStore
import Testing

/// `Base64.isPaddedStandard`: the one spelling `x5c` entries are accepted in.
struct Base64SpellingTests {
    @Test(arguments: [
        ("QUJD", true), ("QUI=", true), ("QQ==", true), ("", true), ("+/+/", true),
        ("QUI", false), ("QQ", false), ("QQ=", false), ("-_-_", false), ("Q===", false), ("QQ==QUJD", false), ("QQ=A", false),
    ])
    func acceptsOnlyStandardPaddedText(_ text: String, _ accepted: Bool) {
        #expect(Base64.isPaddedStandard(text) == accepted, "\(text)")
    }
}
