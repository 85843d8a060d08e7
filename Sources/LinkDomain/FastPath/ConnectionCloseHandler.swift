import NIOCore
import NIOHTTP1

/// Says `Connection: close` on every decoded request head that does not keep its connection
/// (HTTP/1.0 without `keep-alive`; `close` in any case on HTTP/1.1), before the heads lose their
/// version on becoming HTTP-types requests: the event loop's answers then leave the request to the
/// router, whose handler closes the connection after answering a request that says exactly
/// `close`. An HTTP/1.0 client (`openssl s_time`, old proxies) otherwise kept its connection
/// open until the idle timeout, waiting for an end the server never gave.
final class ConnectionCloseHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        // The usual head (HTTP/1.1 without `Connection`) is passed on after one look at its names.
        guard case .head(var head) = unwrapInboundIn(data), head.version != .http1_1 || head.headers.contains(name: "connection"),
            !head.isKeepAlive, head.headers["connection"] != ["close"]
        else { return context.fireChannelRead(data) }
        head.headers.replaceOrAdd(name: "connection", value: "close")
        context.fireChannelRead(wrapInboundOut(.head(head)))
    }
}
