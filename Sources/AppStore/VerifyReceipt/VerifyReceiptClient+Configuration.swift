extension VerifyReceiptClient {
    /// Where and how the client talks to verifyReceipt.
    ///
    /// URLs are configurable so tests point at a local fake; delays are configurable so tests run fast.
    public struct Configuration: Sendable {
        /// Apple's production endpoint.
        public static let appleProductionURL = "https://buy.itunes.apple.com/verifyReceipt"
        /// Apple's sandbox endpoint.
        public static let appleSandboxURL = "https://sandbox.itunes.apple.com/verifyReceipt"

        /// The production URL, tried first.
        public var productionURL: String
        /// The sandbox URL, used after status 21007.
        public var sandboxURL: String
        /// The app's shared secret, sent as `password` (required for auto-renewable subscriptions).
        public var sharedSecret: String?
        /// How many times one URL is tried before giving up on transient failures (at least 1).
        public var maximumAttempts: Int
        /// The delay before the first retry; doubled for each further retry up to ``maximumBackoff``.
        public var initialBackoff: Duration
        /// The longest delay between two retries.
        public var maximumBackoff: Duration
        /// The deadline of one HTTP exchange: connect, send, and receive the head and the whole body.
        public var requestTimeout: Duration
        /// The largest response body read; larger bodies are `invalid_response`.
        public var maximumResponseSize: Int

        /// Creates a configuration; the defaults are Apple's URLs, 3 attempts, 0.5 s → 4 s backoff and a 15 s timeout.
        /// - Why: production only needs ``sharedSecret``; tests override URLs and delays.
        public init(
            productionURL: String = Configuration.appleProductionURL,
            sandboxURL: String = Configuration.appleSandboxURL,
            sharedSecret: String? = nil,
            maximumAttempts: Int = 3,
            initialBackoff: Duration = .milliseconds(500),
            maximumBackoff: Duration = .seconds(4),
            requestTimeout: Duration = .seconds(15),
            maximumResponseSize: Int = 8 * 1024 * 1024
        ) {
            self.productionURL = productionURL
            self.sandboxURL = sandboxURL
            self.sharedSecret = sharedSecret
            self.maximumAttempts = maximumAttempts
            self.initialBackoff = initialBackoff
            self.maximumBackoff = maximumBackoff
            self.requestTimeout = requestTimeout
            self.maximumResponseSize = maximumResponseSize
        }

        /// The delay before retry number `retry` (1-based): ``initialBackoff`` doubled per retry, capped at ``maximumBackoff``.
        /// - Why: public so operators and tests can see the schedule a configuration implies.
        public func backoff(beforeRetry retry: Int) -> Duration {
            var delay = initialBackoff
            for _ in 1..<max(1, retry) {
                delay = min(delay * 2, maximumBackoff)
            }
            return min(delay, maximumBackoff)
        }
    }
}
