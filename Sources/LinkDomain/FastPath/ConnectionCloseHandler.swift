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
        guard case .head(var head) = unwrapInboundIn(data), !head.isKeepAlive, head.headers["connection"] != ["close"] else {
            return context.fireChannelRead(data)
        }
        head.headers.replaceOrAdd(name: "connection", value: "close")
        context.fireChannelRead(wrapInboundOut(.head(head)))
    }
}
