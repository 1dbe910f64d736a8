import Foundation

extension DatabaseURL {
    /// The file a SQLite URL names, made absolute against the working directory (which file a
    /// relative path opens depends on where the process runs); nil for PostgreSQL and for SQLite's
    /// `:memory:`, a database in no file.
    public var sqliteFile: String? {
        guard case .sqlite(let path) = self, path != ":memory:" else { return nil }
        return URL(fileURLWithPath: path).standardizedFileURL.path
    }
}
