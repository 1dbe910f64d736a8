import Foundation
import Synchronization

/// The `recorded_at` every event appended in one transaction shares: taken from the clock at the
/// transaction's first append, then reused.
///
/// The events of one transaction become visible together, so they are stamped together: a transfer's
/// link and the previous owner's unlink, or a fact and its links, never straddle a moment an `as_of`
/// query could name, which would show both users, or neither, owning the chain.
final class TransactionStamp: Sendable {
    private let stamp = Mutex<Int64?>(nil)

    /// The transaction's `recorded_at` in microseconds since 1970, reading `now` only the first time.
    func micros(_ now: () -> Date) -> Int64 {
        stamp.withLock { stamp in
            if let stamp { return stamp }
            let micros = Timestamp.micros(Timestamp.truncated(now()))
            stamp = micros
            return micros
        }
    }
}
