import Testing

/// Polls `condition` every millisecond for up to 5 s and requires it then: how a test waits for
/// another task to reach a point it can only see through a test hook (a waiter counted, a job
/// begun). `what` names that point in the failure.
func waitUntil(_ what: String, sourceLocation: SourceLocation = #_sourceLocation, _ condition: () -> Bool) async throws {
    for _ in 0..<5_000 where !condition() {
        try await Task.sleep(for: .milliseconds(1))
    }
    try #require(condition(), "\(what) never came", sourceLocation: sourceLocation)
}
