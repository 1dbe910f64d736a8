import Foundation

/// Which database an adapter talks to.
public enum StorageDialect: String, Sendable, Hashable, CaseIterable {
    case postgres
    case sqlite
}
