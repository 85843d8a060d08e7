import HTTPTypes
import LinkDomainCore
import LinkDomainStorage

/// Sends an email action's mail: the backend makes the link (admin API, `returnOobLink`), it is
/// put on this service's host in the shape real mails have, and the mail is written and queued.
/// The email action API and the pages' "send me a link" button share it.
struct EmailActionSender: Sendable {
    let outbox: MailOutbox
    let links: any ActionLinkSource
    let encoder: ActionLinkEncoder

    /// Mails `request`'s link to `recipient`; false when there is no account to send it to (the
    /// caller answers the same either way).
    ///
    /// - Parameters:
    ///   - apiKey: what the link carries when the backend's link names none.
    ///   - opensInApp: the app form (`/__/auth/links?link=`) rather than the bare action URL.
    func send(_ request: ActionLinkRequest, to recipient: MailAddress, apiKey: String, opensInApp: Bool) async throws(IdentityToolkitError) -> Bool {
        guard let backendLink = try await Self.backendCall({ () async throws(BackendError) in try await links.actionLink(request) }) else {
            return false
        }
        guard case .success(let parsed) = LinkParser.parse(url: backendLink) else {
            throw IdentityToolkitError(.internalError, detail: "the backend's link could not be read", status: .badGateway)
        }
        let parameters = ActionLinkEncoder.Parameters(
            apiKey: parsed.apiKey ?? apiKey, mode: parsed.mode.rawValue, oobCode: parsed.oobCode, continueURL: parsed.continueURL,
            languageCode: parsed.languageCode ?? request.languageCode, tenantID: parsed.tenantID)
        let link = opensInApp ? encoder.appLink(parameters) : encoder.actionURL(parameters)
        do {
            try await outbox.send(
                MailComposer.Content(
                    // The language the link carries, so that the page it opens speaks the mail's.
                    kind: MailKind(request.requestType), language: parameters.languageCode, recipient: recipient, email: recipient.value,
                    newEmail: request.requestType == .verifyAndChangeEmail ? request.email : nil, link: link,
                    validForSeconds: links.codeLifetimeSeconds(request.requestType)))
        } catch {
            throw IdentityToolkitError(.internalError, detail: "the mail could not be stored", status: .serviceUnavailable)
        }
        return true
    }

    /// Fails as ``send(_:to:apiKey:opensInApp:)`` would whatever the address (the backend refuses
    /// our credentials), for an answer given before the link is made.
    func checkCredentials() async throws(IdentityToolkitError) {
        try await Self.backendCall { () async throws(BackendError) in try await links.checkCredentials() }
    }

    /// The account behind an ID token, as the backend vouches for it.
    func verify(idToken: String, tenantID: String?) async throws(IdentityToolkitError) -> VerifiedAccount {
        try await Self.backendCall { () async throws(BackendError) in try await links.verify(idToken: idToken, tenantID: tenantID) }
    }

    /// A backend call whose refusal is passed on in Identity Toolkit's words, and whose failure is a 503.
    static func backendCall<T>(_ call: () async throws(BackendError) -> T) async throws(IdentityToolkitError) -> T {
        do {
            return try await call()
        } catch .rejected(let refusal) {
            throw IdentityToolkitError(refusal.code ?? .internalError, detail: refusal.detail)
        } catch {
            throw IdentityToolkitError(.internalError, detail: "the auth backend is unavailable", status: .serviceUnavailable)
        }
    }
}
