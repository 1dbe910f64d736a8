import Foundation
import Synchronization

/// Remembers the last few distinct JWS headers (by their exact base64url bytes) and their parse.
///
/// All App Store JWS signed by one leaf share the same ~4 KB header (`alg` + the three `x5c`
/// certificates); decoding it is as costly as the signature check. The memo compares bytes
/// exactly (memcmp), so it is a pure parsing shortcut: the same bytes always parse the same way,
/// and no trust decision is cached here. Bounded; the oldest entry is replaced when full.
final class HeaderMemo: Sendable {
    private struct Entry: Sendable {
        let bytes: [UInt8]
        let header: ParsedHeader
    }

    private struct State: ~Copyable {
        var entries: [Entry] = []
        var next = 0
    }

    private let capacity: Int
    private let state = Mutex(State())

    /// Creates an empty memo of at most `capacity` headers.
    init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    /// The memoized parse of `segment`, if these exact bytes were seen.
    func lookup(_ segment: UnsafeBufferPointer<UInt8>) -> ParsedHeader? {
        state.withLock { state in
            for entry in state.entries where entry.bytes.count == segment.count {
                let equal = entry.bytes.withUnsafeBufferPointer { stored in
                    guard let left = stored.baseAddress, let right = segment.baseAddress else { return stored.isEmpty }
                    return memcmp(left, right, segment.count) == 0
                }
                if equal { return entry.header }
            }
            return nil
        }
    }

    /// Remembers the parse of `segment`.
    func insert(_ header: ParsedHeader, for segment: UnsafeBufferPointer<UInt8>) {
        let entry = Entry(bytes: Array(segment), header: header)
        state.withLock { state in
            if state.entries.count < capacity {
                state.entries.append(entry)
            } else {
                state.entries[state.next] = entry
                state.next = (state.next + 1) % capacity
            }
        }
    }
}
