import EventStore

/// Adds the reason to a "no PostgreSQL connection" failure of a command: the pool reports only that
/// none came in time, which reads as "down" when the server is up and refusing a wrong password or
/// an unknown database.
enum StorageDiagnosis {
    /// `error` with what one direct connection attempt to `url` found, when `error` is a PostgreSQL
    /// store that could not be reached; otherwise `error` unchanged.
    static func explain(_ error: any Error, url: DatabaseURL) async -> any Error {
        guard let failure = error as? EventStoreError, failure.code == .storageUnavailable, case .postgres(let settings) = url,
              let problem = await PostgresEventStore.probe(settings) else {
            return error
        }
        return EventStoreError(.storageUnavailable, "\(failure.message); connecting to \(settings.host):\(settings.port) directly: \(problem)")
    }
}
