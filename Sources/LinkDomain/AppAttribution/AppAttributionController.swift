import Foundation
import Hummingbird

/// The app half of Dynamic Links, in the `firebasedynamiclinks v1` discovery document's shapes:
/// `POST /v1/reopenAttribution` (what the link an app was opened with means) and
/// `POST /v1/installAttribution` (the link an app was installed through, from a hand-off token).
/// Called by apps with the public API key they ship; never matched by IP address, device or time.
struct AppAttributionController<Context: RequestContext>: Sendable {
    let configuration: LinkDomainConfiguration
    let store: any LinkStore
    let linkEvents: LinkEventRecorder
    let sealer: HandoffSealer
    let clock: any WallClock
    /// Built once: its host set and action paths come from the configuration.
    let resolver: AppLinkResolver

    init(configuration: LinkDomainConfiguration, store: any LinkStore, linkEvents: LinkEventRecorder, sealer: HandoffSealer, clock: any WallClock) {
        self.configuration = configuration
        self.store = store
        self.linkEvents = linkEvents
        self.sealer = sealer
        self.clock = clock
        resolver = AppLinkResolver(configuration: configuration)
    }

    var routes: RouteCollection<Context> {
        let routes = RouteCollection(context: Context.self)
        routes.post(RouterPath(RoutePaths.reopenAttribution)) { request, context in
            await ShortLinkAPIError.answer { () async throws(ShortLinkAPIError) in try await reopen(request, context: context) }
        }
        routes.post(RouterPath(RoutePaths.installAttribution)) { request, context in
            await ShortLinkAPIError.answer { () async throws(ShortLinkAPIError) in try await install(request, context: context) }
        }
        return routes
    }

    /// `GetIosReopenAttributionRequest` → `GetIosReopenAttributionResponse`; counts `APP_RE_OPEN`.
    func reopen(_ request: Request, context: Context) async throws(ShortLinkAPIError) -> ReopenAttribution {
        let body: ReopenRequest = try await decode(request)
        let platform = try app(body.bundleId)
        guard let requested = body.requestedLink, !requested.isEmpty else { throw .invalidArgument("requestedLink is required") }
        let link = try await resolve(requested, context: context)
        if let suffix = link.suffix { linkEvents.record([.appReOpen], suffix: suffix, platform: platform) }
        return ReopenAttribution(link)
    }

    /// `GetIosPostInstallAttributionRequest` → `GetIosPostInstallAttributionResponse`: a hand-off
    /// (its URL, its token, or a Play referrer holding one) claimed once, or a link of this domain
    /// the app found itself; anything else matches nothing. Counts `APP_INSTALL` and `APP_FIRST_OPEN`.
    func install(_ request: Request, context: Context) async throws(ShortLinkAPIError) -> InstallAttribution {
        let body: InstallRequest = try await decode(request)
        let platform = try app(body.bundleId)
        guard let candidate = body.uniqueMatchLinkToCheck?.trimmingCharacters(in: .whitespacesAndNewlines), !candidate.isEmpty else {
            return .noMatch("no uniqueMatchLinkToCheck: this service never guesses an install from the device, its address or the time")
        }
        let requested: String
        if let token = HandoffPaths.token(in: candidate, hosts: resolver.hosts) {
            guard let handoff = sealer.open(token) else { return .noMatch("the hand-off token is not one this service made") }
            let now = clock.nowSeconds
            guard handoff.expiresAt >= now else { return .noMatch("the hand-off token has expired") }
            let claimed: Bool
            do {
                claimed = try await store.claimHandoff(id: handoff.id, at: now * 1000,
                                                       forgetBefore: (now - Int64(configuration.handoffLifetimeSeconds)) * 1000)
            } catch {
                context.logger.error("hand-off claim failed", metadata: ["error": .string("\(error)")])
                throw .unavailable
            }
            guard claimed else { return .noMatch("the hand-off token was already claimed") }
            requested = handoff.link
        } else {
            requested = candidate
        }
        guard let link = try? await resolve(requested, context: context) else {
            return .noMatch("uniqueMatchLinkToCheck is not a link of this link domain")
        }
        if let suffix = link.suffix { linkEvents.record([.appInstall, .appFirstOpen], suffix: suffix, platform: platform) }
        return InstallAttribution(link)
    }

    /// The link resolved; a short link from the store.
    private func resolve(_ requested: String, context: Context) async throws(ShortLinkAPIError) -> ResolvedAppLink {
        guard let shape = resolver.shape(of: requested) else { throw .invalidArgument("requestedLink is not a link of this link domain") }
        var stored: String?
        if case .shortLink(let suffix) = shape {
            do {
                stored = try await store.shortLink(suffix: suffix)?.longLinkQuery
            } catch {
                context.logger.error("short link lookup failed", metadata: ["error": .string("\(error)")])
                throw .unavailable
            }
            guard stored != nil else { throw .notFound("no such short link") }
        }
        guard let link = resolver.resolve(requested, shape: shape, storedQuery: stored) else {
            throw .invalidArgument("the link names no deep link")
        }
        return link
    }

    /// The platform of the configured app `bundleId` names: an Apple bundle ID or an Android package name.
    private func app(_ bundleId: String?) throws(ShortLinkAPIError) -> Platform {
        guard let bundleId, !bundleId.isEmpty else { throw .invalidArgument("bundleId is required") }
        if configuration.apple.apps.contains(where: { $0.bundleID == bundleId }) { return .iOS }
        if configuration.android.apps.contains(where: { $0.packageName == bundleId }) { return .android }
        throw .invalidArgument("bundleId \(bundleId) is not an app of this link domain")
    }

    /// The request's key (the app's public one; any in development) and its JSON body.
    private func decode<Body: Decodable>(_ request: Request) async throws(ShortLinkAPIError) -> Body {
        let key = request.uri.queryParameters["key"].map(String.init) ?? request.headers[.googAPIKey]
        guard let key, !key.isEmpty else { throw .permissionDenied("an API key is required (?key=)") }
        if configuration.mode == .deployment {
            let keys = configuration.backend.clientAPIKeys + [configuration.backend.apiKey]
            guard keys.contains(where: { ConstantTime.equal($0.utf8, key.utf8) }) else { throw .permissionDenied("the API key is not valid") }
        }
        guard let buffer = try? await request.body.collect(upTo: 16 * 1024),
            let body = try? JSONDecoder().decode(Body.self, from: Data(buffer: buffer))
        else { throw .invalidArgument("the request body must be a JSON object of the request's fields") }
        return body
    }
}
