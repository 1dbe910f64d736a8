import Foundation
import Hummingbird

/// The request context of every route: the request id and the authenticated key, if any.
public struct LedgerRequestContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    /// The request's id (from `X-Request-ID` or generated), on every log line and in event metadata.
    public var requestID: String = ""

    public init(source: Source) {
        self.coreContext = .init(source: source)
    }

    /// Bodies over 1 MiB are refused with 413 before they are read further.
    public var maxUploadSize: Int { LedgerRequestContext.maximumBodySize }

    /// The largest request body the API reads.
    public static let maximumBodySize = 1 << 20

    /// Every JSON answer written the same way as the event feed's: keys sorted, so an event's bytes
    /// do not depend on the process that wrote them or on the endpoint, and `/` left unescaped.
    public var responseEncoder: JSONEncoder { Self.jsonEncoder }

    /// The encoder of every JSON answer, the routes' own pages and the NDJSON feed included.
    static let jsonEncoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()
}
