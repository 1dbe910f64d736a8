import NIOCore
import NIOPosix
import Synchronization

/// A TCP relay a test puts between a server (or a command) and PostgreSQL to take the database away and give
/// it back. Up, it relays bytes both ways; down, it drops every connection and closes new ones as
/// soon as they open, as a database that went away would.
public final class TCPRelay: Sendable {
    private struct State {
        var up: Bool
        var channels: [any Channel] = []
    }

    private let state: Mutex<State>
    private let target: (host: String, port: Int)
    private let listener: Mutex<(any Channel)?> = Mutex(nil)

    /// The loopback port the relay listens on.
    public var port: Int { listener.withLock { $0?.localAddress?.port ?? 0 } }

    private init(host: String, port: Int, up: Bool) {
        target = (host, port)
        state = Mutex(State(up: up))
    }

    /// Starts a relay to `host:port`, up or down from the start; `body` runs while it listens.
    public static func run<T: Sendable>(to host: String, port: Int, up: Bool, _ body: (TCPRelay) async throws -> T) async throws -> T {
        let relay = TCPRelay(host: host, port: port, up: up)
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .childChannelInitializer { inbound in relay.accept(inbound) }
            .bind(host: "127.0.0.1", port: 0).get()
        relay.listener.withLock { $0 = channel }
        do {
            let result = try await body(relay)
            relay.setUp(false)
            try await channel.close()
            return result
        } catch {
            relay.setUp(false)
            try? await channel.close()
            throw error
        }
    }

    /// Brings the relay up or down; going down drops every relayed connection.
    public func setUp(_ up: Bool) {
        let dropped = state.withLock { state in
            state.up = up
            defer { if !up { state.channels = [] } }
            return up ? [] : state.channels
        }
        for channel in dropped { channel.close(promise: nil) }
    }

    private func accept(_ inbound: any Channel) -> EventLoopFuture<Void> {
        guard state.withLock({ $0.up }) else { return inbound.close() }
        let (host, port) = target
        return inbound.setOption(ChannelOptions.autoRead, value: false).flatMap {
            ClientBootstrap(group: inbound.eventLoop)
                .channelInitializer { outbound in
                    outbound.eventLoop.makeCompletedFuture { try outbound.pipeline.syncOperations.addHandler(Forward(to: inbound)) }
                }
                .connect(host: host, port: port)
        }.flatMap { outbound in
            let stillUp = self.state.withLock { state in
                if state.up { state.channels += [inbound, outbound] }
                return state.up
            }
            guard stillUp else {
                outbound.close(promise: nil)
                return inbound.close()
            }
            return inbound.eventLoop.makeCompletedFuture {
                try inbound.pipeline.syncOperations.addHandler(Forward(to: outbound))
            }.flatMap { inbound.setOption(ChannelOptions.autoRead, value: true) }
        }
    }

    /// Writes whatever one side reads to the other, and closes the other when one side closes.
    private final class Forward: ChannelInboundHandler, Sendable {
        typealias InboundIn = ByteBuffer
        let partner: any Channel

        init(to partner: any Channel) { self.partner = partner }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            partner.writeAndFlush(unwrapInboundIn(data), promise: nil)
        }

        func channelInactive(context: ChannelHandlerContext) {
            partner.close(promise: nil)
            context.fireChannelInactive()
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            context.close(promise: nil)
        }
    }
}
