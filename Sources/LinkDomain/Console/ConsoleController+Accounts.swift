import Foundation
import Hummingbird
import LinkDomainCore
import LinkDomainStorage

/// The embedded backend's accounts in the console, like the Auth emulator's UI: find one by
/// address, user ID or phone; see it; disable, enable, sign it out everywhere, mail it a
/// password-reset or verify-email link, delete it.
extension ConsoleController {
    static var accountsPath: String { "\(base)/accounts" }

    func addAccountRoutes(to routes: RouterGroup<Context>) {
        routes.get(RouterPath(Self.accountsPath)) { request, context in
            try await page(request, context: context) { request, session in try await accountSearch(request, session: session) }
        }
        routes.get(RouterPath("\(Self.accountsPath)/:id")) { request, context in
            try await page(request, context: context) { request, session in
                try await accountPage(Self.accountID(context), request: request, session: session)
            }
        }
        routes.post(RouterPath("\(Self.accountsPath)/:id/:item")) { request, context in
            try await change(request, context: context) { session, form in
                try await accountAction(
                    Self.accountID(context), action: context.parameters.get("item") ?? "", form: form, session: session,
                    context: context)
            }
        }
    }

    /// The account ID a path names: its segment percent-decoded (IDs may hold `/`, `?`, spaces).
    private static func accountID(_ context: Context) -> String {
        let segment = context.parameters.get("id") ?? ""
        return segment.removingPercentEncoding ?? segment
    }

    private func accountSearch(_ request: Request, session: ConsoleSession) async throws -> Response {
        guard let embedded else { throw HTTPError(.notFound) }
        let query = Self.searchText(request, "q", limit: 320).trimmingCharacters(in: .whitespaces)
        let found = try await embedded.findAccounts(query)
        let values: [String: Any] = [
            "query": query, "searched": !query.isEmpty, "hasAccounts": !found.isEmpty,
            "accounts": found.map { user -> [String: Any] in
                [
                    "id": user.localID, "path": ActionLinkEncoder.percentEncode(user.localID), "email": user.email ?? "", "phone": user.phoneNumber ?? "",
                    "state": renderer[user.disabled ? .disabled : .enabled],
                ]
            },
        ]
        let notice = request.uri.queryParameters["done"] == "deleted" ? renderer[.accountDeleted] : nil
        return renderer.page("console-accounts", title: renderer[.accounts], chrome: chrome(session, .accounts), values: values, notice: notice)
    }

    private func accountPage(_ id: String, request: Request, session: ConsoleSession) async throws -> Response {
        guard let embedded else { throw HTTPError(.notFound) }
        guard let user = try await embedded.account(localID: id) else {
            return message(renderer[.notFound], in: .accounts, session: session, back: Self.accountsPath, status: .notFound)
        }
        let path = "\(Self.accountsPath)/\(ActionLinkEncoder.percentEncode(id))"
        func when(_ milliseconds: Int64?) -> String {
            milliseconds.map { RFC3339.readable(milliseconds: $0) + " UTC" } ?? renderer[.never]
        }
        var providers: [String] = []
        if user.passwordHash != nil { providers.append("password") }
        if user.emailLinkSignIn { providers.append("emailLink") }
        if user.phoneNumber != nil { providers.append("phone") }
        let facts: [(ConsoleText, String)] = [
            (.userId, user.localID), (.email, user.email ?? "—"), (.phone, user.phoneNumber ?? "—"),
            (.verified, renderer[user.emailVerified ? .yes : .no]), (.state, renderer[user.disabled ? .disabled : .enabled]),
            (.providers, providers.isEmpty ? "—" : providers.joined(separator: ", ")), (.createdAt, when(user.createdAt)),
            (.lastSignIn, when(user.lastLoginAt)),
        ]
        var actions: [(item: String, label: ConsoleText, style: String, confirm: ConsoleText?)] = [
            (user.disabled ? "enable" : "disable", user.disabled ? .enable : .disable, "secondary", nil),
            ("revoke", .revokeSessions, "secondary", nil),
        ]
        if user.email != nil {
            actions += [("send-reset", .sendReset, "secondary", nil), ("send-verify", .sendVerify, "secondary", nil)]
        }
        actions.append(("delete", .delete, "danger", .deleteAccountConfirm))
        // "I never got the mail": this address's latest mails (the address is on the page already).
        let mails = await accountMails(user.email)
        let values: [String: Any] = [
            "hasMails": !mails.isEmpty, "mails": mails,
            "allMailsHref": "\(Self.mailPath)?to=\(ActionLinkEncoder.percentEncode(user.email ?? ""))",
            "facts": facts.map { ["name": renderer[$0.0], "value": $0.1] },
            "actions": actions.map { action -> [String: Any] in
                var form: [String: Any] = [
                    "action": "\(path)/\(action.item)", "token": token(session, "\(path)/\(action.item)"),
                    "label": renderer[action.label], "style": action.style,
                ]
                if let confirm = action.confirm { form["confirm"] = renderer[confirm] }
                return form
            },
        ]
        let notice: String? =
            switch request.uri.queryParameters["done"] {
            case "disabled"?: renderer[.accountDisabled]
            case "enabled"?: renderer[.accountEnabled]
            case "revoked"?: renderer[.sessionsRevoked]
            case "mailed"?: renderer[.mailSentToAccount]
            case "logged"?: renderer[.mailLoggedForAccount]
            case "no-relay"?: renderer[.noMailRelay]
            default: nil
            }
        return renderer.page(
            "console-account", title: renderer.format(.accountTitle, ["id": user.localID]), chrome: chrome(session, .accounts),
            values: values, notice: notice)
    }

    private func accountAction(_ id: String, action: String, form: [String: String], session: ConsoleSession, context: Context) async throws -> Response {
        guard let embedded, let user = try await embedded.account(localID: id) else { throw HTTPError(.notFound) }
        let path = "\(Self.accountsPath)/\(ActionLinkEncoder.percentEncode(id))"
        do {
            let done: String
            switch action {
            case "disable", "enable":
                try await embedded.setDisabled(action == "disable", localID: id)
                done = "\(action)d"
            case "revoke":
                try await embedded.revokeSessions(localID: id, now: clock.nowMilliseconds())
                done = "revoked"
            case "send-reset", "send-verify":
                guard embedded.makesMail, let email = user.email else { return redirect(to: "\(path)?done=no-relay") }
                try await embedded.sendMail(action == "send-reset" ? .passwordReset : .verifyEmail, email: email)
                done = configuration.mailIsOnlyLogged ? "logged" : "mailed"
            case "delete" where form["confirm"] == "yes":
                try await embedded.deleteAccount(localID: id)
                AuditLog.record(actor: session.actor, action: "account.delete", object: id, logger: context.logger)
                return redirect(to: "\(Self.accountsPath)?done=deleted")
            case "delete":
                return redirect(to: path)
            default:
                throw HTTPError(.notFound)
            }
            AuditLog.record(actor: session.actor, action: "account.\(action)", object: id, logger: context.logger)
            return redirect(to: "\(path)?done=\(done)")
        } catch let refusal as IdentityToolkitError {
            return message(
                renderer.format(.accountRefused, ["reason": refusal.code.rawValue]), in: .accounts, session: session, back: path,
                status: .badRequest)
        }
    }

    /// The newest mails to exactly `email` (the queue's search matches part of an address), as rows.
    private func accountMails(_ email: String?) async -> [[String: Any]] {
        guard let email, !email.isEmpty, let found = try? await mailQueue.list(MailQuery(recipient: email, limit: 50)) else { return [] }
        let logsOnly = configuration.mailIsOnlyLogged
        return found.filter { $0.recipient.caseInsensitiveCompare(email) == .orderedSame }.prefix(10).map { mail in
            [
                "kind": mail.kind, "state": renderer[Self.label(mail.state, logsOnly: logsOnly)], "queued": RFC3339.readable(milliseconds: mail.queuedAt),
                "nextAttempt": mail.nextAttemptAt.map { RFC3339.readable(milliseconds: $0) } ?? "", "lastError": mail.lastError ?? "",
            ]
        }
    }
}
