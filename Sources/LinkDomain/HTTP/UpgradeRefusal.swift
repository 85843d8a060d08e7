import HTTPTypes
import LinkDomainCore
import LinkDomainStorage
import NIOCore

/// LinkDomain switches no protocol and tunnels nothing: a request with `Upgrade` (WebSocket, h2c)
/// or a `CONNECT` is answered 400 and, on HTTP/1.1, its connection closed. Serving such a request
/// as if the field were absent is not an option: NIO's HTTP/1 decoder stops parsing after it and
/// would keep every later byte of the connection in memory.
enum UpgradeRefusal {
    /// Whether `request` asks to leave HTTP on its connection (any `Upgrade` field: without the
    /// `Connection: upgrade` that must accompany it, it is malformed anyway).
    static func applies(to request: HTTPRequest) -> Bool {
        request.method == .connect || request.headerFields[.upgrade] != nil
    }

    /// The refusal; `closing` adds `Connection: close` (HTTP/1.1 only: HTTP/2 forbids the field).
    static func response(to request: HTTPRequest, closing: Bool) -> ImmediateResponse {
        let text =
            request.method == .connect
            ? "400 Bad Request: this server is not a proxy; CONNECT is not served.\n"
            : "400 Bad Request: this server switches no protocol (no WebSocket, no h2c); send the request without Upgrade.\n"
        var headers: HTTPFields = [.contentType: "text/plain; charset=utf-8", .cacheControl: "no-store"]
        if closing { headers[.connection] = "close" }
        return ImmediateResponse(status: .badRequest, headers: headers, body: ByteBuffer(string: text))
    }
}
