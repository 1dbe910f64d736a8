/// A typed failure of the event store, with a stable machine code and a human message.
///
/// Modelled on swift-certificates' `CertificateError`: a struct with an extensible `Code`, so new codes
/// do not break callers, and tests and the HTTP layer compare codes rather than messages.
public struct EventStoreError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The stable reason for the failure.
    public var code: Code
    /// What went wrong, for people; may name the stream, key or file involved.
    public var message: String
    /// Where the error was made.
    public var location: String

    /// Creates an error, capturing where it was made.
    public init(_ code: Code, _ message: String, file: String = #fileID, line: Int = #line) {
        self.code = code
        self.message = message
        self.location = "\(file):\(line)"
    }

    public var description: String { "\(code): \(message)" }

    /// A stable snake_case identifier for a kind of failure.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        /// The snake_case text of the code, as it appears in logs and problem+json bodies.
        public let rawValue: String

        private init(_ rawValue: String) { self.rawValue = rawValue }

        public var description: String { rawValue }

        /// The stream was not at the expected version: someone else appended first.
        public static let versionConflict = Code("version_conflict")
        /// The event is malformed (for example its data is not a JSON object).
        public static let invalidEvent = Code("invalid_event")
        /// The database could not be reached or failed in a way a retry may fix.
        public static let storageUnavailable = Code("storage_unavailable")
        /// An already applied migration file has changed since it was applied.
        public static let migrationChecksumMismatch = Code("migration_checksum_mismatch")
        /// The database has migrations this build does not know: it is newer than the code.
        public static let unknownMigration = Code("unknown_migration")
        /// A checkpoint was not at the cursor the caller expected: another projector moved it.
        public static let checkpointConflict = Code("checkpoint_conflict")
        /// The database URL is not `sqlite:PATH` or `postgres://...`.
        public static let invalidDatabaseURL = Code("invalid_database_url")
        /// A concurrent writer won a race (a duplicate key, a serialisation failure); retrying may succeed.
        public static let writeRace = Code("write_race")
        /// The database refused a statement for a reason that is not transient.
        public static let databaseError = Code("database_error")
        /// Events were appended after a rebuild's fold read the history, so its read models would
        /// miss them and were not swapped in.
        public static let rebuildOutdated = Code("rebuild_outdated")
        /// A rebuild's swap did not get the read models' lock: a long transaction held them. Nothing
        /// was changed; every other request would have queued behind a longer wait.
        public static let rebuildBlocked = Code("rebuild_blocked")
    }
}

extension EventStoreError {
    /// A rebuild folded `folded` events, but the store holds `stored` when the swap would start.
    static func rebuildOutdated(stored: Int, folded: Int, file: String = #fileID, line: Int = #line) -> EventStoreError {
        let message = stored > folded
            ? "\(stored - folded) event(s) were appended after the rebuild's fold read the history (is another process, such as subledger serve, ingesting into this database?); the rebuilt read models would miss them, so nothing was changed: stop ingestion and rebuild again"
            : "the store holds \(stored) events, fewer than the \(folded) the rebuild folded: events were deleted, which the ledger never does; nothing was changed"
        return EventStoreError(.rebuildOutdated, message, file: file, line: line)
    }
}
