import HummingbirdCore
import Logging
import NIOCore
import NIOHTTPTypesHTTP1

/// Hummingbird's HTTP/1.1 child channel with ``ConnectionCloseMarker`` and ``ExpectContinueHandler``
/// ahead of its conversion to HTTP types, which drops the request's HTTP version, and a place under
/// ``ConnectionLimit`` for each connection (one over it is answered by ``ConnectionRefusalHandler``).
struct LedgerHTTP1Channel: ServerChildChannel {
    typealias Value = HTTP1Channel.Value

    let http1: HTTP1Channel
    let limit: ConnectionLimit

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        let admitted = limit.acquire()
        if admitted {
            channel.closeFuture.whenComplete { [limit] _ in limit.release() }
        }
        return http1.setup(channel: channel, logger: logger).flatMapThrowing { [limit] value in
            let pipeline = channel.pipeline.syncOperations
            let codec = try pipeline.handler(type: HTTP1ToHTTPServerCodec.self)
            // In this order: the marker sees the close ExpectContinueHandler marks, and the 100s
            // that handler writes do not pass through the marker.
            try pipeline.addHandler(ExpectContinueHandler(), position: .before(codec))
            try pipeline.addHandler(ConnectionCloseMarker(), position: .before(codec))
            if !admitted {
                try pipeline.addHandler(ConnectionRefusalHandler(limit: limit, logger: logger), position: .first)
            }
            return value
        }
    }

    func handle(value: Value, logger: Logger) async {
        await http1.handle(value: value, logger: logger)
    }
}
