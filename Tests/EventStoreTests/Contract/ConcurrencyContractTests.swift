import EventStore
import EventStoreTesting
import Foundation
import Testing

@Suite("Event store contract: concurrent writers")
struct ConcurrencyContractTests {
    @Test(arguments: TestDatabases.dialects)
    func exactlyOneWriterWinsEachVersion(_ dialect: StorageDialect) async throws {
        try await withFreshStore(dialect) { (fixture: StoreFixture) async throws in
            let outcomes = try await withThrowingTaskGroup(of: Bool.self) { group in
                for _ in 0..<16 {
                    group.addTask {
                        do {
                            _ = try await fixture.store.append(to: "race", event(), expectedVersion: .noStream)
                            return true
                        } catch let error as EventStoreError where error.code == .versionConflict {
                            return false
                        }
                    }
                }
                var outcomes: [Bool] = []
                for try await outcome in group { outcomes.append(outcome) }
                return outcomes
            }
            #expect(outcomes.filter { $0 }.count == 1)
            #expect(try await fixture.store.readStream("race").count == 1)
        }
    }

    @Test(arguments: TestDatabases.dialects)
    func concurrentAppendsToOneStreamLoseNothingAndLeaveNoGaps(_ dialect: StorageDialect) async throws {
        try await withFreshStore(dialect) { (fixture: StoreFixture) async throws in
            let writers = 16
            let perWriter = 4
            let conflicts = try await withThrowingTaskGroup(of: Int.self) { group in
                for writer in 0..<writers {
                    group.addTask {
                        var conflicts = 0
                        for index in 0..<perWriter {
                            let next = event("w", ["writer": writer, "index": index])
                            // Optimistic concurrency as a client does it: read, append at that version, retry.
                            while true {
                                let version = try await fixture.store.streamVersion("shared")
                                do {
                                    _ = try await fixture.store.append(to: "shared", next, expectedVersion: .exact(version))
                                    break
                                } catch let error as EventStoreError where error.code == .versionConflict {
                                    conflicts += 1
                                }
                            }
                        }
                        return conflicts
                    }
                }
                var total = 0
                for try await conflicts in group { total += conflicts }
                return total
            }
            let events = try await fixture.store.readStream("shared")
            #expect(events.count == writers * perWriter)
            #expect(events.map(\.streamVersion) == (1...Int64(writers * perWriter)).map { $0 })
            let written = Set(events.compactMap { event -> String? in
                guard let body = try? JSONSerialization.jsonObject(with: event.data) as? [String: Int] else { return nil }
                return "\(body["writer"] ?? -1)-\(body["index"] ?? -1)"
            })
            #expect(written.count == writers * perWriter)
            let report = try await fixture.store.audit(progress: nil)
            #expect(report.isIntact)
            _ = conflicts
        }
    }

    @Test(arguments: TestDatabases.dialects)
    func concurrentAppendsWithAnyVersionAllLand(_ dialect: StorageDialect) async throws {
        try await withFreshStore(dialect) { (fixture: StoreFixture) async throws in
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<32 {
                    group.addTask {
                        _ = try await fixture.store.append(to: "any", event("e", ["i": index]), expectedVersion: .any)
                    }
                }
                try await group.waitForAll()
            }
            let events = try await fixture.store.readStream("any")
            #expect(events.map(\.streamVersion) == (1...32).map { Int64($0) })
            #expect(try await fixture.store.audit(progress: nil).isIntact)
        }
    }
}
