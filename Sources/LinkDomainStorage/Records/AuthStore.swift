import LinkDomainCore

/// Where the embedded backend keeps accounts, codes, refresh tokens and its signing key.
///
/// Every method is atomic; ``commit(_:)`` in particular spends a code for exactly one caller
/// however many race for it, and only with the rest of that caller's writes.
public protocol AuthStore: Sendable {
    /// A trivial question to the database (`SELECT 1`): it answers, or says why not.
    func ping() async throws(StoreError)
    func insertUser(_ user: UserRecord) async throws(StoreError)
    /// Writes the fields in which `user` differs from `read` (the account as the caller read it),
    /// provided the account is still as read: its version unchanged. The version then advances.
    /// ``StoreError/conflict`` when another write came between (or the account is gone); nothing is written then.
    func updateUser(_ user: UserRecord, readAs read: UserRecord) async throws(StoreError)
    /// Records a sign-in or a token refresh: only these times, only while the account is as read
    /// (``StoreError/conflict`` otherwise: a password or address changed meanwhile). The version
    /// does not advance, so sign-ins do not conflict with each other.
    func recordSignIn(of read: UserRecord, lastLoginAt: Int64?, lastRefreshAt: Int64) async throws(StoreError)
    func deleteUser(tenantID: String, localID: String) async throws(StoreError) -> Bool
    func user(tenantID: String, localID: String) async throws(StoreError) -> UserRecord?
    func user(tenantID: String, email: String) async throws(StoreError) -> UserRecord?
    func user(tenantID: String, phoneNumber: String) async throws(StoreError) -> UserRecord?
    /// Accounts of a tenant whose imported providers' stored text contains `fragment` (at most 100):
    /// candidates for a federated identity, which the caller checks field by field.
    func users(tenantID: String, providerDataContaining fragment: String) async throws(StoreError) -> [UserRecord]
    /// Up to `limit` accounts of a tenant whose address starts with `prefix` (lower-case, as addresses
    /// are kept), in address order: the console's search for a half-remembered address.
    func users(tenantID: String, emailPrefix prefix: String, limit: Int) async throws(StoreError) -> [UserRecord]
    /// Up to `limit` accounts of a tenant with IDs after `afterLocalID`, in ID order (a page of a listing).
    func users(tenantID: String, afterLocalID: String, limit: Int) async throws(StoreError) -> [UserRecord]
    /// Every account of a tenant, and their refresh tokens, removed (the emulator's reset).
    func deleteAllUsers(tenantID: String) async throws(StoreError)

    func insertCode(_ code: OobCodeRecord) async throws(StoreError)
    /// The code if it exists and has not been spent (expired codes included).
    func code(_ code: String) async throws(StoreError) -> OobCodeRecord?
    /// What the event loop's answers need of the code, read at once on the caller's thread: nil
    /// when it is unknown or spent, and also whenever it cannot be read without waiting (the
    /// caller then asks ``code(_:)``). Stores that cannot read without waiting always answer nil.
    func codeWithoutWaiting(_ code: String) -> OobCodeSummary?
    /// Makes every write of one action in one transaction (see ``AuthWrites``): all, or (on any
    /// failure, a lost race on an account included: ``StoreError/conflict``) none.
    func commit(_ writes: AuthWrites) async throws(StoreError) -> AuthCommit
    /// Unspent codes of a project, oldest first.
    func codes(projectID: String) async throws(StoreError) -> [OobCodeRecord]

    func insertRefreshToken(_ token: RefreshTokenRecord) async throws(StoreError)
    func refreshToken(_ token: String) async throws(StoreError) -> RefreshTokenRecord?

    /// The PEM of signing key `id` (``SigningKeyID``), created by `make` and stored on first use
    /// (`make` is called only when the key is missing: an RSA key takes a while to make);
    /// replicas asking at once all get the first one stored.
    func signingKey(_ id: SigningKeyID, orInsert make: @escaping @Sendable () throws -> String) async throws(StoreError) -> String
}

/// The keys the embedded backend signs with, by their row in the store.
public enum SigningKeyID: Int, Sendable {
    /// ES256, for ID tokens (published at Google's JWK address for Firebase).
    case idTokens = 1
    /// RS256, for session cookies (published at `v1/sessionCookiePublicKeys`, whose schema has RSA keys only).
    case sessionCookies = 2
}

/// Why a store could not do what it was asked.
public enum StoreError: Error, Sendable, Equatable {
    /// The email address is already taken in that tenant.
    case emailExists
    /// The phone number is already taken in that tenant.
    case phoneNumberExists
    /// The key (a short-link suffix) is already taken.
    case duplicate
    /// The account changed (or went) since it was read: the write did not happen.
    case conflict
    /// The database failed; the description says how (never with user data).
    case database(String)
    /// The database did not answer in time, or is known to be away: try again later.
    case unavailable
}

extension AuthStore {
    public func codeWithoutWaiting(_ code: String) -> OobCodeSummary? { nil }
}
