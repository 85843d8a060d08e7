import Foundation
import Hummingbird
import LinkDomainCore
import LinkDomainStorage

/// What a link's page changes: where it leads (with its preview and fallbacks), its state, its existence.
extension ConsoleController {
    func linkAction(
        _ suffix: String, action: String, form: [String: String], request: Request, session: ConsoleSession, context: Context
    ) async throws -> Response {
        do {
            switch action {
            case "disable", "enable":
                try await links.setDisabled(action == "disable", suffix: suffix, actor: session.actor, logger: context.logger)
                return redirect(to: "\(Self.linksPath)/\(suffix)?done=\(action)d")
            case "delete" where form["confirm"] == "yes":
                try await links.delete(suffix: suffix, actor: session.actor, logger: context.logger)
                return redirect(to: "\(Self.linksPath)?done=deleted-\(suffix)")
            case "delete":
                return redirect(to: "\(Self.linksPath)/\(suffix)")
            case "edit":
                guard let listing = try await admin.shortLinkListing(suffix: suffix) else { throw ShortLinkAPIError.notFound("no such short link") }
                let query = QueryEdit.setting(
                    Self.editedParameters.map { ($0, (form[$0] ?? "").trimmingCharacters(in: .whitespaces)) }, in: listing.record.longLinkQuery)
                // Checked as the link API checks a PATCH: the same request, the same refusals.
                let parsed = try ShortLinkRequest(
                    ["longDynamicLink": .string("\(configuration.publicBaseURL)/?\(query)")], publicBaseURL: configuration.publicBaseURL,
                    appleApps: configuration.apple.apps, androidApps: configuration.android.apps,
                    policy: RedirectPolicy(authorizedDomains: configuration.authorizedDomains))
                try await links.update(suffix: suffix, longLinkQuery: parsed.longLinkQuery, actor: session.actor, logger: context.logger)
                return redirect(to: "\(Self.linksPath)/\(suffix)?done=changed")
            default:
                throw HTTPError(.notFound)
            }
        } catch .invalidArgument(let problem) as ShortLinkAPIError {
            guard action == "edit" else { return message(problem, in: .links, session: session, back: "\(Self.linksPath)/\(suffix)", status: .badRequest) }
            // The link's page again, its form as typed and what is wrong above it.
            let typed = Dictionary(uniqueKeysWithValues: Self.editedParameters.map { ($0, form[$0] ?? "") })
            return try await linkPage(suffix, request: request, session: session, context: context, refused: (problem, typed))
        } catch let error as ShortLinkAPIError {
            return error == .unavailable
                ? message(renderer[.unavailable], in: .links, session: session, back: Self.linksPath, status: .serviceUnavailable)
                : message(renderer[.notFound], in: .links, session: session, back: Self.linksPath, status: .notFound)
        }
    }

    /// What a link's page edits: where it leads, its chat preview and its fallbacks.
    static var editedParameters: [String] { ["link", "st", "sd", "si", "afl", "ifl", "ofl"] }
}
