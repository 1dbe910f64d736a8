import AppStore
import Foundation
import Testing

/// Reads the Apple sample data copied into `Fixtures/` (see `Fixtures/README.md` for origins).
enum Fixture {
    static func url(_ path: String) throws -> URL {
        let directory = try #require(Bundle.module.url(forResource: "Fixtures", withExtension: nil))
        return directory.appendingPathComponent(path)
    }

    static func data(_ path: String) throws -> Data {
        try Data(contentsOf: url(path))
    }

    static func text(_ path: String) throws -> String {
        String(decoding: try data(path), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    static func files(in directory: String, withExtension ext: String) throws -> [String] {
        let names = try FileManager.default.contentsOfDirectory(atPath: url(directory).path)
        return names.filter { $0.hasSuffix(".\(ext)") }.sorted().map { "\(directory)/\($0)" }
    }
}

/// A fixed instant used as `now`, so no test reads the clock: 2025-01-01T00:00:00Z.
let fixedNow = Date(timeIntervalSince1970: 1_735_689_600)

/// Runs `body` and returns the `AppStoreError` it threw, or `nil` if it threw none (or another error).
func appStoreError(_ body: () async throws -> Void) async -> AppStoreError? {
    do {
        try await body()
        return nil
    } catch {
        return error as? AppStoreError
    }
}

/// Runs `body` and returns the `AppStoreError` code it threw, or `nil` if it did not throw one.
func errorCode(_ body: () async throws -> Void) async -> String? {
    do {
        try await body()
        return nil
    } catch let error as AppStoreError {
        return error.code.rawValue
    } catch {
        return "unexpected: \(error)"
    }
}
