import Foundation

extension JSONScanner {
    /// An object key as it stands in the text, matched against literals in a `switch` without
    /// building a `String` (most of an event's keys are longer than a small string holds).
    package struct Key: Equatable {
        package let bytes: UnsafeRawBufferPointer

        package static func ~= (pattern: StaticString, key: Key) -> Bool {
            let count = pattern.utf8CodeUnitCount
            guard count == key.bytes.count else { return false }
            for offset in 0..<count where key.bytes[offset] != pattern.utf8Start[offset] {
                return false
            }
            return true
        }

        /// The same bytes.
        package static func == (left: Key, right: Key) -> Bool {
            guard left.bytes.count == right.bytes.count else { return false }
            guard let a = left.bytes.baseAddress, let b = right.bytes.baseAddress else { return true }
            return memcmp(a, b, left.bytes.count) == 0
        }
    }
}
