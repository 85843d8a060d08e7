import Foundation
import Hummingbird
import LinkDomainCore
import LinkDomainStorage

/// The mail queue for scripts, what the console's Mail page does: `GET /v1/mail` (by state or by
/// recipient, `query=ADDRESS`, newest first, paged), `POST /v1/mail/{id}:retry`, `DELETE /v1/mail/{id}`. An admin's call:
/// `Authorization: Bearer` with one of `backend.adminKeys` (in development also the emulator's
/// `Bearer owner`). Recipients are masked unless `showAddresses=true`, which is audited; never a
/// message, link or code. Errors in Google's JSON shape.
struct MailQueueController<Context: RequestContext>: Sendable {
    let operations: MailQueueOperations
    let adminKeys: [String]
    let mode: ServingMode

    static var path: String { "/v1/mail" }

    var routes: RouteCollection<Context> {
        let routes = RouteCollection(context: Context.self)
        routes.get(RouterPath(Self.path)) { request, context in
            await ShortLinkAPIError.answer { () async throws(ShortLinkAPIError) in try await list(request, context: context) }
        }
        routes.post(RouterPath("\(Self.path)/:name")) { request, context in
            await ShortLinkAPIError.answer { () async throws(ShortLinkAPIError) in
                let actor = try authorize(request)
                let parts = (context.parameters.get("name") ?? "").split(separator: ":", maxSplits: 1)
                guard parts.count == 2, parts[1] == "retry" else { throw .notFound("no such method: use {id}:retry") }
                try await changed { () async throws(StoreError) in try await operations.retry(String(parts[0]), actor: actor, logger: context.logger) }
                return EmptyAnswer()
            }
        }
        routes.delete(RouterPath("\(Self.path)/:name")) { request, context in
            await ShortLinkAPIError.answer { () async throws(ShortLinkAPIError) in
                let actor = try authorize(request)
                let id = context.parameters.get("name") ?? ""
                try await changed { () async throws(StoreError) in try await operations.discard(id, actor: actor, logger: context.logger) }
                return EmptyAnswer()
            }
        }
        return routes
    }

    /// The caller's actor for audit lines; refused unless it is an admin's call.
    private func authorize(_ request: Request) throws(ShortLinkAPIError) -> String {
        let authorization = request.headers[.authorization] ?? ""
        let token = authorization.hasPrefix("Bearer ") ? String(authorization.dropFirst("Bearer ".count)) : ""
        if !token.isEmpty, let key = adminKeys.first(where: { ConstantTime.equal($0.utf8, token.utf8) }) { return ConsoleAccess.adminActor(key) }
        if mode == .development, token == "owner" { return "development" }
        throw .permissionDenied("an admin key is required: Authorization: Bearer <one of backend.adminKeys>")
    }

    private func changed(_ operation: () async throws(StoreError) -> Bool) async throws(ShortLinkAPIError) {
        let changed: Bool
        do {
            changed = try await operation()
        } catch {
            throw .unavailable
        }
        guard changed else { throw .notFound("no such mail waiting or failed, or a sender holds it this moment") }
    }

    private func list(_ request: Request, context: Context) async throws(ShortLinkAPIError) -> MailList {
        let actor = try authorize(request)
        let parameters = request.uri.queryParameters
        // "I never got the mail": a recipient's mails in every state, unless a state is asked for too.
        let recipient = parameters["query"].map { String($0).trimmingCharacters(in: .whitespaces) }.flatMap { $0.isEmpty ? nil : $0 }
        guard (recipient?.utf8.count ?? 0) <= 320 else { throw .invalidArgument("query is longer than an address can be (320 bytes)") }
        var state: MailState?
        if let named = parameters["state"] {
            guard let parsed = MailState(rawValue: String(named)) else { throw .invalidArgument("state must be queued, sent or failed") }
            state = parsed
        } else if recipient == nil {
            state = .failed
        }
        let limit = try APIPaging.size(parameters["pageSize"], default: 50)
        let after = try APIPaging.after(parameters["pageToken"], MailCursor.init(pageToken:))
        let show = parameters["showAddresses"] == "true"
        let mails: [MailListing]
        do {
            mails = try await operations.list(MailQuery(state: state, recipient: recipient, after: after, limit: limit))
        } catch {
            throw .unavailable
        }
        if recipient != nil { operations.recipientSearched(actor: actor, logger: context.logger) }
        if show, !mails.isEmpty { operations.addressesShown(state, actor: actor, logger: context.logger) }
        return MailList(
            mails: mails.map { mail in
                MailList.Mail(
                    id: mail.id, recipient: show ? mail.recipient : MailQueueOperations.masked(mail.recipient), kind: mail.kind,
                    language: mail.language, state: mail.state.rawValue, queueTime: RFC3339.string(milliseconds: mail.queuedAt),
                    attempts: mail.attempts, lastError: mail.lastError, finishTime: mail.finishedAt.map { RFC3339.string(milliseconds: $0) },
                    nextAttemptTime: mail.nextAttemptAt.map { RFC3339.string(milliseconds: $0) })
            },
            nextPageToken: mails.count == limit ? mails.last.map { MailCursor(queuedAt: $0.queuedAt, id: $0.id).pageToken } : nil)
    }
}

/// `GET /v1/mail`'s answer.
struct MailList: Encodable, Sendable {
    struct Mail: Encodable, Sendable {
        let id: String
        let recipient: String
        let kind: String
        let language: String
        let state: String
        let queueTime: String
        let attempts: Int
        let lastError: String?
        let finishTime: String?
        /// A waiting mail's next attempt.
        let nextAttemptTime: String?
    }

    let mails: [Mail]
    let nextPageToken: String?
}
