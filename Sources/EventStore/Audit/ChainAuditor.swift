import Foundation

/// Checks hash chains from rows ordered by stream and version; shared by both adapters.
struct ChainAuditor {
    private var streams = 0
    private var events = 0
    private var breaks: [ChainBreak] = []
    private var current: (stream: String, version: Int64, hash: Data, head: StreamHead?, broken: Bool)?
    private let totalEvents: Int
    private let progress: (@Sendable (AuditProgress) -> Void)?
    /// The checkpoint audited against, and the intact streams' heads as found (the next one).
    private let expected: AuditCheckpoint
    private var found = AuditCheckpoint()
    /// Streams the walk reported a break for, so the checkpoint does not report them twice.
    private var brokenStreams: Set<String> = []

    init(totalEvents: Int, progress: (@Sendable (AuditProgress) -> Void)?, against expected: AuditCheckpoint = AuditCheckpoint()) {
        self.totalEvents = totalEvents
        self.progress = progress
        self.expected = expected
    }

    mutating func check(_ row: ChainRow) {
        let event = row.event
        enter(stream: event.streamID, head: row.head)
        guard var state = current, !state.broken else { return }
        defer { current = state }
        guard state.head != nil else {
            record(event.streamID, event.streamVersion, event.position, .headMissing, &state)
            return
        }
        guard event.streamVersion == state.version + 1 else {
            record(event.streamID, event.streamVersion, event.position, .versionGap, &state)
            return
        }
        guard EventHasher.hash(previous: state.hash, event) == event.hash else {
            record(event.streamID, event.streamVersion, event.position, .hashMismatch, &state)
            return
        }
        if let entry = expected.streams[event.streamID], entry.version == event.streamVersion, entry.hash != event.hash {
            record(event.streamID, event.streamVersion, event.position, .checkpointMismatch, &state)
            return
        }
        state.version = event.streamVersion
        state.hash = event.hash
    }

    /// A row of stream `stream` whose other columns cannot be read as an event (a value of the wrong
    /// type or form, written behind the schema's back): its link is broken, and the walk goes on.
    mutating func unreadable(stream: String, version: Int64, position: Int64, head: StreamHead?) {
        enter(stream: stream, head: head)
        guard var state = current, !state.broken else { return }
        record(stream, version, position, .unreadableRow, &state)
        current = state
    }

    /// Counts a row of `stream`, starting the stream's walk when it is a new one.
    private mutating func enter(stream: String, head: StreamHead?) {
        if current?.stream != stream {
            finishStream()
            streams += 1
            current = (stream, 0, EventHasher.genesis, head, false)
        } else if let head {
            // A stream read over two pages: the later page's head was read with its events, so it
            // covers every event walked; the earlier page's would miss those appended between the
            // reads and report a head_mismatch on intact history.
            current?.head = head
        }
        events += 1
        if events % 10_000 == 0 {
            progress?(AuditProgress(events: events, streams: streams, totalEvents: totalEvents))
        }
    }

    private mutating func record(
        _ stream: String, _ version: Int64, _ position: Int64, _ reason: ChainBreak.Reason,
        _ state: inout (stream: String, version: Int64, hash: Data, head: StreamHead?, broken: Bool)
    ) {
        breaks.append(ChainBreak(streamID: stream, streamVersion: version, position: position, reason: reason))
        brokenStreams.insert(stream)
        state.broken = true
    }

    private mutating func finishStream() {
        guard let state = current, !state.broken, let head = state.head else { return }
        if head.version != state.version || head.hash != state.hash {
            breaks.append(ChainBreak(streamID: state.stream, streamVersion: state.version, position: 0, reason: .headMismatch, headVersion: head.version))
            brokenStreams.insert(state.stream)
            return
        }
        found.streams[state.stream] = AuditCheckpoint.Entry(version: state.version, hash: state.hash)
    }

    /// A stream head whose events are all gone (the walk, which goes by events, never reaches it).
    mutating func headWithoutEvents(stream: String, version: Int64) {
        streams += 1
        breaks.append(ChainBreak(streamID: stream, streamVersion: 0, position: 0, reason: .eventsMissing, headVersion: version))
        brokenStreams.insert(stream)
    }

    /// The report, once every event and every head without events has been checked.
    mutating func finish() -> AuditReport {
        finishStream()
        current = nil
        // A stream of the checkpoint that now ends before its recorded version, or is gone: its
        // events from there on were removed (with its head, or the walk would have said so).
        for (stream, entry) in expected.streams where !brokenStreams.contains(stream) {
            let now = found.streams[stream]?.version ?? 0
            if now < entry.version {
                breaks.append(ChainBreak(streamID: stream, streamVersion: now, position: 0, reason: .checkpointMissing, headVersion: entry.version))
            }
        }
        progress?(AuditProgress(events: events, streams: streams, totalEvents: totalEvents))
        return AuditReport(
            streams: streams, events: events, breaks: breaks.sorted { ($0.streamID, $0.streamVersion) < ($1.streamID, $1.streamVersion) },
            checkpoint: found
        )
    }
}
