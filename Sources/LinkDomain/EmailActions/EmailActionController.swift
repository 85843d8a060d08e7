import Hummingbird
import LinkDomainCore
import LinkDomainStorage
import Logging
import NIOCore

/// The email action API: `POST /v1/accounts:sendOobCode?key=API_KEY` in Identity Toolkit's own
/// request shape. The backend makes the link (admin API, `returnOobLink`), LinkDomain puts it on
/// its own host, writes the mail and queues it; the answer does not say whether the address has
/// an account.
struct EmailActionController<Context: ClientAddressRequestContext>: Sendable {
    /// Nil when mail is off (no relay in a deployment) or the backend cannot make links (Google
    /// without a service account); `unavailable` says which.
    let sender: EmailActionSender?
    let unavailable: String
    /// Where a password reset's link and mail are made after the answer.
    let pendingWork: PendingWork
    /// The API keys apps may call with (`backend.apiKey` and `backend.apiKeys`).
    let apiKeys: [String]

    var routes: RouteCollection<Context> {
        let routes = RouteCollection(context: Context.self)
        routes.post(RouterPath(RoutePaths.sendEmailAction)) { request, context in
            do {
                return try await send(request, context: context)
            } catch let error as IdentityToolkitError {
                return Response.json(error.body, status: error.status)
            } catch {
                context.logger.error("email action failed", metadata: ["error": .string(String(describing: type(of: error)))])
                return Response.json(IdentityToolkitError.internalError.body, status: .internalServerError)
            }
        }
        return routes
    }

    private func send(_ request: Request, context: Context) async throws -> Response {
        let key = request.uri.queryParameters["key"].map(String.init) ?? request.headers[.googAPIKey]
        guard let key, !key.isEmpty else { throw IdentityToolkitError.missingAPIKey }
        guard apiKeys.contains(where: { ConstantTime.equal($0.utf8, key.utf8) }) else { throw IdentityToolkitError.invalidAPIKey }
        guard let sender else { throw IdentityToolkitError(.operationNotAllowed, detail: unavailable) }
        let buffer = try await RequestBodyDecoder.collect(request, upTo: RequestBodyDecoder.maximumBodyBytes)
        let body = try RequestBodyDecoder.decode(
            buffer.readableBytesView, contentType: request.headers[.contentType],
            maximumBytes: RequestBodyDecoder.maximumBodyBytes)
        let language = request.headers[.firebaseLocale] ?? request.uri.queryParameters["lang"].map(String.init)
        let action = try EmailActionRequest(body.decode(), locale: language)
        // Before the backend is asked to vouch for an ID token: an over-budget client costs nothing more.
        if await !sender.outbox.admit(client: context.clientAddress) { throw IdentityToolkitError(.tooManyAttemptsTryLater) }

        var email: String
        switch action.subject {
        case .email(let address):
            email = address
        case .idToken(let token):
            guard let address = try await sender.verify(idToken: token, tenantID: action.tenantID).email else { throw IdentityToolkitError.missingEmail }
            email = address
        }
        // An email change's code goes to the new address: following it proves the person owns it.
        let recipientText = action.newEmail ?? email
        guard let recipient = MailAddress(recipientText) else { throw IdentityToolkitError(.invalidEmail) }
        if await !sender.outbox.admit(recipient.value, client: "") { throw IdentityToolkitError(.tooManyAttemptsTryLater) }  // client counted above
        let linkRequest = ActionLinkRequest(
            requestType: action.requestType, email: email, newEmail: action.newEmail, settings: action.settings,
            tenantID: action.tenantID, languageCode: action.languageCode)
        // No account (a reset for an unknown address): the same answer, and no mail. The backend
        // makes a reset's link only for an address with an account, and a mail takes time to write:
        // both happen after the answer, so that its timing says nothing about the address.
        if case .email = action.subject, action.requestType == .passwordReset {
            // What fails for every address (refused credentials) is still the caller's to hear.
            try await sender.checkCredentials()
            let logger = context.logger
            pendingWork.start {
                do {
                    _ = try await sender.send(linkRequest, to: recipient, apiKey: key, opensInApp: action.opensInApp)
                } catch {
                    // The code only: a detail may quote the backend's answer, which can name the address.
                    logger.error(
                        "password reset mail not sent",
                        metadata: ["error": .string((error as? IdentityToolkitError)?.code.rawValue ?? String(describing: type(of: error)))])
                }
            }
            return Response.json(GetOobConfirmationCodeResponse(email: recipientText))
        }
        _ = try await sender.send(linkRequest, to: recipient, apiKey: key, opensInApp: action.opensInApp)
        return Response.json(GetOobConfirmationCodeResponse(email: recipientText))
    }
}
