import Foundation
import Hummingbird
import LinkDomainCore
import LinkDomainStorage
import Logging
import NIOFoundationEssentialsCompat

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

    /// `GetIosReopenAttributionRequest` → `GetIosReopenAttributionResponse`; counts `APP_RE_OPEN`
    /// when the link names the calling app.
    func reopen(_ request: Request, context: Context) async throws(ShortLinkAPIError) -> ReopenAttribution {
        let body: ReopenRequest = try await decode(request)
        let app = try app(body.bundleId)
        guard let requested = body.requestedLink, !requested.isEmpty else { throw .invalidArgument("requestedLink is required") }
        let link = try await resolve(requested, context: context)
        count([.appReOpen], of: link, by: app)
        return ReopenAttribution(link)
    }

    /// `GetIosPostInstallAttributionRequest` → `GetIosPostInstallAttributionResponse`: a hand-off
    /// (its URL, its token, or a Play referrer holding one) for the calling app, claimed once, or a
    /// link of this domain the app found itself; anything else matches nothing. Counts
    /// `APP_INSTALL` and `APP_FIRST_OPEN` when the link names the calling app.
    ///
    /// A token is claimed only once its link has been read and resolved, just before the answer
    /// that carries it: a store that fails first leaves the token for the app's next try.
    func install(_ request: Request, context: Context) async throws(ShortLinkAPIError) -> InstallAttribution {
        let body: InstallRequest = try await decode(request)
        let app = try app(body.bundleId)
        guard let candidate = body.uniqueMatchLinkToCheck?.trimmingCharacters(in: .whitespacesAndNewlines), !candidate.isEmpty else {
            return .noMatch("no uniqueMatchLinkToCheck: this service never guesses an install from the device, its address or the time")
        }
        var handoff: Handoff?
        let requested: String
        let now = clock.nowMilliseconds()
        if let token = HandoffPaths.token(in: candidate, hosts: resolver.hosts) {
            guard let opened = sealer.open(token) else { return .noMatch("the hand-off token is not one this service made") }
            guard opened.expiresAt >= now / 1000 else { return .noMatch("the hand-off token has expired") }
            guard opened.app.id == app.id, isConfigured(opened.app) else { return .noMatch("the hand-off token was made for another app") }
            handoff = opened
            requested = opened.link
        } else {
            requested = candidate
        }
        let link: ResolvedAppLink
        do throws(ShortLinkAPIError) {
            link = try await resolve(requested, context: context)
        } catch .unavailable {
            throw .unavailable
        } catch {
            return .noMatch("uniqueMatchLinkToCheck is not a link of this link domain with a deep link it may hand out")
        }
        if let handoff {
            let claimed: Bool
            do {
                claimed = try await store.claimHandoff(id: handoff.id, now: now, keepUntil: Self.keepClaim(until: handoff.expiresAt))
            } catch {
                context.logger.error("hand-off claim failed", metadata: ["error": .string("\(error)")])
                throw .unavailable
            }
            guard claimed else { return .noMatch("the hand-off token was already claimed") }
        }
        count([.appInstall, .appFirstOpen], of: link, by: handoff?.app ?? app)
        return InstallAttribution(link)
    }

    /// How long a claim is kept (milliseconds): past its token's own expiry (inclusive, in whole
    /// seconds, whatever the lifetime is when it is claimed), with a margin for the time a claim
    /// takes and for replicas' clocks, so that no replica still taking the token finds it forgotten.
    static func keepClaim(until expiresAt: Int64) -> Int64 {
        let (milliseconds, overflow) = expiresAt.multipliedReportingOverflow(by: 1000)
        guard !overflow, milliseconds < .max - claimMargin else { return .max }
        return milliseconds + claimMargin
    }

    /// A second (the expiry is inclusive) plus a minute.
    static var claimMargin: Int64 { 61_000 }

    /// Counts app events in a short link's statistics, only when its long link names the calling
    /// app: anyone holding the public key could otherwise inflate any link's counts.
    private func count(_ events: [LinkEvent], of link: ResolvedAppLink, by app: HandoffApp) {
        guard let suffix = link.suffix else { return }
        let platform: Platform = app.store == .apple ? .iOS : .android
        guard link.apps.names(app.id, on: platform) else { return }
        linkEvents.record(events, suffix: suffix, platform: platform)
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
            throw .invalidArgument("the link names no deep link, or one outside authorizedDomains that this service does not hand out")
        }
        return link
    }

    /// The configured app `bundleId` names: an Apple bundle ID or an Android package name (an ID
    /// configured on both platforms is the Apple app here, and a hand-off for either matches it).
    private func app(_ bundleId: String?) throws(ShortLinkAPIError) -> HandoffApp {
        guard let bundleId, !bundleId.isEmpty else { throw .invalidArgument("bundleId is required") }
        if configuration.apple.apps.contains(where: { $0.bundleID == bundleId }) { return HandoffApp(store: .apple, id: bundleId) }
        if configuration.android.apps.contains(where: { $0.packageName == bundleId }) { return HandoffApp(store: .android, id: bundleId) }
        throw .invalidArgument("bundleId \(bundleId) is not an app of this link domain")
    }

    private func isConfigured(_ app: HandoffApp) -> Bool {
        switch app.store {
        case .apple: configuration.apple.apps.contains { $0.bundleID == app.id }
        case .android: configuration.android.apps.contains { $0.packageName == app.id }
        }
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
