import EventStore
import Foundation

extension DatabaseURL {
    /// The database as a command's output should name it: a relative SQLite path made absolute
    /// against the working directory (which file it opens depends on where the command ran), a
    /// PostgreSQL URL without its password.
    var located: String {
        // `:memory:` is SQLite's name for a database in no file.
        guard case .sqlite(let path) = self, !path.hasPrefix("/"), path != ":memory:" else { return description }
        let directory = URL(fileURLWithPath: FileManager.default.currentDirectoryPath, isDirectory: true)
        return "sqlite:" + URL(fileURLWithPath: path, relativeTo: directory).standardizedFileURL.path
    }
}
