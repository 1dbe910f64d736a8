import EventStore
import Foundation

/// Rebuilds the read models from the events, or checks the live ones against a rebuild.
///
/// Projections are disposable: folding every event again must give the same documents. `rebuild`
/// swaps the fresh ones in at once; `check` changes nothing and reports each difference.
public struct LedgerReplayer: Sendable {
    /// How far a replay has got.
    public struct Progress: Sendable, Hashable {
        /// What a replay does after its fold: the write or the comparison of a large store can take
        /// a while, and would otherwise show as a finished fold that does nothing.
        public enum Phase: Sendable, Hashable {
            /// Folding events: `events` of the `totalEvents` counted at the start are folded.
            case folding
            /// The fold is done; its documents are being written in place of the live read models.
            case swapping(documents: Int)
            /// The fold is done; its documents are being compared with the live read models.
            case comparing(documents: Int)
        }

        public var events: Int
        public var totalEvents: Int
        public var phase: Phase = .folding
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
        /// For `changed`, where the two differ: dot-separated keys, objects followed at most three
        /// deep, the first five; empty when that cannot be told.
        public var paths: [String] = []

        public var description: String {
            paths.isEmpty ? "\(model)/\(key): \(kind.rawValue)" : "\(model)/\(key): \(kind.rawValue) at \(paths.joined(separator: ", "))"
        }

        /// Where two JSON documents differ (see `paths`): an operator reading a check after an
        /// upgrade was told only that a document changed, not which part (operator walkthrough).
        static func differingPaths(_ live: Data, _ rebuilt: Data) -> [String] {
            guard let left = try? JSONSerialization.jsonObject(with: live, options: [.fragmentsAllowed]),
                  let right = try? JSONSerialization.jsonObject(with: rebuilt, options: [.fragmentsAllowed]) else { return [] }
            var paths: [String] = []
            collect(left, right, at: [], into: &paths)
            return paths
        }

        private static func collect(_ left: Any, _ right: Any, at path: [String], into paths: inout [String]) {
            guard paths.count < 5 else { return }
            if path.count < 3, let left = left as? [String: Any], let right = right as? [String: Any] {
                for key in Set(left.keys).union(right.keys).sorted() {
                    switch (left[key], right[key]) {
                    case let (.some(a), .some(b)): collect(a, b, at: path + [key], into: &paths)
                    default: if paths.count < 5 { paths.append((path + [key]).joined(separator: ".")) }
                    }
                }
                return
            }
            if canonical(left) != canonical(right) { paths.append(path.isEmpty ? "(the whole document)" : path.joined(separator: ".")) }
        }

        private static func canonical(_ value: Any) -> Data? {
            try? JSONSerialization.data(withJSONObject: value, options: [.sortedKeys, .fragmentsAllowed])
        }
    }

    /// The fold read fewer events than the store holds, so its read models would miss facts:
    /// nothing is swapped in or compared. In PostgreSQL, a fold never sees an event whose transaction
    /// id the server has not reached (history restored with `pg_dump` into another cluster).
    public struct IncompleteFold: Error, Sendable, Hashable, CustomStringConvertible {
        public var folded: Int
        public var stored: Int

        public var description: String {
            """
            the fold read \(folded) of the \(stored) stored events; the others carry transaction ids \
            the database server has not reached, so it never shows them (history restored from another \
            cluster: see operations.md). Nothing was changed
            """
        }
    }

    /// What a replay did.
    public struct Report: Sendable, Hashable {
        public var events: Int
        public var documents: Int
        public var differences: [Difference]
        /// For a check: how many events the store held beyond those folded once the comparison was
        /// done. Their facts can be in the live read models and not in the rebuild, so differences
        /// may be theirs, not the read models' (a check while ingestion runs). 0 for a rebuild, which
        /// refuses to swap in when there are any.
        public var appendedSinceFold: Int = 0
    }

    public let store: any EventStore
    public let pageSize: Int

    /// Creates a replayer over a store.
    public init(store: any EventStore, pageSize: Int = 2000) {
        self.store = store
        self.pageSize = pageSize
    }

    /// Folds every event into fresh read models held in memory.
    ///
    /// Events are folded in position order, the order live ingestion decided them in, over the
    /// history committed when the fold starts (see `EventStore.readAllForFolding`).
    ///
    /// Three stages overlap: reading a page from the store, decoding pages read (in parallel slices:
    /// decoding is much of the cost), and folding decoded pages in position order. Reading runs at
    /// most `pagesAhead` pages ahead of folding, so memory stays bounded however fast the store is.
    public func fold(progress: (@Sendable (Progress) -> Void)? = nil) async throws -> (documents: [ProjectionDocument], events: Int) {
        // Counted before the snapshot: every event counted has committed by then, so the fold reads
        // at least as many unless the server hides some.
        let total = try await store.eventCount()
        let snapshot = try await store.foldingSnapshot()
        let documents = InMemoryDocuments()
        let projector = LedgerProjector()
        let store = self.store
        let pageSize = self.pageSize
        let pagesAhead = 3
        var count = 0
        try await withThrowingTaskGroup(of: Stage.self) { group in
            group.addTask { .read(0, try await store.readAllForFolding(in: snapshot, after: 0, limit: pageSize)) }
            var decoded: [Int: [ProjectableEvent]] = [:]
            var nextToFold = 0
            // The page to read next and where it starts, once the pipeline has room for it.
            var waitingRead: (page: Int, after: Int64)?
            while let stage = try await group.next() {
                switch stage {
                case .read(let page, let events):
                    guard let last = events.last else { continue }
                    group.addTask { .decoded(page, try await Self.decode(events)) }
                    waitingRead = (page + 1, last.position)
                case .decoded(let page, let events):
                    decoded[page] = events
                }
                while let events = decoded.removeValue(forKey: nextToFold) {
                    for event in events {
                        try await projector.apply(event, to: documents)
                    }
                    count += events.count
                    nextToFold += 1
                    progress?(Progress(events: count, totalEvents: max(total, count)))
                }
                if let read = waitingRead, read.page - nextToFold < pagesAhead {
                    waitingRead = nil
                    group.addTask { .read(read.page, try await store.readAllForFolding(in: snapshot, after: read.after, limit: pageSize)) }
                }
            }
        }
        // Events committed between the count and the snapshot make `count` exceed `total`; fewer
        // means the server hides some.
        guard count >= total else { throw IncompleteFold(folded: count, stored: total) }
        return (try await documents.documents(), count)
    }

    /// What a stage of the fold pipeline hands back.
    private enum Stage: Sendable {
        case read(Int, [FoldableEvent])
        case decoded(Int, [ProjectableEvent])
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
    ///
    /// Throws `EventStoreError` with code `rebuild_outdated`, changing nothing, when events were
    /// appended after the fold read the history: its read models would miss their facts. On
    /// PostgreSQL, `rebuild_blocked` when a long transaction holds the read models through the
    /// swap's three 1-second waits; nothing changes then either.
    public func rebuild(progress: (@Sendable (Progress) -> Void)? = nil) async throws -> Report {
        let (documents, events) = try await fold(progress: progress)
        progress?(Progress(events: events, totalEvents: events, phase: .swapping(documents: documents.count)))
        return try await swapIn(documents, foldedEvents: events)
    }

    /// Swaps in `documents` folded from `foldedEvents` events: the second half of `rebuild`.
    func swapIn(_ documents: [ProjectionDocument], foldedEvents: Int) async throws -> Report {
        try await store.replaceProjections(with: documents, foldedEvents: foldedEvents)
        return Report(events: foldedEvents, documents: documents.count, differences: [])
    }

    /// Rebuilds alongside and reports every difference from the live read models; changes nothing.
    public func check(progress: (@Sendable (Progress) -> Void)? = nil) async throws -> Report {
        let (rebuilt, events) = try await fold(progress: progress)
        progress?(Progress(events: events, totalEvents: events, phase: .comparing(documents: rebuilt.count)))
        return try await compare(rebuilt, foldedEvents: events)
    }

    /// Compares `rebuilt`, folded from `foldedEvents` events, with the live read models: the second
    /// half of `check`.
    func compare(_ rebuilt: [ProjectionDocument], foldedEvents events: Int) async throws -> Report {
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
            if !same {
                differences.append(Difference(
                    model: document.model, key: document.key, kind: .changed, paths: Difference.differingPaths(current, document.data)
                ))
            }
        }
        for document in live where !seen.contains("\(document.model)\u{0}\(document.key)") {
            differences.append(Difference(model: document.model, key: document.key, kind: .missingInRebuild))
        }
        differences.sort { ($0.model, $0.key) < ($1.model, $1.key) }
        // Counted after the live read models were read, so every event they can reflect is counted.
        let stored = try await store.eventCount()
        return Report(events: events, documents: rebuilt.count, differences: differences, appendedSinceFold: max(0, stored - events))
    }
}
