import Logging

extension SubscriptionLedger {
    /// The ledger's logger with the request id of `context`, so the ledger's lines during a request
    /// (and the receipt validator's, which it is handed) can be found with the request's own.
    func logger(for context: IngestContext) -> Logger {
        var logger = logger
        logger[metadataKey: "request_id"] = "\(context.requestID ?? "-")"
        return logger
    }
}
