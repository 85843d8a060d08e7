import LinkDomainCore
import LinkDomainStorage
import NIOSSL
import Synchronization

/// What the listeners answer while an order is open: http-01's key authorizations by token, and
/// tls-alpn-01's certificates by name. The ordering replica keeps its own in memory and publishes
/// them in the shared store, so that whichever replica the CA's check reaches (behind a load
/// balancer) can answer it; a replica asks the store only for a token or name it does not hold.
public final class ChallengeResponses: Sendable {
    private struct Open {
        var keyAuthorizations: [String: String] = [:]
        var contexts: [String: NIOSSLContext] = [:]
    }

    private let open = Mutex(Open())
    /// The store every replica shares; nil in tests of one process.
    let shared: (any ACMEStore)?
    let clock: any WallClock
    /// How long a published challenge is answered at most (an order's waits are bounded well below it).
    static let lifetimeSeconds: Int64 = 900

    public init(shared: (any ACMEStore)? = nil, clock: any WallClock = SystemClock()) {
        self.shared = shared
        self.clock = clock
    }

    /// Answers a challenge here and, through the store, on every replica. Throws when the store
    /// refuses: an order whose challenge other replicas cannot answer is not worth starting.
    func publish(token: String, name: String, keyAuthorization: String, kind: ACMEChallengeKind) async throws {
        let name = name.lowercased()
        switch kind {
        case .http: open.withLock { $0.keyAuthorizations[token] = keyAuthorization }
        case .tlsALPN:
            let context = try CertificateFactory.challengeContext(name: name, keyAuthorization: keyAuthorization)
            open.withLock { $0.contexts[name] = context }
        }
        try await shared?.saveACMEChallenge(
            ACMEChallengeRecord(token: token, name: name, keyAuthorization: keyAuthorization, expiresAt: clock.nowSeconds &+ Self.lifetimeSeconds))
    }

    /// Forgets a challenge once its authorization is decided, here and in the store.
    func withdraw(token: String, name: String) async {
        open.withLock { open in
            open.keyAuthorizations[token] = nil
            open.contexts[name.lowercased()] = nil
        }
        try? await shared?.deleteACMEChallenge(token: token, now: clock.nowSeconds)
    }

    /// http-01: the key authorization for `token`, when a challenge with that token is open on any replica.
    func keyAuthorization(token: String) async -> String? {
        if let local = open.withLock({ $0.keyAuthorizations[token] }) { return local }
        return try? await shared?.acmeChallenge(token: token, now: clock.nowSeconds)?.keyAuthorization
    }

    /// Whether `hello` is a tls-alpn-01 check: it offers `acme-tls/1` alone, for a name.
    static func isChallengeHello(_ hello: TLSClientHello) -> Bool {
        hello.applicationProtocols == ["acme-tls/1"] && hello.serverName != nil
    }

    /// tls-alpn-01: this replica's context for the hello's name, without waiting.
    func localContext(for hello: TLSClientHello) -> NIOSSLContext? {
        guard Self.isChallengeHello(hello), let name = hello.serverName else { return nil }
        return open.withLock { $0.contexts[name] }
    }

    /// tls-alpn-01: a context for a challenge another replica published, made from the store's record.
    func sharedContext(for hello: TLSClientHello) async -> NIOSSLContext? {
        guard Self.isChallengeHello(hello), let name = hello.serverName,
            let record = try? await shared?.acmeChallenge(name: name, now: clock.nowSeconds)
        else { return nil }
        return try? CertificateFactory.challengeContext(name: name, keyAuthorization: record.keyAuthorization)
    }
}
