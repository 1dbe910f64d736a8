@testable import EventStore
import EventStoreTesting
import Foundation
import PostgresNIO
import Testing

/// A prepared statement keeps its generic plan, and the plan is made while the tables are small (a new
/// database, the first minute of a deployment). The batched statements (the multi-stream append and
/// the batched entitlement read) must look rows up through the indexes even then; a scan of `events`
/// or `streams` per batch made ingest slow down as the tables grew.
@Suite("PostgreSQL: generic plans of the batched statements")
struct PostgresPlanTests {
    @Test(.enabled(if: TestDatabases.dialects.contains(.postgres)))
    func theGenericPlansLookEveryRowUpThroughAnIndex() async throws {
        try await withFreshStore(.postgres) { (fixture: StoreFixture) async throws in
            let raw = try #require(fixture.rawPostgres)
            let statements: [(name: String, sql: String, parameters: Int)] = [
                ("lock_heads_and_documents", PostgresSQL.lockHeadsAndDocuments, 4),
                ("append_to_streams", PostgresSQL.appendToStreams, 16),
                ("documents_with_related", PostgresSQL.documentsWithRelated, 4),
            ]
            for statement in statements {
                let plan = try await Self.genericPlan(of: statement.sql, named: statement.name, parameters: statement.parameters, in: fixture, raw)
                #expect(!plan.contains("Seq Scan"), "\(statement.name):\n\(plan)")
                #expect(plan.contains("Index"), "\(statement.name):\n\(plan)")
            }
        }
    }

    /// Each batch of entitlement reads finds its users' documents once, for the documents and for the
    /// chains they name (an older statement's plan had two `key = ANY` lookups), and each named chain
    /// once: a filter on the chain's lookup that the planner copies would be a second lookup per name.
    @Test(.enabled(if: TestDatabases.dialects.contains(.postgres)))
    func theBatchedReadLooksItsUsersAndTheirChainsUpOnce() async throws {
        try await withFreshStore(.postgres) { (fixture: StoreFixture) async throws in
            let raw = try #require(fixture.rawPostgres)
            let plan = try await Self.genericPlan(of: PostgresSQL.documentsWithRelated, named: "documents_with_related", parameters: 4, in: fixture, raw)
            let userLookups = plan.components(separatedBy: "key = ANY").count - 1
            #expect(userLookups == 1, "\(plan)")
            let chainLookups = plan.components(separatedBy: "key = n.key").count - 1
            #expect(chainLookups == 1, "\(plan)")
        }
    }

    /// The text of `EXPLAIN EXECUTE` for `sql` prepared under `force_generic_plan`, every parameter null.
    private static func genericPlan(of sql: String, named name: String, parameters: Int, in fixture: StoreFixture, _ raw: PostgresClient) async throws -> String {
        try await raw.withConnection { connection in
            try await connection.query(PostgresQuery(unsafeSQL: "SET search_path TO \(fixture.location)"), logger: TestDatabases.logger)
            try await connection.query("SET plan_cache_mode = force_generic_plan", logger: TestDatabases.logger)
            try await connection.query(PostgresQuery(unsafeSQL: "PREPARE \(name) AS \(sql)"), logger: TestDatabases.logger)
            let nulls = Array(repeating: "NULL", count: parameters).joined(separator: ", ")
            let rows = try await connection.query(PostgresQuery(unsafeSQL: "EXPLAIN EXECUTE \(name)(\(nulls))"), logger: TestDatabases.logger)
            var lines: [String] = []
            for try await line in rows.decode(String.self) { lines.append(line) }
            return lines.joined(separator: "\n")
        }
    }

    /// The batched read of 80 users is estimated above `jit_above_cost`, and PostgreSQL spent
    /// milliseconds compiling each one: the store's connections run without JIT.
    @Test(.enabled(if: TestDatabases.dialects.contains(.postgres)))
    func theStoresConnectionsDoNotCompileWithJIT() async throws {
        try await withFreshStore(.postgres) { (fixture: StoreFixture) async throws in
            let store = try #require(fixture.store as? PostgresEventStore)
            let jit = try await store.client.withConnection { connection in
                var settings: [String] = []
                for try await value in try await connection.query("SHOW jit", logger: TestDatabases.logger).decode(String.self) {
                    settings.append(value)
                }
                return settings
            }
            #expect(jit == ["off"])
        }
    }
}
