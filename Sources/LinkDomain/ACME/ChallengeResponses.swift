import LinkDomainCore
import NIOSSL
import Synchronization

/// What the listeners answer while an order is open: http-01's key authorizations by token, and
/// tls-alpn-01's certificates by name. Empty between orders, so nothing else is ever diverted.
public final class ChallengeResponses: Sendable {
    private struct Open {
        var keyAuthorizations: [String: String] = [:]
        var contexts: [String: NIOSSLContext] = [:]
    }

    private let open = Mutex(Open())
    /// Read by every TLS connection before anything else: a lock only while a challenge is open.
    private let anyTLSChallenge = Atomic<Bool>(false)

    public init() {}

    func answerHTTP(token: String, keyAuthorization: String) {
        open.withLock { $0.keyAuthorizations[token] = keyAuthorization }
    }

    func answerTLS(name: String, context: NIOSSLContext) {
        open.withLock { $0.contexts[name.lowercased()] = context }
        anyTLSChallenge.store(true, ordering: .releasing)
    }

    /// Forgets a challenge once its authorization is decided.
    func close(token: String, name: String) {
        let empty = open.withLock { open in
            open.keyAuthorizations[token] = nil
            open.contexts[name.lowercased()] = nil
            return open.contexts.isEmpty
        }
        if empty { anyTLSChallenge.store(false, ordering: .releasing) }
    }

    /// http-01: the key authorization for `token`, when a challenge with that token is open.
    func keyAuthorization(token: String) -> String? {
        open.withLock { $0.keyAuthorizations[token] }
    }

    /// Whether any tls-alpn-01 challenge is open: only then is a ClientHello read before TLS.
    var hasTLSChallenge: Bool { anyTLSChallenge.load(ordering: .acquiring) }

    /// tls-alpn-01: the context for `hello`, when it offers only `acme-tls/1` for a name with an open challenge.
    func context(for hello: TLSClientHello) -> NIOSSLContext? {
        guard hello.applicationProtocols == ["acme-tls/1"], let name = hello.serverName else { return nil }
        return open.withLock { $0.contexts[name] }
    }
}
