extension JSONScanner {
    /// An object key as it stands in the text, matched against literals in a `switch` without
    /// building a `String` (most of an event's keys are longer than a small string holds).
    package struct Key {
        package let bytes: UnsafeRawBufferPointer

        package static func ~= (pattern: StaticString, key: Key) -> Bool {
            let count = pattern.utf8CodeUnitCount
            guard count == key.bytes.count else { return false }
            for offset in 0..<count where key.bytes[offset] != pattern.utf8Start[offset] {
                return false
            }
            return true
        }
    }
}
