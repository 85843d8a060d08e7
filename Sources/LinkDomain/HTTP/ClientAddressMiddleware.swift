import Foundation
import Hummingbird
import LinkDomainCore
import NIOCore

/// A request context that knows who the client is: filled once, by ``ClientAddressMiddleware``,
/// and read by every handler and per-client budget after it.
public protocol ClientAddressRequestContext: RemoteAddressRequestContext {
    /// The client as per-client budgets count it (``ClientKey``). Until the middleware runs, the
    /// peer's own key: never one shared by every client.
    var clientAddress: String { get set }
}

extension ClientAddressRequestContext {
    /// The peer's key, before any trusted proxy is looked behind: what a context starts with.
    static func peerKey(_ remoteAddress: SocketAddress?) -> String { ClientKey.of(remoteAddress?.peerText ?? "unknown") }
}

/// Resolves the client once per request: the peer's address; behind a trusted proxy, the nearest
/// address in `X-Forwarded-For` that is not itself a trusted proxy (the leftmost entries are the
/// client's to write, so never trusted). IPv6 by its /64 (``ClientKey``).
struct ClientAddressMiddleware<Context: ClientAddressRequestContext>: RouterMiddleware {
    let trustedProxies: Set<String>

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        // Without trusted proxies the client is the peer, which the context reads when asked.
        guard !trustedProxies.isEmpty else { return try await next(request, context) }
        var context = context
        context.clientAddress = Self.client(
            peer: context.remoteAddress?.peerText ?? "unknown", forwardedFor: request.headers[.xForwardedFor],
            trustedProxies: trustedProxies)
        return try await next(request, context)
    }

    static func client(peer: String, forwardedFor: String?, trustedProxies: Set<String>) -> String {
        guard trustedProxies.contains(peer), let forwardedFor else { return ClientKey.of(peer) }
        let hops = forwardedFor.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        return ClientKey.of(hops.last { !trustedProxies.contains($0) } ?? peer)
    }
}
