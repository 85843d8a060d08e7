import HTTPTypes
import LinkDomainCore
import LinkDomainStorage

/// Every Identity Toolkit operation the embedded backend serves, once: its v1 name, the legacy v3
/// `relyingparty/` name that maps to it, how it is called and what serves it. The routes, the
/// legacy paths, the body limits and the fuzzer's exercise all read this one table.
package struct IdentityToolkitOperation: Sendable {
    package typealias Serve = @Sendable (AccountService, RequestBody, CallContext) async throws -> any Encodable & Sendable

    /// `accounts:NAME`, the admin create call `accounts`, or a project's `createSessionCookie`.
    let name: String
    /// The v3 `relyingparty/NAME` that maps to it, if any.
    var legacyName: String?
    /// Only the listing is a GET (its body is the query); every other operation is a POST.
    var method = HTTPRequest.Method.post
    /// Imports carry up to 1000 accounts with their hashes: their bodies may be larger than other calls'.
    var takesLargeBody = false
    /// Reads the body as the operation's own request type, then runs it.
    package let serve: Serve

    init<Request: Decodable & Sendable>(
        _ name: String, legacyName: String? = nil, method: HTTPRequest.Method = .post, takesLargeBody: Bool = false,
        serve: @escaping @Sendable (AccountService, Request, CallContext) async throws -> any Encodable & Sendable
    ) {
        self.name = name
        self.legacyName = legacyName
        self.method = method
        self.takesLargeBody = takesLargeBody
        self.serve = { service, body, call in try await serve(service, try body.decode(Request.self), call) }
    }

    static let all: [IdentityToolkitOperation] = [
        .init("accounts") { try await $0.signUp($1, $2) },  // admin: create user
        .init("accounts:signUp", legacyName: "signupNewUser") { try await $0.signUp($1, $2) },
        .init("accounts:signInWithPassword", legacyName: "verifyPassword") { try await $0.signInWithPassword($1, $2) },
        .init("accounts:sendOobCode", legacyName: "getOobConfirmationCode") { try await $0.sendOobCode($1, $2) },
        .init("accounts:signInWithEmailLink", legacyName: "emailLinkSignin") { try await $0.signInWithEmailLink($1, $2) },
        .init("accounts:createAuthUri", legacyName: "createAuthUri") { try await $0.createAuthURI($1, $2) },
        .init("accounts:resetPassword", legacyName: "resetPassword") { try await $0.resetPassword($1, $2) },
        .init("accounts:update", legacyName: "setAccountInfo") { try await $0.update($1, $2) },
        .init("accounts:lookup", legacyName: "getAccountInfo") { try await $0.lookup($1, $2) },
        .init("accounts:delete", legacyName: "deleteAccount") { try await $0.delete($1, $2) },
        .init("accounts:signInWithCustomToken", legacyName: "verifyCustomToken") { try await $0.signInWithCustomToken($1, $2) },
        .init("accounts:batchCreate", legacyName: "uploadAccount", takesLargeBody: true) { try await $0.batchCreate($1, $2) },
        .init("accounts:batchGet", method: .get) { try await $0.batchGet($1, $2) },
        .init("accounts:batchDelete") { try await $0.batchDelete($1, $2) },
        .init("accounts:query") { try await $0.query($1, $2) },
        .init("createSessionCookie") { try await $0.createSessionCookie($1, $2) },  // projects/{projectID}:createSessionCookie
    ]

    package static let byName: [String: IdentityToolkitOperation] = Dictionary(uniqueKeysWithValues: all.map { ($0.name, $0) })
    static let byLegacyName: [String: IdentityToolkitOperation] = Dictionary(
        uniqueKeysWithValues: all.compactMap { operation in operation.legacyName.map { ($0, operation) } })
}
