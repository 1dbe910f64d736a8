import EventStore
import EventStoreTesting
import Testing

/// Runs `body`, which must fail with the store's error `code`; `what` names the attempt in a
/// failure, with the error it got.
func expectStoreError(
    _ code: EventStoreError.Code, _ what: String,
    sourceLocation: SourceLocation = #_sourceLocation,
    _ body: () async throws -> Void
) async {
    do {
        try await body()
        Issue.record("\(what) did not fail", sourceLocation: sourceLocation)
    } catch {
        #expect(error.storeCode == code, "\(what): \(error)", sourceLocation: sourceLocation)
    }
}
