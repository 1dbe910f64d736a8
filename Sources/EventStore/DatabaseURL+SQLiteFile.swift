import Foundation

extension DatabaseURL {
    /// The file a SQLite URL names, made absolute against the working directory (which file a
    /// relative path opens depends on where the process runs); nil for PostgreSQL and for SQLite's
    /// `:memory:`, a database in no file.
    public var sqliteFile: String? {
        guard case .sqlite(let path) = self, path != ":memory:" else { return nil }
        return URL(fileURLWithPath: path).standardizedFileURL.path
    }

    /// Whether this names a SQLite file that is not there yet, which opening it makes: said by the
    /// commands that make one, since a mistyped path or the wrong directory looks like that.
    public var namesMissingSQLiteFile: Bool {
        sqliteFile.map { !FileManager.default.fileExists(atPath: $0) } ?? false
    }
}
