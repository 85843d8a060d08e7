import Foundation
import Hummingbird
import LinkDomainCore
import LinkDomainStorage
import Logging
import NIOFoundationEssentialsCompat

/// The Dynamic Links REST API that apps and back ends used to make links:
/// `POST /v1/shortLinks` and `GET /v1/{shortLink}/linkStats`, authenticated by configured API keys;
/// and listing, disabling and deleting them (``addListingRoutes(to:)``).
struct ShortLinksController<Context: RequestContext>: Sendable {
    let configuration: LinkDomainConfiguration
    let store: any LinkStore
    let linkEvents: LinkEventRecorder
    let clock: any WallClock
    let operations: ShortLinkOperations

    var routes: RouteCollection<Context> {
        let routes = RouteCollection(context: Context.self)
        routes.post(RouterPath(RoutePaths.createShortLink)) { request, context in
            await ShortLinkAPIError.answer { () async throws(ShortLinkAPIError) in try await create(request, context: context) }
        }
        routes.get(RouterPath(RoutePaths.linkStatistics)) { request, context in
            let shortLink = context.parameters.get("shortLink") ?? ""
            return await ShortLinkAPIError.answer { () async throws(ShortLinkAPIError) in try await stats(request, shortLink: shortLink) }
        }
        addListingRoutes(to: routes)
        return routes
    }

    private func create(_ request: Request, context: Context) async throws(ShortLinkAPIError) -> CreatedShortLink {
        let actor = try authorize(request)
        let parsed = try parsedLink(try await jsonBody(request))
        let suffix = try await operations.create(parsed, actor: actor, logger: context.logger)
        let shortLink = "\(configuration.publicBaseURL)/\(suffix)"
        return CreatedShortLink(
            shortLink: shortLink, previewLink: "\(shortLink)?d=1",
            warning: parsed.warnings.map { .init(warningCode: $0.code, warningMessage: $0.message) })
    }

    /// The request's JSON object (64 KiB at most).
    func jsonBody(_ request: Request) async throws(ShortLinkAPIError) -> [String: JSONValue] {
        let buffer: ByteBuffer
        do {
            buffer = try await request.body.collect(upTo: 64 * 1024)
        } catch {
            throw .invalidArgument("the request body is too large")
        }
        guard case .object(let body)? = try? JSONDecoder().decode(JSONValue.self, from: Data(buffer: buffer)) else {
            throw .invalidArgument("the request body must be a JSON object")
        }
        return body
    }

    /// A link as `POST /v1/shortLinks` and `PATCH` take it, checked against this configuration.
    func parsedLink(_ body: [String: JSONValue]) throws(ShortLinkAPIError) -> ShortLinkRequest {
        try ShortLinkRequest(
            body, publicBaseURL: configuration.publicBaseURL, appleApps: configuration.apple.apps,
            androidApps: configuration.android.apps, policy: RedirectPolicy(authorizedDomains: configuration.authorizedDomains))
    }

    private func stats(_ request: Request, shortLink encoded: String) async throws(ShortLinkAPIError) -> LinkStatistics {
        try authorize(request)
        let shortLink = QueryString.percentDecode(Substring(encoded))
        let prefix = configuration.publicBaseURL + "/"
        guard shortLink.lowercased().hasPrefix(prefix.lowercased()) else { throw .invalidArgument("not a short link of this link domain") }
        let suffix = String(shortLink.dropFirst(prefix.count))
        guard let days = request.uri.queryParameters["durationDays"].flatMap({ Int($0) }), (1...3650).contains(days) else {
            throw .invalidArgument("durationDays must be a whole number of days from 1 to 3650")
        }
        let counts: [LinkEventCount]
        do {
            guard try await store.shortLink(suffix: suffix) != nil else { throw ShortLinkAPIError.notFound("no such short link") }
            await linkEvents.flush()
            counts = try await store.eventCounts(suffix: suffix, fromDay: LinkStatistics.day(ofMilliseconds: clock.nowMilliseconds()) - days + 1)
        } catch let error as ShortLinkAPIError {
            throw error
        } catch {
            throw .unavailable
        }
        return LinkStatistics.dynamicLinksShape(counts)
    }

    /// The caller's short-link key, checked in constant time against every configured one; returns
    /// the actor audit lines name it by (`api-key-` and its digest's first 8 hex digits, never the key).
    @discardableResult
    func authorize(_ request: Request) throws(ShortLinkAPIError) -> String {
        guard let given = request.uri.queryParameters["key"].map(String.init),
            let key = configuration.shortLinks.apiKeys.first(where: { ConstantTime.equal($0.utf8, given.utf8) })
        else {
            throw .permissionDenied("API key not valid. Please pass a valid API key.")
        }
        return Self.actor(key)
    }

    /// Which short-link key made a change, as audit lines say it.
    static func actor(_ key: String) -> String {
        "api-key-" + KeyDigest.hex(key, bytes: 4)
    }
}

/// `POST /v1/shortLinks`'s answer, as Dynamic Links gave it.
struct CreatedShortLink: Encodable, Sendable {
    struct Warning: Encodable, Sendable {
        let warningCode: String
        let warningMessage: String
    }

    let shortLink: String
    /// The link with `?d=1`: the page showing where each device would go.
    let previewLink: String
    let warning: [Warning]
}

/// Link statistics in the Dynamic Links shape:
/// `{"linkEventStats":[{"platform":"IOS","count":"3","event":"CLICK"}, ...]}`.
struct LinkStatistics: Encodable, Sendable {
    struct Row: Encodable, Sendable, Equatable {
        let platform: String
        /// A decimal string (int64 in JSON).
        let count: String
        let event: String
    }

    let linkEventStats: [Row]

    /// Days since 1970, UTC.
    static func day(ofMilliseconds milliseconds: Int64) -> Int { Int(milliseconds / 86_400_000) }

    /// Platforms and events as the Dynamic Links API names them (its published enums: Google's
    /// generated clients refuse any other value): `CLICK`, `REDIRECT` summing every redirect, and
    /// the app's `APP_INSTALL`, `APP_FIRST_OPEN` and `APP_RE_OPEN`.
    /// Where each redirect went (app, store, fallback) is kept for `/metrics`.
    static func dynamicLinksShape(_ counts: [LinkEventCount]) -> LinkStatistics {
        var totals: [String: [String: Int]] = [:]
        for count in counts {
            let platform =
                switch count.platform {
                case .iOS, .iPadOS: "IOS"
                case .android: "ANDROID"
                case .desktop: "DESKTOP"
                case .bot: "OTHER"
                }
            let event =
                switch count.event {
                case .click: "CLICK"
                case .redirectToApp, .redirectToStore, .redirectToFallback: "REDIRECT"
                case .appInstall, .appFirstOpen, .appReOpen: count.event.rawValue
                }
            totals[platform, default: [:]][event, default: 0] += count.count
        }
        let rows = totals.sorted { $0.key < $1.key }.flatMap { platform, events in
            events.sorted { $0.key < $1.key }.map { event, count in Row(platform: platform, count: String(count), event: event) }
        }
        return LinkStatistics(linkEventStats: rows)
    }
}
