@testable import EventStore
import Foundation
import Testing

@Suite("Event store building blocks")
struct EventStoreUnitTests {
    @Test func canonicalJSONSortsKeysAndDropsWhiteSpaceWhateverTheInputLayout() throws {
        let a = try CanonicalJSON.canonicalize(Data(#"{ "b": 1, "a": {"y": [1, 2], "x": "\u00e9\/"} }"#.utf8))
        let b = try CanonicalJSON.canonicalize(Data(#"{"a":{"x":"é/","y":[1,2]},"b":1}"#.utf8))
        #expect(a == b)
        #expect(String(decoding: a, as: UTF8.self) == #"{"a":{"x":"é/","y":[1,2]},"b":1}"#)
        #expect(try CanonicalJSON.canonicalize(a) == a)
    }

    @Test(arguments: ["", "nope", "[1]", "\"text\"", "{\"a\":"])
    func canonicalJSONRejectsWhatIsNotAnObject(_ text: String) {
        #expect(throws: EventStoreError.self) { try CanonicalJSON.canonicalize(Data(text.utf8)) }
    }

    @Test func hashChainsDependOnEveryField() {
        let base = EventHasher.Fields(
            eventID: UUID(), streamID: "s", streamVersion: 1, type: "t", schemaVersion: 1,
            recordedAtMicros: 1, dedupeKey: nil, data: Data("{}".utf8), metadata: Data("{}".utf8)
        )
        let reference = EventHasher.hash(previous: EventHasher.genesis, base)
        var variants: [EventHasher.Fields] = []
        var changed = base; changed.eventID = UUID(); variants.append(changed)
        changed = base; changed.streamID = "s2"; variants.append(changed)
        changed = base; changed.streamVersion = 2; variants.append(changed)
        changed = base; changed.type = "u"; variants.append(changed)
        changed = base; changed.schemaVersion = 2; variants.append(changed)
        changed = base; changed.recordedAtMicros = 2; variants.append(changed)
        changed = base; changed.dedupeKey = ""; variants.append(changed)
        changed = base; changed.data = Data(#"{"a":1}"#.utf8); variants.append(changed)
        changed = base; changed.metadata = Data(#"{"a":1}"#.utf8); variants.append(changed)
        // One variant a field: a field added to the hash without one here fails this count.
        #expect(variants.count == Mirror(reflecting: base).children.count)
        for variant in variants {
            #expect(EventHasher.hash(previous: EventHasher.genesis, variant) != reference)
        }
        #expect(EventHasher.hash(previous: Data(repeating: 1, count: 32), base) != reference)
        #expect(EventHasher.hash(previous: EventHasher.genesis, base) == reference)
    }

    /// Pins the stored hash format: SHA-256 of the previous hash, the tag `subledger-event-v1`, then
    /// each field length-prefixed (UInt32 big-endian). The expected digests were computed outside
    /// Swift (Python's hashlib) from the same bytes; a change here breaks every stored chain.
    @Test func hashesMatchTheDocumentedCanonicalEncoding() throws {
        let eventID = try #require(UUID(uuidString: "6F1C1D1E-0000-4000-8000-00000000ABCD"))
        var fields = EventHasher.Fields(
            eventID: eventID, streamID: "subscription-2000000123", streamVersion: 3, type: "apple.notification.v2",
            schemaVersion: 1, recordedAtMicros: 1_735_000_000_123_456, dedupeKey: "notification:abc",
            data: Data(("{\"raw\":\"" + String(repeating: "x", count: 5000) + "\"}").utf8), metadata: Data(#"{"source":"test"}"#.utf8)
        )
        let previous = Data(repeating: 7, count: 32)
        #expect(Hex.string(EventHasher.hash(previous: previous, fields)) == "cafed0e0528c1abe7c595076f40f1af572272f5bb94998750c267d4d930e0977")
        fields.dedupeKey = nil
        #expect(Hex.string(EventHasher.hash(previous: previous, fields)) == "3f6f808d8524b0bf77c136171f1dc43b7c298f670ce6ed7735babcc9039239d8")
    }

    @Test func cursorsRoundTripThroughTextAndOrderByTransactionThenPosition() {
        let cursor = EventCursor(transaction: 900, position: 12)
        #expect(EventCursor(cursor.description) == cursor)
        #expect(EventCursor("42") == EventCursor(transaction: 0, position: 42))
        #expect(EventCursor(transaction: 1, position: 99) < EventCursor(transaction: 2, position: 1))
        for bad in ["", "-", "a-1", "1-b", "1-2-3", "-5", "+1-2", "1-+2", "+7", " 1-2", "1-2 ", "١-٢"] {
            #expect(EventCursor(bad) == nil, "\(bad) should not parse")
        }
    }

    @Test func databaseURLsParseBothDialectsAndNameWhatIsWrong() throws {
        #expect(try DatabaseURL("sqlite:data/ledger.sqlite") == .sqlite(path: "data/ledger.sqlite"))
        guard case .postgres(let settings) = try DatabaseURL("postgres://app:s%40cret@db.local:6432/ledger?pool_size=4&sslmode=require&read_batches=3&acquire_timeout=12") else {
            Issue.record("not parsed as postgres")
            return
        }
        #expect(settings.host == "db.local")
        #expect(settings.port == 6432)
        #expect(settings.username == "app")
        #expect(settings.password == "s@cret")
        #expect(settings.database == "ledger")
        #expect(settings.poolSize == 4)
        #expect(settings.readBatchesInFlight == 3)
        #expect(settings.acquireTimeout == .seconds(12))
        #expect(try PostgresSettings(url: "postgres://h/db").acquireTimeout == .seconds(5))
        #expect(settings.tls == .require)
        #expect(!settings.description.contains("cret"))
        for bad in ["mysql://x", "sqlite:", "postgres://h/db?pool_size=0", "postgres://h/db?colour=blue", "postgres://h/db?sslmode=maybe", "postgres://h/db?read_batches=0",
                    "postgres://h/db?acquire_timeout=0", "postgres://h/db?acquire_timeout=1.5"] {
            #expect(throws: EventStoreError.self, "\(bad)") { try DatabaseURL(bad) }
        }
    }

    /// A URL without a host says so, rather than blaming a password it does not have.
    @Test func aURLWithoutAHostSaysSo() {
        #expect {
            try DatabaseURL("postgres:///db")
        } throws: { error in
            (error as? EventStoreError)?.message == "PostgreSQL URL postgres:///db names no host: postgres://user@host:port/database"
        }
    }

    /// A URL that cannot be read is quoted in the error; its password must not be, nor any piece of
    /// it on either side of the character that breaks the URL's syntax (`URLComponents` would read
    /// the piece after it as a host, a port, a query or a fragment).
    @Test(arguments: ["postgres://u:Kq/Vz@h/db", "postgres://u:Kq#Vz@h/db", "postgres://u:Kq?Vz@h/db", "postgres://u:12/34@h/db",
                      "postgres://u:12#34@h/db", "postgres://u:12?34@h/db", "postgres://u:Kq Vz@h:x/db", "mysql://u:KqVz@h/db",
                      "postgres://u:12?sslrootcert=/Wy@h/db", "postgres://u:Kq?sslrootcert=/Wy@h/db"])
    func aURLThatCannotBeReadIsQuotedWithoutItsPassword(_ url: String) {
        let secret = url.split(separator: ":")[2].split(separator: "@")[0]
        let pieces = secret.split(whereSeparator: { "/#? =".contains($0) }).filter { $0 != "sslrootcert" }
        do {
            _ = try DatabaseURL(url)
            Issue.record("\(url) was read")
        } catch {
            #expect(!"\(error)".contains(secret), "\(error)")
            for piece in pieces {
                #expect(!"\(error)".contains(piece), "\(piece) in \(error)")
            }
        }
    }

    /// A password with an unescaped `@` followed by a `/`, `?` or `#` was quoted from that `@` on:
    /// `URLComponents` then ends the user information at it and reads the rest of the password as
    /// the host. (An option's value may hold a `/`, so `sslrootcert` in a broken password is tried too.)
    @Test(arguments: [("postgres://u:ab@cdSECRET/ef@h/db", "cdSECRET"), ("postgres://u:ab@cdSECRET?x@h/db", "cdSECRET"),
                      ("postgres://u:ab@cdSECRET#x@h/db", "cdSECRET"), ("postgres://u:ab@SECRET?sslrootcert=/x@h/db", "SECRET")])
    func aPasswordWithAnAtSignIsQuotedWithNoneOfIt(_ url: String, _ secret: String) {
        #expect(!DatabaseURL.redacted(url).contains(secret), "\(DatabaseURL.redacted(url))")
        #expect(!DatabaseURL.redacted(url).contains("ab"), "\(DatabaseURL.redacted(url))")
        do {
            _ = try DatabaseURL(url)
            Issue.record("\(url) was read")
        } catch {
            #expect(!"\(error)".contains(secret), "\(error)")
        }
    }

    /// `sslrootcert` names the roots the server's certificate must chain to (a hosted database's own
    /// CA); a path that is not PEM, or one given without TLS, is refused when the URL is read.
    @Test func sslrootcertIsReadWhenTheURLIsAndOnlyWithTLS() throws {
        let tests = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let pem = tests.appendingPathComponent("AppStoreTests/Fixtures/test_pki/testCA.pem").path
        let settings = try PostgresSettings(url: "postgres://app@db.local/ledger?sslmode=require&sslrootcert=\(pem)")
        #expect(settings.tlsRootCertificates == pem)
        #expect(settings.tlsConfiguration.trustRoots == .file(pem))
        #expect(try PostgresSettings(url: "postgres://app@db.local/ledger?sslmode=require").tlsConfiguration.trustRoots == .default)
        let der = tests.appendingPathComponent("AppStoreTests/Fixtures/test_pki/testCA.der").path
        for (url, message) in [
            ("postgres://h/db?sslmode=require&sslrootcert=/no/such/file.pem", "sslrootcert /no/such/file.pem cannot be read as PEM certificates"),
            ("postgres://h/db?sslmode=require&sslrootcert=\(der)", "sslrootcert \(der) cannot be read as PEM certificates"),
            ("postgres://h/db?sslrootcert=\(pem)", "sslrootcert needs sslmode=require"),
        ] {
            do {
                _ = try PostgresSettings(url: url)
                Issue.record("\(url) was read")
            } catch {
                #expect("\(error)".contains(message), "\(error)")
            }
        }
    }

    /// The connections name themselves in `pg_stat_activity`, `subledger` unless the URL says.
    @Test func applicationNameIsSubledgerUnlessTheURLNamesOne() throws {
        let named = { (url: String) throws -> String? in
            PostgresEventStore.startupParameters(try PostgresSettings(url: url)).first { $0.0 == "application_name" }?.1
        }
        #expect(try named("postgres://h/db") == "subledger")
        #expect(try named("postgres://h/db?application_name=ledger-eu") == "ledger-eu")
        for bad in ["", String(repeating: "x", count: 64), "caf%C3%A9"] {
            #expect("\(bad)") { try PostgresSettings(url: "postgres://h/db?application_name=\(bad)") } throws: { error in
                "\(error)".contains("application_name must be 1 to 63 printable ASCII characters")
            }
        }
    }

    /// A URL that can be read keeps its user name when quoted, and only the password is hidden. A
    /// password holding an `@` and none of `/`, `?`, `#` reads whole, and is hidden whole.
    @Test func aReadableURLIsQuotedWithItsUserName() throws {
        #expect(DatabaseURL.redacted("postgres://app:s3cret@db.local:6432/ledger?pool_size=0") == "postgres://app:***@db.local:6432/ledger?pool_size=0")
        let settings = try PostgresSettings(url: "postgres://u:ab@cd@h/db")
        #expect(settings.password == "ab@cd" && settings.host == "h" && settings.database == "db")
        #expect(!DatabaseURL.redacted("postgres://u:ab@cd@h/db?pool_size=0").contains("ab"))
        #expect(!DatabaseURL.redacted("postgres://u:ab@cd@h/db?pool_size=0").contains("cd"))
    }

    /// The audit reads in pages: a stream whose events run over two pages, with an append between
    /// the reads, shows a newer head on the second page. That is intact history, not a mismatch;
    /// a head behind the events walked still is one.
    @Test func anAuditSeesAHeadThatMovedBetweenItsPagesAsIntact() {
        var hash = EventHasher.genesis
        var events: [RecordedEvent] = []
        for version in Int64(1)...3 {
            let fields = EventHasher.Fields(
                eventID: UUID(), streamID: "s", streamVersion: version, type: "t", schemaVersion: 1,
                recordedAtMicros: version, dedupeKey: nil, data: Data("{}".utf8), metadata: Data("{}".utf8)
            )
            hash = EventHasher.hash(previous: hash, fields)
            events.append(RecordedEvent(
                cursor: EventCursor(transaction: 0, position: version), eventID: fields.eventID, streamID: "s", streamVersion: version,
                type: "t", schemaVersion: 1, data: fields.data, metadata: fields.metadata,
                recordedAt: Date(timeIntervalSince1970: Double(version) / 1_000_000), dedupeKey: nil, hash: hash
            ))
        }
        let headAt2 = StreamHead(version: 2, hash: events[1].hash)
        let headAt3 = StreamHead(version: 3, hash: events[2].hash)

        var moved = ChainAuditor(totalEvents: 3, progress: nil)
        moved.check(ChainRow(event: events[0], head: headAt2))
        moved.check(ChainRow(event: events[1], head: headAt2))
        moved.check(ChainRow(event: events[2], head: headAt3))
        #expect(moved.finish().isIntact)

        var behind = ChainAuditor(totalEvents: 3, progress: nil)
        for event in events { behind.check(ChainRow(event: event, head: headAt2)) }
        let lagging = behind.finish().breaks
        #expect(lagging.map(\.reason) == [.headMismatch])
        #expect(lagging.first?.description == "stream s: head_mismatch (its events end at version 3, its head says version 2)")

        // The versions agree and only the hash differs: said so, not "version 3 or another hash".
        var rehashed = ChainAuditor(totalEvents: 3, progress: nil)
        let wrongHash = StreamHead(version: 3, hash: Data(repeating: 0, count: 32))
        for event in events { rehashed.check(ChainRow(event: event, head: wrongHash)) }
        #expect(rehashed.finish().breaks.first?.description
            == "stream s: head_mismatch (its events end at version 3, as its head says, but the head holds another hash than its last event's)")
    }

    /// Against a checkpoint: events appended since pass; an event at the recorded version with
    /// another hash (history re-hashed) and a stream that ends before the recorded version, or is
    /// gone, are found; the report's own checkpoint holds the intact streams' heads.
    @Test func anAuditAgainstACheckpointFindsRehashedAndRemovedHistory() {
        func chain(_ stream: String, _ count: Int64, data: String = "{}") -> [RecordedEvent] {
            var hash = EventHasher.genesis
            return (1...count).map { version in
                let fields = EventHasher.Fields(
                    eventID: UUID(), streamID: stream, streamVersion: version, type: "t", schemaVersion: 1,
                    recordedAtMicros: version, dedupeKey: nil, data: Data(data.utf8), metadata: Data("{}".utf8)
                )
                hash = EventHasher.hash(previous: hash, fields)
                return RecordedEvent(
                    cursor: EventCursor(transaction: 0, position: version), eventID: fields.eventID, streamID: stream, streamVersion: version,
                    type: "t", schemaVersion: 1, data: fields.data, metadata: fields.metadata,
                    recordedAt: Date(timeIntervalSince1970: Double(version) / 1_000_000), dedupeKey: nil, hash: hash
                )
            }
        }
        func audit(_ streams: [[RecordedEvent]], against checkpoint: AuditCheckpoint = AuditCheckpoint()) -> AuditReport {
            var auditor = ChainAuditor(totalEvents: streams.joined().count, progress: nil, against: checkpoint)
            for events in streams {
                let head = events.last.map { StreamHead(version: $0.streamVersion, hash: $0.hash) }
                for event in events { auditor.check(ChainRow(event: event, head: head)) }
            }
            return auditor.finish()
        }
        let a = chain("a", 3), b = chain("b", 2), c = chain("c", 1)
        let first = audit([Array(a.prefix(2)), b, c])
        #expect(first.isIntact)
        #expect(first.checkpoint.streams["a"] == AuditCheckpoint.Entry(version: 2, hash: a[1].hash))
        #expect(first.checkpoint.streams.count == 3)
        // Grown since: intact.
        #expect(audit([a, b, c], against: first.checkpoint).isIntact)
        // Stream a rewritten with other data and hashed again; b cut to one event; c gone.
        let rewritten = audit([chain("a", 3, data: #"{"forged":true}"#), Array(b.prefix(1))], against: first.checkpoint)
        #expect(rewritten.breaks.map(\.reason) == [.checkpointMismatch, .checkpointMissing, .checkpointMissing])
        #expect(rewritten.breaks.map(\.description) == [
            "stream a version 2 (position 2): checkpoint_mismatch (its hash is not the one the checkpoint recorded: history up to there was changed)",
            "stream b: checkpoint_missing (the checkpoint recorded version 2; the stream now ends at version 1)",
            "stream c: checkpoint_missing (the checkpoint recorded version 1; the stream is gone)",
        ])
        #expect(rewritten.checkpoint.streams["a"] == nil)
    }

    @Test func scriptSplitterKeepsTriggerBodiesWhole() {
        let script = """
            -- comment
            CREATE TABLE a (x INTEGER);
            CREATE TRIGGER t BEFORE UPDATE ON a
            BEGIN
                SELECT RAISE(ABORT, 'no');
            END;
            CREATE INDEX i ON a (x);
            """
        let statements = SQLScriptSplitter.statements(in: script)
        #expect(statements.count == 3)
        #expect(statements[1].contains("RAISE(ABORT, 'no');"))
        #expect(statements[1].hasSuffix("END;"))
    }

    @Test func shippedMigrationsAreNumberedFromOneWithoutGaps() throws {
        for dialect in StorageDialect.allCases {
            let migrations = try MigrationCatalog.migrations(for: dialect)
            #expect(!migrations.isEmpty)
            #expect(migrations.map(\.version) == Array(1...migrations.count))
        }
    }

    @Test func pendingMigrationsRejectEditedAndUnknownOnes() throws {
        let one = try Migration(name: "0001_a.sql", sql: "CREATE TABLE a (x int);")
        let two = try Migration(name: "0002_b.sql", sql: "CREATE TABLE b (x int);")
        let applied = AppliedMigration(version: 1, name: one.name, checksum: one.checksum)
        #expect(try MigrationCatalog.pending(shipped: [one, two], applied: [applied]) == [two])
        #expect(throws: EventStoreError.self) {
            try MigrationCatalog.pending(shipped: [one, two], applied: [AppliedMigration(version: 1, name: one.name, checksum: "x")])
        }
        #expect(throws: EventStoreError.self) {
            try MigrationCatalog.pending(shipped: [one], applied: [applied, AppliedMigration(version: 2, name: two.name, checksum: two.checksum)])
        }
        #expect(throws: EventStoreError.self) { try Migration(name: "add_things.sql", sql: "") }
    }

    @Test func appendPlanChecksTheVersionOnlyWhenSomethingIsNew() throws {
        let prepared = try PreparedEvent(NewEvent(type: "t", data: Data("{}".utf8), dedupeKey: "k"))
        let existing = AppendedEvent(eventID: UUID(), position: 3, streamID: "s", streamVersion: 1, isDuplicate: true)
        let head = StreamHead(version: 4, hash: Data(repeating: 7, count: 32))
        let duplicate = try AppendPlan(stream: "s", events: [prepared], expected: .exact(1), head: head, duplicates: ["k": existing], recordedAtMicros: 0)
        #expect(duplicate.rows.isEmpty)
        #expect(duplicate.result(positions: []).events == [existing])
        #expect(throws: EventStoreError.self) {
            try AppendPlan(stream: "s", events: [prepared], expected: .exact(1), head: head, duplicates: [:], recordedAtMicros: 0)
        }
        let fresh = try AppendPlan(stream: "s", events: [prepared], expected: .exact(4), head: head, duplicates: [:], recordedAtMicros: 0)
        #expect(fresh.newHead.version == 5)
        #expect(fresh.rows.first?.hash == fresh.newHead.hash)
    }

    @Test func changeSignalWakesWaitersAndTimesOut() async {
        let signal = ChangeSignal()
        let start = ContinuousClock.now
        await signal.wait(after: signal.generation, timeout: .milliseconds(50))
        #expect(ContinuousClock.now - start >= .milliseconds(50))

        let generation = signal.generation
        signal.notify()
        // A signal raised before the wait is not lost.
        let early = ContinuousClock.now
        await signal.wait(after: generation, timeout: .seconds(30))
        #expect(ContinuousClock.now - early < .seconds(5))

        // A waiter already waiting is woken, not left to its timeout.
        let current = signal.generation
        let waiting = ContinuousClock.now
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await signal.wait(after: current, timeout: .seconds(30)) }
            group.addTask {
                // Only once the waiter has suspended: a notify before would be the case above.
                try? await waitUntil("the waiter's suspension") { signal.suspendedCount > 0 }
                #expect(signal.suspendedCount == 1)
                signal.notify()
            }
        }
        #expect(signal.generation == current + 1)
        #expect(ContinuousClock.now - waiting < .seconds(5))
    }
}

@Suite("Migration scripts")
struct MigrationScriptTests {
    @Test func splitterKeepsDollarQuotedFunctionBodiesWhole() {
        let script = """
            CREATE TABLE a (x int);
            CREATE FUNCTION f() RETURNS trigger
            LANGUAGE plpgsql AS $$
            BEGIN
                RAISE EXCEPTION 'no';
            END
            $$;
            CREATE TRIGGER t BEFORE UPDATE ON a
                FOR EACH ROW EXECUTE FUNCTION f();
            """
        let statements = SQLScriptSplitter.statements(in: script)
        #expect(statements.count == 3)
        #expect(statements[1].hasSuffix("$$;"))
        #expect(statements[2].hasSuffix("f();"))
    }

    /// A checkout with CRLF line ends (Git's autocrlf) reads as the file as shipped: the same
    /// statements and the same checksum, so an applied migration is not "changed" and not skipped.
    @Test func aMigrationWithCRLFLineEndsReadsAsTheShippedFile() throws {
        for dialect in [StorageDialect.postgres, .sqlite] {
            let shipped = try MigrationCatalog.migrations(for: dialect)[0]
            let crlf = try Migration(name: shipped.name, sql: shipped.sql.replacingOccurrences(of: "\n", with: "\r\n"))
            #expect(crlf.checksum == shipped.checksum)
            #expect(SQLScriptSplitter.statements(in: crlf.sql) == SQLScriptSplitter.statements(in: shipped.sql))
        }
    }

    @Test func shippedMigrationsSplitIntoTheExpectedStatementCounts() throws {
        let postgres = try MigrationCatalog.migrations(for: .postgres)[0]
        let sqlite = try MigrationCatalog.migrations(for: .sqlite)[0]
        // Tables, index, functions and triggers as written in 0001_events.sql.
        #expect(SQLScriptSplitter.statements(in: postgres.sql).count == 8)
        #expect(SQLScriptSplitter.statements(in: sqlite.sql).count == 6)
    }
}

@Suite("Hex")
struct HexTests {
    @Test func hexTextIsLowercaseWithTwoDigitsPerByte() {
        #expect(Hex.string([0x00, 0x0f, 0xa5, 0xff]) == "000fa5ff")
        #expect(Hex.string([]) == "")
    }
}
