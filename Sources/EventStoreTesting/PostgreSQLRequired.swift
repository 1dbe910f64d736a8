/// PostgreSQL tests were asked for (CI=true) but no server was given.
public struct PostgreSQLRequired: Error, CustomStringConvertible {
    public init() {}

    public var description: String {
        "PostgreSQL is required under CI=true: set SUBLEDGER_TEST_POSTGRES_URL (scripts/test starts a throwaway server)"
    }
}
