import Foundation
import Hummingbird
import LinkDomainCore
import LinkDomainStorage

/// The mail queue in the console: waiting, sent and failed mails with the relay's last answer,
/// addresses masked unless asked for; "Retry now" and "Discard". Never a message, link or code.
extension ConsoleController {
    static var mailPath: String { "\(base)/mail" }

    func addMailRoutes(to routes: RouterGroup<Context>) {
        routes.get(RouterPath(Self.mailPath)) { request, context in
            try await page(request, context: context) { request, session in try await mailList(request, session: session, context: context) }
        }
        routes.post(RouterPath("\(Self.mailPath)/:id/:action")) { request, context in
            try await change(request, context: context) { session, _ in
                try await mailAction(context.parameters.get("id") ?? "", action: context.parameters.get("action") ?? "", session: session, context: context)
            }
        }
    }

    private func mailList(_ request: Request, session: ConsoleSession, context: Context) async throws -> Response {
        let parameters = request.uri.queryParameters
        // In development without a relay every mail is logged, not sent: those are the ones to list first.
        let logsOnly = configuration.mailIsOnlyLogged
        // "I never got the mail": one address's mails in every state, the addresses found shown (and audited).
        let recipient = Optional(Self.searchText(request, "to", limit: 320).trimmingCharacters(in: .whitespaces)).flatMap { $0.isEmpty ? nil : $0 }
        let state = recipient != nil ? nil : parameters["state"].flatMap { MailState(rawValue: String($0)) } ?? (logsOnly ? .sent : .failed)
        let show = parameters["show"] == "1" || recipient != nil
        let after = parameters["after"].flatMap(MailCursor.init(pageToken:))
        let limit = 50
        let mails: [MailListing]
        do {
            mails = try await mailQueue.list(MailQuery(state: state, recipient: recipient, after: after, limit: limit))
        } catch {
            return message(renderer[.unavailable], in: .mail, session: session, status: .serviceUnavailable)
        }
        if recipient != nil {
            mailQueue.recipientSearched(actor: session.actor, logger: context.logger)
        } else if show, !mails.isEmpty {
            mailQueue.addressesShown(state, actor: session.actor, logger: context.logger)
        }
        let href = { (state: MailState, show: Bool) in "\(Self.mailPath)?state=\(state.rawValue)\(show ? "&show=1" : "")" }
        let current = state ?? .failed
        var values: [String: Any] = [
            "states": [MailState.failed, .queued, .sent].map { option -> [String: Any] in
                ["href": href(option, show), "label": renderer[Self.label(option, logsOnly: logsOnly)], "current": option == state]
            },
            "stateLabel": state.map { renderer[Self.label($0, logsOnly: logsOnly)] } ?? renderer[.searchMail],
            "showAddresses": show, "showHref": href(current, true), "hideHref": href(current, false), "searching": recipient != nil,
            "recipientQuery": recipient ?? "", "hasMails": !mails.isEmpty,
            // A state column when states are mixed; a next-attempt column where mails wait.
            "showsState": state == nil, "showsNextAttempt": state == nil || state == .queued, "actionable": state != .sent,
            "mails": mails.map { mail -> [String: Any] in
                var row: [String: Any] = [
                    "id": mail.id, "recipient": show ? mail.recipient : MailQueueOperations.masked(mail.recipient), "kind": mail.kind,
                    "language": mail.language, "state": renderer[Self.label(mail.state, logsOnly: logsOnly)],
                    "queued": RFC3339.readable(milliseconds: mail.queuedAt),
                    "nextAttempt": mail.nextAttemptAt.map { RFC3339.readable(milliseconds: $0) } ?? "",
                    "attempts": String(mail.attempts), "lastError": mail.lastError ?? "",
                ]
                if mail.state != .sent {
                    row["retryToken"] = token(session, "\(Self.mailPath)/\(mail.id)/retry")
                    row["discardToken"] = token(session, "\(Self.mailPath)/\(mail.id)/discard")
                }
                return row
            },
        ]
        if mails.count == limit, let last = mails.last {
            let page = recipient.map { "\(Self.mailPath)?to=\(ActionLinkEncoder.percentEncode($0))" } ?? href(current, show)
            values["next"] = page + "&after=" + MailCursor(queuedAt: last.queuedAt, id: last.id).pageToken
        }
        let notice: String? =
            switch parameters["done"] {
            case "retried"?: renderer[.mailRetried]
            case "discarded"?: renderer[.mailDiscarded]
            case "unchanged"?: renderer[.mailNotChanged]
            default: nil
            }
        return renderer.page("console-mail", title: renderer[.mail], chrome: chrome(session, .mail), values: values, notice: notice)
    }

    private func mailAction(_ id: String, action: String, session: ConsoleSession, context: Context) async throws -> Response {
        guard id.utf8.count <= 100 else { throw HTTPError(.notFound) }
        let changed: Bool
        switch action {
        case "retry": changed = try await mailQueue.retry(id, actor: session.actor, logger: context.logger)
        case "discard": changed = try await mailQueue.discard(id, actor: session.actor, logger: context.logger)
        default: throw HTTPError(.notFound)
        }
        let state = action == "retry" && changed ? "queued" : "failed"
        return redirect(to: "\(Self.mailPath)?state=\(state)&done=\(changed ? (action == "retry" ? "retried" : "discarded") : "unchanged")")
    }

    static func label(_ state: MailState, logsOnly: Bool) -> ConsoleText {
        switch state {
        case .queued: .mailQueued
        case .sent: logsOnly ? .mailLogged : .mailSent
        case .failed: .mailFailed
        }
    }
}
