import LinkDomainCore

/// An ACME account: its key and the URL the CA gave it, per directory.
public struct ACMEAccountRecord: Sendable, Equatable {
    public var directoryURL: String
    /// **Secret.** The account key, PEM.
    public var keyPEM: String
    public var accountURL: String

    public init(directoryURL: String, keyPEM: String, accountURL: String) {
        self.directoryURL = directoryURL
        self.keyPEM = keyPEM
        self.accountURL = accountURL
    }
}

/// A certificate a CA issued, with its key, for one set of names.
public struct IssuedCertificate: Sendable, Equatable {
    /// The names it covers, sorted and joined by `,`: the row's key.
    public var names: String
    /// The chain as the CA sent it (PEM, the leaf first).
    public var chainPEM: String
    /// **Secret.** The certificate's private key, PEM.
    public var keyPEM: String
    /// Its validity, in seconds since 1970.
    public var notBefore: Int64
    public var notAfter: Int64

    public init(names: String, chainPEM: String, keyPEM: String, notBefore: Int64, notAfter: Int64) {
        self.names = names
        self.chainPEM = chainPEM
        self.keyPEM = keyPEM
        self.notBefore = notBefore
        self.notAfter = notAfter
    }

    /// The row key of a set of names.
    public static func key(_ names: [String]) -> String { names.map { $0.lowercased() }.sorted().joined(separator: ",") }
}

/// A challenge open while one replica orders, so that whichever replica the CA reaches answers it.
public struct ACMEChallengeRecord: Sendable, Equatable {
    public var token: String
    /// The name it proves, lower case.
    public var name: String
    /// What http-01 answers, and what tls-alpn-01's certificate carries the digest of. Not secret:
    /// the CA reads it in the open.
    public var keyAuthorization: String
    /// When it is no longer answered, in seconds since 1970, even if no one withdraws it.
    public var expiresAt: Int64

    public init(token: String, name: String, keyAuthorization: String, expiresAt: Int64) {
        self.token = token
        self.name = name
        self.keyAuthorization = keyAuthorization
        self.expiresAt = expiresAt
    }
}

/// What ordering certificates keeps in the database every replica shares: the account, the
/// certificates, and the lease that lets one replica order at a time.
public protocol ACMEStore: Sendable {
    func acmeAccount(directoryURL: String) async throws(StoreError) -> ACMEAccountRecord?
    func saveACMEAccount(_ account: ACMEAccountRecord) async throws(StoreError)
    func issuedCertificate(names: String) async throws(StoreError) -> IssuedCertificate?
    func saveIssuedCertificate(_ certificate: IssuedCertificate) async throws(StoreError)
    /// Takes (or extends) the ordering lease for `holder` until `until`, when it is free, expired
    /// at `now`, or already `holder`'s; false when another replica holds it.
    func takeACMELease(holder: String, now: Int64, until: Int64) async throws(StoreError) -> Bool
    /// Gives the lease up, if `holder` has it.
    func releaseACMELease(holder: String) async throws(StoreError)
    /// Publishes an open challenge (replacing one with the same token).
    func saveACMEChallenge(_ challenge: ACMEChallengeRecord) async throws(StoreError)
    /// The open challenge with `token`, or the latest for `name`, not expired at `now`.
    func acmeChallenge(token: String, now: Int64) async throws(StoreError) -> ACMEChallengeRecord?
    func acmeChallenge(name: String, now: Int64) async throws(StoreError) -> ACMEChallengeRecord?
    /// Withdraws a challenge once its authorization is decided (and any expired ones).
    func deleteACMEChallenge(token: String, now: Int64) async throws(StoreError)
}
