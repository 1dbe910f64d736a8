import AppStore
import EventStore
import Foundation

/// An audit checkpoint as a file: each intact stream's version and head hash (hex), with the
/// database and the build that wrote it. `audit verify --write-checkpoint` writes one and
/// `--checkpoint` checks against one, so it can be kept where the database's operators cannot
/// change it.
struct CheckpointFile: Codable, Sendable {
    /// One stream's entry.
    struct Stream: Codable, Sendable {
        var version: Int64
        var hash: String
    }

    static let currentFormat = "subledger-audit-checkpoint-1"

    var format: String
    var database: String
    var written_at: String
    var subledger: String
    var events: Int
    var streams: [String: Stream]

    init(_ checkpoint: AuditCheckpoint, database: String, events: Int, at date: Date) {
        format = Self.currentFormat
        self.database = database
        written_at = date.formatted(.iso8601)
        subledger = SubledgerVersion.current
        self.events = events
        streams = checkpoint.streams.mapValues { Stream(version: $0.version, hash: Hex.string($0.hash)) }
    }

    /// The checkpoint the file holds, or why it is not one.
    func checkpoint() throws(Unreadable) -> AuditCheckpoint {
        guard format == Self.currentFormat else { throw Unreadable(reason: "its format is \(format), not \(Self.currentFormat)") }
        var entries: [String: AuditCheckpoint.Entry] = [:]
        for (stream, entry) in streams {
            guard entry.version > 0, let hash = Hex.bytes(entry.hash), hash.count == 32 else {
                throw Unreadable(reason: "the entry of stream \(stream) is not a version above 0 and a 64-digit hex hash")
            }
            entries[stream] = AuditCheckpoint.Entry(version: entry.version, hash: hash)
        }
        return AuditCheckpoint(streams: entries)
    }

    /// Reads the file at `path`.
    static func read(_ path: String) throws(Unreadable) -> CheckpointFile {
        guard let data = FileManager.default.contents(atPath: path) else { throw Unreadable(reason: "it does not exist or is not readable") }
        do {
            return try JSONDecoder().decode(CheckpointFile.self, fromUntrusted: data)
        } catch {
            throw Unreadable(reason: "it is not a checkpoint that audit verify --write-checkpoint writes")
        }
    }

    /// Writes the file to `path`, keys sorted, so two checkpoints of the same ledger compare equal.
    func write(to path: String) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        try encoder.encode(self).write(to: URL(fileURLWithPath: path))
    }

    /// Why a checkpoint file cannot be read.
    struct Unreadable: Error, Sendable {
        var reason: String
    }
}
