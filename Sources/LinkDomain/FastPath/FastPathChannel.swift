import HummingbirdCore
import LinkDomainCore
import LinkDomainStorage
import Logging
import NIOCore

/// Plain HTTP/1.1 with ``RawRequestHandler`` in front of NIO's HTTP decoder, sharing the idle
/// timeout's ``ConnectionLedger``.
struct FastPathChannel: HTTPChannelHandler {
    let wrapped: HTTP1Channel
    let rawResponder: RawResponder
    let logger: Logger

    var responder: Responder { wrapped.responder }

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<HTTP1Channel.Value> {
        wrapped.setup(channel: channel, logger: logger).flatMapThrowing { [rawResponder, logger = self.logger] value in
            let operations = channel.pipeline.syncOperations
            let timeout = try operations.handler(type: ConnectionTimeoutHandler.self)
            try operations.addHandler(RawRequestHandler(responder: rawResponder, ledger: timeout.ledger, logger: logger), position: .first)
            return value
        }
    }

    func handle(value: HTTP1Channel.Value, logger: Logger) async {
        await wrapped.handle(value: value, logger: logger)
    }
}
