import Foundation
import Synchronization

/// What an open PostgreSQL transaction knows for its appends: the stream heads it holds locked (as
/// its own appends left them), the streams it found absent, and the dedupe keys it has looked up.
///
/// An append whose streams and keys are all known skips the round trip that locks and looks them
/// up: an ingest batch takes its locks once, up front, with the documents it will change.
final class TransactionHeads: Sendable {
    private struct State {
        /// Heads of existing streams this transaction holds locked.
        var locked: [String: StreamHead] = [:]
        /// Streams that did not exist when looked up: an append creates them (or loses a race).
        var absent: Set<String> = []
        /// Every dedupe key looked up or appended in this transaction.
        var keys: Set<String> = []
        /// The stored event of each of those keys that has one.
        var stored: [String: AppendedEvent] = [:]

        /// Whether `stream` is held locked or was found absent.
        func knows(_ stream: String) -> Bool {
            locked[stream] != nil || absent.contains(stream)
        }
    }

    /// What an append planned on known heads starts from.
    struct Known: Sendable {
        var locked: [String: StreamHead]
        var stored: [String: AppendedEvent]
    }

    private let state = Mutex(State())

    /// Whether every one of `streams` is held locked or was found absent (its name locked).
    func knowsAll(_ streams: [String]) -> Bool {
        state.withLock { state in streams.allSatisfy(state.knows) }
    }

    /// The heads and duplicates of `streams` and `keys`, or nil unless every one is known.
    func known(streams: [String], keys: [String]) -> Known? {
        state.withLock { state in
            guard streams.allSatisfy(state.knows),
                  keys.allSatisfy(state.keys.contains) else { return nil }
            var known = Known(locked: [:], stored: [:])
            for stream in streams { known.locked[stream] = state.locked[stream] }
            for key in keys { known.stored[key] = state.stored[key] }
            return known
        }
    }

    /// Records a lookup: `streams` were locked and found at `locked` (the rest absent), `keys` were
    /// looked up and found as `stored`.
    func lookedUp(streams: [String], locked: [String: StreamHead], keys: [String], stored: [String: AppendedEvent]) {
        state.withLock { state in
            for stream in streams {
                if let head = locked[stream] {
                    state.locked[stream] = head
                    state.absent.remove(stream)
                } else {
                    state.absent.insert(stream)
                }
            }
            state.keys.formUnion(keys)
            state.stored.merge(stored) { _, new in new }
        }
    }

    /// Records an append: the streams now stand at `heads` (created ones are locked by their insert)
    /// and `events` are stored under their keys.
    func appended(heads: [(stream: String, head: StreamHead)], events: [(key: String, event: AppendedEvent)]) {
        state.withLock { state in
            for (stream, head) in heads {
                state.locked[stream] = head
                state.absent.remove(stream)
            }
            for (key, event) in events {
                state.keys.insert(key)
                state.stored[key] = event
            }
        }
    }

    /// Forgets streams and keys an append changed without telling this record.
    func forget(stream: String, keys: [String]) {
        state.withLock { state in
            state.locked[stream] = nil
            state.absent.remove(stream)
            for key in keys {
                state.keys.remove(key)
                state.stored[key] = nil
            }
        }
    }
}
