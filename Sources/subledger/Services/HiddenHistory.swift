/// Events whose transaction ids the PostgreSQL server has not reached: every reader skips them, and
/// events written now would sort before them. `serve` refuses to start on such a database.
struct HiddenHistory: Error, CustomStringConvertible {
    var events: Int

    var description: String {
        """
        \(events) stored event(s) carry transaction ids this PostgreSQL server has not reached, so the \
        feed, as_of and replay cannot see them and new events would sort before them: the database was \
        probably restored with pg_dump into another cluster. Restore it from a physical backup \
        (pg_basebackup) instead; see operations.md
        """
    }
}
