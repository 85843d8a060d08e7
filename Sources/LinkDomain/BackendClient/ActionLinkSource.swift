import LinkDomainCore
import LinkDomainStorage

/// What the email action API asks a backend for: an action link to mail, made with the admin API
/// (`accounts:sendOobCode` with `returnOobLink`), so that the backend sends nothing itself.
struct ActionLinkRequest: Sendable, Equatable {
    var requestType: OobRequestType
    /// The address the code is for (for an email change, the current one).
    var email: String
    /// An email change's new address.
    var newEmail: String?
    /// The ActionCodeSettings the client sent (where the link continues, which app opens it).
    var settings: ActionCodeSettingsFields
    var tenantID: String?
    var languageCode: String?
}

/// An ID token's account, as the backend vouches for it.
struct VerifiedAccount: Sendable, Equatable {
    var localID: String
    var email: String?
}

/// A backend that makes action links and vouches for ID tokens.
protocol ActionLinkSource: Sendable {
    /// The backend's link for `request`; nil when there is no account to send it to (a password
    /// reset for an unknown address), which the API must not reveal.
    func actionLink(_ request: ActionLinkRequest) async throws(BackendError) -> String?
    /// The account of a valid, unexpired ID token of this project (and tenant); `INVALID_ID_TOKEN` otherwise.
    func verify(idToken: String, tenantID: String?) async throws(BackendError) -> VerifiedAccount
    /// Throws what any link request would meet whatever its address (credentials the backend
    /// refuses): checked before an answer that does not wait for the link itself.
    func checkCredentials() async throws(BackendError)
    /// How long the backend's codes of `type` work, in seconds, where it is known: what the mail
    /// says ("expires in 1 hour"). Nil: the mail says "expires soon".
    func codeLifetimeSeconds(_ type: OobRequestType) -> Int?
}

extension ActionLinkSource {
    func checkCredentials() async throws(BackendError) {}
}

extension ActionLinkRequest {
    /// The admin `accounts:sendOobCode` call: the link returned, no mail sent by the backend.
    var adminRequest: SendOobCodeRequest {
        SendOobCodeRequest(requestType: requestType, email: email, newEmail: newEmail, returnOobLink: true, settings: settings, tenantID: tenantID)
    }
}
