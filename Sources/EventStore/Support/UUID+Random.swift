import Foundation

extension UUID {
    /// A version 4 UUID from the system's random source, two `getrandom` calls on Linux.
    ///
    /// Foundation's `UUID()` on Linux opens, reads and closes `/dev/urandom` for each id; every event
    /// gets an id, so ingest paid those three system calls and a file descriptor per event.
    public static func random() -> UUID {
        var generator = SystemRandomNumberGenerator()
        var halves = (generator.next() as UInt64, generator.next() as UInt64)
        var uuid = withUnsafeBytes(of: &halves) { $0.load(as: uuid_t.self) }
        uuid.6 = (uuid.6 & 0x0F) | 0x40  // version 4
        uuid.8 = (uuid.8 & 0x3F) | 0x80  // RFC 4122 variant
        return UUID(uuid: uuid)
    }
}
