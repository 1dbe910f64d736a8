import EventStore
import Foundation

/// Rebuilds the read models from the events, or checks the live ones against a rebuild.
///
/// Projections are disposable: folding every event again must give the same documents. `rebuild`
/// swaps the fresh ones in at once; `check` changes nothing and reports each difference.
public struct LedgerReplayer: Sendable {
    /// How far a replay has got.
    public struct Progress: Sendable, Hashable {
        public var events: Int
        public var totalEvents: Int
    }

    /// A document that differs between the live read models and a rebuild.
    public struct Difference: Sendable, Hashable, CustomStringConvertible {
        public enum Kind: String, Sendable, Hashable {
            /// Only the rebuild has it.
            case missingInLive = "missing_in_live"
            /// Only the live read models have it.
            case missingInRebuild = "missing_in_rebuild"
            /// Both have it with different contents.
            case changed
        }

        public var model: String
        public var key: String
        public var kind: Kind

        public var description: String { "\(model)/\(key): \(kind.rawValue)" }
    }

    /// What a replay did.
    public struct Report: Sendable, Hashable {
        public var events: Int
        public var documents: Int
        public var differences: [Difference]
    }

    public let store: any EventStore
    public let pageSize: Int

    /// Creates a replayer over a store.
    public init(store: any EventStore, pageSize: Int = 2000) {
        self.store = store
        self.pageSize = pageSize
    }

    /// Folds every event into fresh read models held in memory.
    public func fold(progress: (@Sendable (Progress) -> Void)? = nil) async throws -> (documents: [ProjectionDocument], events: Int) {
        let total = try await store.eventCount()
        let documents = InMemoryDocuments()
        let projector = LedgerProjector()
        let store = self.store
        let pageSize = self.pageSize
        var count = 0
        // The next page is read and decoded (in parallel slices: decoding is much of the cost) while
        // this one is folded, in log order.
        var current = try await Self.readAndDecode(store, after: .start, limit: pageSize)
        while !current.events.isEmpty {
            let next = current.next
            async let upcoming = Self.readAndDecode(store, after: next, limit: pageSize)
            for event in current.events {
                try await projector.apply(event, to: documents)
            }
            count += current.events.count
            progress?(Progress(events: count, totalEvents: max(total, count)))
            current = try await upcoming
        }
        return (try await documents.documents(), count)
    }

    /// One page of the log, decoded.
    private static func readAndDecode(
        _ store: any EventStore,
        after cursor: EventCursor,
        limit: Int
    ) async throws -> (events: [ProjectableEvent], next: EventCursor) {
        let events = try await store.readAllForFolding(after: cursor, limit: limit)
        return (try await decode(events), events.last?.cursor ?? cursor)
    }

    /// Decodes events in parallel slices, keeping their order.
    static func decode(_ events: [FoldableEvent]) async throws -> [ProjectableEvent] {
        let slices = max(1, min(ProcessInfo.processInfo.activeProcessorCount, events.count / 256))
        let size = (events.count + slices - 1) / slices
        return try await withThrowingTaskGroup(of: (Int, [ProjectableEvent]).self) { group in
            for slice in 0..<slices {
                let part = Array(events[min(slice * size, events.count)..<min((slice + 1) * size, events.count)])
                group.addTask {
                    let decoder = JSONDecoder()
                    return (slice, try part.map { try ProjectableEvent($0, decoder: decoder) })
                }
            }
            var parts = [[ProjectableEvent]](repeating: [], count: slices)
            for try await (slice, decoded) in group { parts[slice] = decoded }
            return parts.flatMap { $0 }
        }
    }

    /// Rebuilds every read model from the events and swaps them in.
    public func rebuild(progress: (@Sendable (Progress) -> Void)? = nil) async throws -> Report {
        let (documents, events) = try await fold(progress: progress)
        try await store.replaceProjections(with: documents)
        return Report(events: events, documents: documents.count, differences: [])
    }

    /// Rebuilds alongside and reports every difference from the live read models; changes nothing.
    public func check(progress: (@Sendable (Progress) -> Void)? = nil) async throws -> Report {
        let (rebuilt, events) = try await fold(progress: progress)
        let live = try await store.projectionDocuments()
        var differences: [Difference] = []
        var liveByKey: [String: Data] = [:]
        for document in live { liveByKey["\(document.model)\u{0}\(document.key)"] = document.data }
        var seen = Set<String>()
        for document in rebuilt {
            let id = "\(document.model)\u{0}\(document.key)"
            seen.insert(id)
            guard let current = liveByKey[id] else {
                differences.append(Difference(model: document.model, key: document.key, kind: .missingInLive))
                continue
            }
            // Documents written before read models were kept as text came back in jsonb's layout:
            // when the bytes differ, compare canonical forms.
            let same = current == document.data
                || (try? CanonicalJSON.canonicalize(current)) == (try? CanonicalJSON.canonicalize(document.data))
            if !same { differences.append(Difference(model: document.model, key: document.key, kind: .changed)) }
        }
        for document in live where !seen.contains("\(document.model)\u{0}\(document.key)") {
            differences.append(Difference(model: document.model, key: document.key, kind: .missingInRebuild))
        }
        differences.sort { ($0.model, $0.key) < ($1.model, $1.key) }
        return Report(events: events, documents: rebuilt.count, differences: differences)
    }
}
