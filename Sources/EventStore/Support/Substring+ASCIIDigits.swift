extension Substring {
    /// True for a non-empty run of ASCII digits: what a cursor's parts and the `limit` query hold.
    /// `Int(_:)` alone also takes a sign (`+5`), which no client needs to send.
    package var isASCIIDigits: Bool {
        !isEmpty && utf8.allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
    }
}
