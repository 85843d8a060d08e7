import Hummingbird
import Logging
import NIOCore

/// The email action API: `POST /v1/accounts:sendOobCode?key=API_KEY` in Identity Toolkit's own
/// request shape. The backend makes the link (admin API, `returnOobLink`), LinkDomain puts it on
/// its own host, writes the mail and queues it; the answer does not say whether the address has
/// an account.
struct EmailActionController<Context: RequestContext>: Sendable {
    /// Where mails go; nil when no mail is configured (the API then says so).
    let outbox: MailOutbox?
    /// Where links come from; nil when the backend cannot make them (Google without a service account).
    let links: (any ActionLinkSource)?
    /// The API keys apps may call with (`backend.apiKey` and `backend.apiKeys`).
    let apiKeys: [String]
    let encoder: ActionLinkEncoder
    /// Mails one client address may ask for an hour (each recipient's budget is the outbox's).
    let perClient: RateLimiter
    let clientAddress: @Sendable (Request, Context) -> String

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
        guard let outbox, let links else {
            throw IdentityToolkitError(.operationNotAllowed, detail: outbox == nil
                ? "this link domain sends no mail: set mail.smtpURL" : "the backend cannot make links: set backend.serviceAccountFile")
        }
        let buffer: ByteBuffer
        do {
            buffer = try await request.body.collect(upTo: RequestBodyDecoder.maximumBodyBytes)
        } catch is NIOTooManyBytesError {
            throw RequestBodyDecoder.bodyTooLarge
        }
        let body = try RequestBodyDecoder.decode(buffer.readableBytesView, contentType: request.headers[.contentType],
                                                 maximumBytes: RequestBodyDecoder.maximumBodyBytes)
        let language = request.headers[.firebaseLocale] ?? request.uri.queryParameters["lang"].map(String.init)
        let action = try EmailActionRequest(body, locale: language)
        if await perClient.take(clientAddress(request, context)) != nil { throw IdentityToolkitError(.tooManyAttemptsTryLater) }

        var email: String
        switch action.subject {
        case .email(let address):
            email = address
        case .idToken(let token):
            let account = try await backendCall { () async throws(BackendError) in try await links.verify(idToken: token, tenantID: action.tenantID) }
            guard let address = account.email else { throw IdentityToolkitError.missingEmail }
            email = address
        }
        // An email change's code goes to the new address: following it proves the person owns it.
        let recipientText = action.newEmail ?? email
        let answer = GetOobConfirmationCodeResponse(email: recipientText)
        guard let recipient = MailAddress(recipientText) else { throw IdentityToolkitError(.invalidEmail) }
        if await !outbox.admit(recipient.value) { throw IdentityToolkitError(.tooManyAttemptsTryLater) }

        let linkRequest = ActionLinkRequest(requestType: action.requestType, email: email, newEmail: action.newEmail, settings: action.settings,
                                            tenantID: action.tenantID, languageCode: action.languageCode)
        guard let backendLink = try await backendCall({ () async throws(BackendError) in try await links.actionLink(linkRequest) }) else {
            // No account (a reset for an unknown address): the same answer, and no mail.
            return Response.json(answer)
        }
        guard case .success(let parsed) = LinkParser.parse(url: backendLink) else {
            throw IdentityToolkitError(.internalError, detail: "the backend's link could not be read", status: .badGateway)
        }
        let parameters = ActionLinkEncoder.Parameters(
            apiKey: parsed.apiKey ?? key, mode: parsed.mode.rawValue, oobCode: parsed.oobCode, continueURL: parsed.continueURL,
            languageCode: parsed.languageCode ?? action.languageCode, tenantID: parsed.tenantID)
        let link = action.opensInApp ? encoder.appLink(parameters) : encoder.actionURL(parameters)
        try await outbox.send(MailComposer.Content(
            kind: MailKind(action.requestType), language: action.languageCode, recipient: recipient,
            email: recipientText, newEmail: action.requestType == .verifyAndChangeEmail ? email : nil, link: link))
        return Response.json(answer)
    }

    /// A backend call whose refusal is passed on in Identity Toolkit's words, and whose failure is a 503.
    private func backendCall<T>(_ call: () async throws(BackendError) -> T) async throws(IdentityToolkitError) -> T {
        do {
            return try await call()
        } catch .rejected(let refusal) {
            throw IdentityToolkitError(refusal.code ?? .internalError, detail: refusal.detail)
        } catch {
            throw IdentityToolkitError(.internalError, detail: "the auth backend is unavailable", status: .serviceUnavailable)
        }
    }
}
