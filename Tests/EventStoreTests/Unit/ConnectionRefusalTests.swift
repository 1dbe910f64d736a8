@testable import EventStore
import Testing

/// Which answers to a connection attempt are the settings' fault (a command stops at once) and which
/// the moment's (it waits up to `acquire_timeout`).
@Suite("PostgreSQL answers that refuse the settings")
struct ConnectionRefusalTests {
    @Test(arguments: [
        ("28P01", true),  // password authentication failed
        ("28000", true),  // no such role, or pg_hba refuses the host
        ("3D000", true),  // no such database
        ("42501", true),  // no CONNECT privilege on the database
        ("57P03", false), // the database system is starting up
        ("53300", false), // too many connections
        ("08P01", false), // protocol violation
        ("57P01", false), // the administrator shut it down
    ])
    func refusesTheSettings(_ state: String, _ permanent: Bool) {
        #expect(PostgresEventStore.refusesTheSettings(state) == permanent, "\(state)")
    }
}
