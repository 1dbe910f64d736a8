import Foundation

/// Apple's public sample data kept in `Tests/AppStoreTests/Fixtures` (origins in its README), for
/// the test targets other than AppStoreTests, which reach it through their bundle instead.
public enum AppleSamples {
    /// The bundle id of the Xcode app receipts (`xcode/xcode-app-receipt-*`).
    public static let xcodeReceiptApp = "com.example.naturelab.backyardbirds.example"

    /// The text of the fixture at `path` under `Fixtures`, its final line break dropped. Found from
    /// this file's place in the checkout, so a fresh clone's tests need nothing else.
    public static func text(_ path: String) throws -> String {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let url = root.appendingPathComponent("Tests/AppStoreTests/Fixtures").appendingPathComponent(path)
        return try String(contentsOf: url, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
