import Foundation
import LinkDomainCore
import LinkDomainStorage

/// Finding accounts and answering with them: `lookup`, `createAuthUri`, the project's configuration,
/// and an account as each response shows it.
extension AccountService {
    func lookup(_ request: LookupRequest, _ context: CallContext) async throws -> GetAccountInfoResponse {
        var users: [UserRecord] = []
        if let idToken = request.idToken {
            users = [try await authenticatedUser(idToken: idToken, context: context)]
        } else if context.isAdmin {
            for localID in request.localIDs {
                if let user = try await store.user(tenantID: context.tenantID, localID: localID) { users.append(user) }
            }
            for email in request.emails {
                if let user = try await store.user(tenantID: context.tenantID, email: email.lowercased()) { users.append(user) }
            }
            for phone in request.phoneNumbers {
                if let user = try await store.user(tenantID: context.tenantID, phoneNumber: phone) { users.append(user) }
            }
            for identity in request.federatedUserIDs {
                users += try await accounts(withProvider: identity.providerID, rawID: identity.rawID, tenantID: context.tenantID)
            }
        } else {
            throw IdentityToolkitError.missingIDToken
        }
        // One entry per account, however many identifiers named it; accounts nobody has are left out.
        var seen = Set<String>()
        users = users.filter { seen.insert($0.localID).inserted }
        return GetAccountInfoResponse(users: users.isEmpty ? nil : users.map { userInfo($0, forAdmin: context.isAdmin) })
    }

    /// The accounts an import gave the identity `rawID` at `providerID`.
    func accounts(withProvider providerID: String, rawID: String, tenantID: String) async throws -> [UserRecord] {
        // The stored list is JSON: the raw ID is found as JSON writes it, then each candidate checked exactly.
        guard let quoted = String(data: try JSONEncoder().encode(rawID), encoding: .utf8) else { return [] }
        return try await store.users(tenantID: tenantID, providerDataContaining: quoted).filter { user in
            ImportedProviders.decode(user.providerData).contains { $0.providerId == providerID && $0.rawId == rawID }
        }
    }

    /// What `fetchSignInMethods(forEmail:)` calls; with enumeration protection it reveals nothing.
    func createAuthURI(_ request: CreateAuthURIRequest, _ context: CallContext) async throws -> CreateAuthUriResponse {
        guard let raw = request.identifier else { throw IdentityToolkitError(.missingIdentifier) }
        guard let continueURI = request.continueURI else { throw IdentityToolkitError.missingContinueURI }
        guard WebAddress(continueURI) != nil else { throw IdentityToolkitError.invalidContinueURI }
        let email: String
        do {
            email = try normalizedEmail(raw)
        } catch {
            throw IdentityToolkitError(.invalidIdentifier)
        }
        var response = CreateAuthUriResponse(sessionId: request.sessionID ?? RandomToken.make(bytes: 16))
        if hidesAccounts && !context.isAdmin { return response }
        let user = try await store.user(tenantID: context.tenantID, email: email)
        response.registered = user != nil
        if let user {
            var methods: [String] = []
            if user.passwordHash != nil { methods.append("password") }
            if user.emailLinkSignIn { methods.append("emailLink") }
            response.signinMethods = methods
            response.allProviders = methods.isEmpty ? [] : ["password"]
        }
        return response
    }

    package func projectConfig() -> ProjectConfigResponse {
        ProjectConfigResponse(projectId: settings.projectID, authorizedDomains: settings.authorizedDomains)
    }

    /// The account as `accounts:update` answers.
    func accountSummary(_ user: UserRecord) -> SetAccountInfoResponse {
        SetAccountInfoResponse(
            localId: user.localID, email: user.email, displayName: user.displayName, photoUrl: user.photoURL,
            emailVerified: user.emailVerified, providerUserInfo: providerInfo(user))
    }

    /// The account's sign-in providers: the password (its address), the phone, imported federated ones.
    func providerInfo(_ user: UserRecord) -> [ProviderUserInfo] {
        var providers: [ProviderUserInfo] = []
        if let email = user.email, user.passwordHash != nil || user.emailLinkSignIn {
            providers.append(
                ProviderUserInfo(
                    providerId: "password", email: email, federatedId: email, rawId: email,
                    displayName: user.displayName, photoUrl: user.photoURL))
        }
        if let phone = user.phoneNumber { providers.append(ProviderUserInfo(providerId: "phone", rawId: phone, phoneNumber: phone)) }
        return providers + ImportedProviders.decode(user.providerData)
    }

    /// A user as `accounts:lookup` and `accounts:batchGet` return it; the password hash only to admins.
    func userInfo(_ user: UserRecord, forAdmin: Bool) -> UserInfo {
        var info = UserInfo(
            localId: user.localID, email: user.email, displayName: user.displayName, photoUrl: user.photoURL,
            createdAt: String(user.createdAt), lastLoginAt: user.lastLoginAt.map(String.init), validSince: String(user.validSince),
            tenantId: user.tenantID.isEmpty ? nil : user.tenantID, emailVerified: user.emailVerified, disabled: user.disabled,
            emailLinkSignin: user.emailLinkSignIn, passwordUpdatedAt: user.passwordUpdatedAt, providerUserInfo: providerInfo(user),
            phoneNumber: user.phoneNumber, customAttributes: user.customAttributes,
            lastRefreshAt: user.lastRefreshAt.map(Self.rfc3339))
        if forAdmin, let stored = user.passwordHash, let exported = PasswordFormats.exported(stored) {
            info.passwordHash = exported.hash
            info.salt = exported.salt
        }
        return info
    }

    /// Milliseconds since 1970 as RFC 3339 in UTC, with milliseconds.
    static func rfc3339(_ milliseconds: Int64) -> String { RFC3339.string(milliseconds: milliseconds) }
}
