import NIOHTTP1

extension HTTPParserError {
    /// What the client sent that HTTP/1.1 does not allow, in words a client can act on.
    ///
    /// The parser's own descriptions name the parser's state rather than the request: a
    /// `Content-Length` past 2^64 was "invalid character in content-length header", and
    /// `Transfer-Encoding` with `Content-Length` "unknown (http_parser error)". Several of llhttp's
    /// errors share one case here, so some explanations list the usual causes.
    var explanation: String {
        switch self {
        case .invalidContentLength:
            "its Content-Length is not one whole number of bytes (digits only, below 2^64), or it comes together with Transfer-Encoding"
        case .unexpectedContentLength:
            "it gives Content-Length more than once"
        case .unknown:
            "its Transfer-Encoding does not end in chunked, or comes together with Content-Length, or a line of it lacks its carriage return"
        case .invalidHeaderToken:
            "a header's name or value holds a character HTTP does not allow (a name takes letters, digits and !#$%&'*+-.^_`|~, with no space before its colon)"
        case .invalidCharactersUsed:
            "its URL or a header holds a character HTTP does not allow"
        case .invalidURL, .invalidPath, .invalidHost, .invalidPort, .invalidQueryString, .invalidFragment:
            "its request target is not a URL path: it holds a space, a control character or another character a URL may not"
        case .invalidMethod:
            "its method is not one HTTP defines"
        case .invalidVersion:
            "its request line does not end in a version the server speaks (HTTP/1.1 or HTTP/1.0) and then a carriage return and a line feed"
        case .invalidConstant:
            "its request line does not end in a version the server speaks (HTTP/1.1 or HTTP/1.0), or its method is not one that version takes"
        case .lfExpected, .strictModeAssertion:
            "a line of it does not end in a carriage return and a line feed, or a chunk extension holds a character HTTP does not allow"
        case .invalidChunkSize:
            "a chunk's size is not a hexadecimal number within bounds"
        case .invalidEOFState:
            "the connection ended before the request did (the client closed it, or the server's idle or request timeout did)"
        case .closedConnection:
            "bytes followed a request that asked to close the connection"
        case .trailingGarbage:
            "bytes followed the request where none may"
        case .headerOverflow:
            // A head over the limits is answered 431 before any route (UnparsableHeadHandler); one
            // that reaches a route has overflowed in its trailer fields.
            "its trailer fields, after its chunked body, exceed the server's limits for header fields"
        case .invalidStatus, .invalidInternalState, .paused:
            // Not a request's fault that a client could fix; named as the parser names it.
            "the HTTP parser could not read it (\(debugDescription))"
        }
    }
}
