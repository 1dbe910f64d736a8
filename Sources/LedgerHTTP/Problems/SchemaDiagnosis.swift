import EventStore

/// Tells a store failure caused by a schema behind this build from any other store fault.
///
/// Started with `--no-migrate` before the migrate job has run, every request that reaches the
/// database failed as 500 `storage_error` with SQL's own words ("no such table"). That is an
/// expected, passing state: it is answered as `/ready` answers it, 503 `storage_unavailable`
/// naming the missing migrations, so Apple retries and the operator sees what to run. Checked only
/// when a request has already failed, so an answered request pays nothing for it.
public struct SchemaDiagnosis: Sendable {
    let store: any EventStore

    /// Creates the diagnosis for a store.
    public init(store: any EventStore) {
        self.store = store
    }

    /// `problem`, or the schema's own problem when `problem` is a store fault and the database
    /// lacks migrations this build needs.
    func refine(_ problem: Problem) async -> Problem {
        guard problem.code == "storage_error" else { return problem }
        guard let pending = try? await store.pendingMigrations(waitingAtMost: HealthRoutes.readinessWait), !pending.isEmpty else {
            return problem
        }
        return .schemaBehind(pending, dialect: store.dialect)
    }
}
