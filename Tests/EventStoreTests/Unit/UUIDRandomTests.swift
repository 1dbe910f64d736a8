import EventStore
import Foundation
import Testing

/// Event ids come from `UUID.random()`: well-formed version 4 UUIDs that do not repeat.
struct UUIDRandomTests {
    @Test func idsAreVersion4WithTheRFCVariantAndDistinct() {
        let ids = (0..<10_000).map { _ in UUID.random() }
        #expect(Set(ids).count == ids.count)
        for id in ids.prefix(100) {
            #expect(id.uuid.6 >> 4 == 4)
            #expect(id.uuid.8 >> 6 == 0b10)
            #expect(UUID(uuidString: id.uuidString) == id)
        }
        // Random bits vary: not every id shares its first byte.
        #expect(Set(ids.map { $0.uuid.0 }).count > 1)
    }
}
