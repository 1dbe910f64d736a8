import EventStore

extension DatabaseURL {
    /// The database as a command's output should name it: a SQLite file by its absolute path, a
    /// PostgreSQL URL without its password.
    var located: String {
        sqliteFile.map { "sqlite:\($0)" } ?? description
    }
}
