import Foundation
import Hummingbird
import LinkDomainCore
import LinkDomainStorage

/// Short links in the console: the list (search, sort, pages), creating one, a link's page (its
/// parameters, where each device goes, its QR code and clicks), disabling and deleting, CSV out.
extension ConsoleController {
    static var linksPath: String { "\(base)/links" }

    func addLinkRoutes(to routes: RouterGroup<Context>) {
        routes.get(RouterPath(Self.linksPath)) { request, context in
            try await page(request, context: context) { try await linkList($0, session: $1, context: context) }
        }
        routes.post(RouterPath(Self.linksPath)) { request, context in
            try await change(request, context: context) { session, form in try await createLink(form, session: session, request: request, context: context) }
        }
        routes.post(RouterPath("\(Self.linksPath)/import")) { request, context in
            try await change(request, context: context) { session, form in
                try await importLinks(form["csv"] ?? "", session: session, request: request, context: context)
            }
        }
        routes.get(RouterPath("\(Self.linksPath).csv")) { request, context in try await page(request, context: context) { _, _ in try await csv(context) } }
        routes.get(RouterPath("\(Self.linksPath)/:suffix")) { request, context in
            try await page(request, context: context) { request, session in
                try await linkPage(suffix(context), request: request, session: session, context: context)
            }
        }
        routes.get(RouterPath("\(Self.linksPath)/:suffix/:item")) { request, context in
            try await page(request, context: context) { request, _ in
                try qrCode(suffix(context), file: context.parameters.get("item") ?? "", side: request.uri.queryParameters["size"].flatMap { Int($0) })
            }
        }
        routes.post(RouterPath("\(Self.linksPath)/:suffix/:item")) { request, context in
            try await change(request, context: context) { session, form in
                try await linkAction(
                    suffix(context), action: context.parameters.get("item") ?? "", form: form, request: request, session: session, context: context)
            }
        }
    }

    private func suffix(_ context: Context) throws -> String {
        guard let suffix = context.parameters.get("suffix"), SuffixGenerator.isPlausible(Substring(suffix)) else { throw HTTPError(.notFound) }
        return suffix
    }

    private func linkList(_ request: Request, session: ConsoleSession, context: Context) async throws -> Response {
        try await linkList(request, session: session, context: context, problem: nil, status: .ok)
    }

    func linkList(
        _ request: Request, session: ConsoleSession, context: Context, problem: String?, notice: String? = nil,
        status: HTTPResponse.Status, typed: [String: String] = [:]
    ) async throws -> Response {
        let chrome = chrome(session, .links)
        let parameters = request.uri.queryParameters
        let text = Self.searchText(request, "q", limit: 200)
        var query = ShortLinkQuery(search: ShortLinkSearch(pasted: text, hosts: configuration.serviceHosts), limit: 50)
        query.order = parameters["order"].flatMap { ShortLinkQuery.Order(rawValue: String($0)) } ?? .created
        query.after = parameters["after"].flatMap(ShortLinkCursor.init(pageToken:))
        let page: [ShortLinkListing]
        do {
            page = try await links.list(query, logger: context.logger)
        } catch {
            return message(renderer[.unavailable], in: .links, session: session, status: .serviceUnavailable)
        }
        var values: [String: Any] = [
            "query": text, "csrf": token(session, Self.linksPath), "importToken": token(session, "\(Self.linksPath)/import"),
            "hasLinks": !page.isEmpty,
            "orders": ShortLinkQuery.Order.allCases.map { order -> [String: Any] in
                ["value": order.rawValue, "label": renderer[order == .created ? .sortCreated : .sortClicks], "selected": order == query.order]
            },
            // The create form as typed, after a refusal (empty otherwise).
            "typed": typed, "unguessableChosen": typed["unguessable"] == "1",
            "links": page.map { listing -> [String: Any] in
                [
                    "suffix": listing.record.suffix, "shortLink": "\(configuration.publicBaseURL)/\(listing.record.suffix)",
                    "target": LinkParser.parseDynamicLink(query: Substring(listing.record.longLinkQuery))?.deepLink ?? listing.record.longLinkQuery,
                    "created": RFC3339.day(milliseconds: listing.record.createdAt), "clicks": String(listing.clicks),
                    "state": renderer[listing.disabled ? .disabled : .enabled],
                ]
            },
            "apps": configuration.apple.apps.map { ["field": "ibi", "value": $0.bundleID, "label": "iOS: \($0.bundleID)"] }
                + configuration.android.apps.map { ["field": "apn", "value": $0.packageName, "label": "Android: \($0.packageName)"] },
        ]
        if page.count == query.limit, let last = page.last {
            values["next"] =
                "\(Self.linksPath)?q=\(ActionLinkEncoder.percentEncode(text))&order=\(query.order.rawValue)&after=\(last.cursor(for: query.order).pageToken)"
        }
        // Only a suffix's shape: the query cannot put words of its own on the page.
        let notice =
            notice
            ?? parameters["done"].flatMap { done -> String? in
                guard done.hasPrefix("deleted-"), SuffixGenerator.isPlausible(done.dropFirst(8)) else { return nil }
                return renderer.format(.linkDeleted, ["suffix": String(done.dropFirst(8))])
            }
        // The report of the import this page follows, if it is one (Post/Redirect/Get).
        let imported = problem == nil ? importOutcome(request, session: session) : nil
        return renderer.page(
            "console-links", title: renderer[.shortLinks], chrome: chrome, values: values, notice: imported?.notice ?? notice,
            problem: imported?.problem ?? problem, status: status)
    }

    private func createLink(_ form: [String: String], session: ConsoleSession, request: Request, context: Context) async throws -> Response {
        var info: [String: JSONValue] = ["domainUriPrefix": .string(configuration.publicBaseURL), "link": .string(form["link"] ?? "")]
        // The form's fields as the link API's objects, each only when filled in.
        func object(_ fields: [(api: String, form: String)]) -> JSONValue? {
            var object: [String: JSONValue] = [:]
            for (api, name) in fields {
                if let value = form[name]?.trimmingCharacters(in: .whitespaces), !value.isEmpty { object[api] = .string(value) }
            }
            return object.isEmpty ? nil : .object(object)
        }
        info["iosInfo"] = object([("iosBundleId", "ibi"), ("iosFallbackLink", "ifl")])
        info["androidInfo"] = object([("androidPackageName", "apn"), ("androidFallbackLink", "afl")])
        info["desktopInfo"] = object([("desktopFallbackLink", "ofl")])
        info["socialMetaTagInfo"] = object([("socialTitle", "st"), ("socialDescription", "sd"), ("socialImageLink", "si")])
        // A suffix typed in is the link API's CUSTOM, checked by the same rule.
        let chosen = (form["suffix"] ?? "").trimmingCharacters(in: .whitespaces)
        let suffix: [String: JSONValue] =
            chosen.isEmpty
            ? ["option": .string(form["option"] == "UNGUESSABLE" ? "UNGUESSABLE" : "SHORT")]
            : ["option": .string("CUSTOM"), "customSuffix": .string(chosen.hasPrefix("/") ? String(chosen.dropFirst()) : chosen)]
        let body: [String: JSONValue] = ["dynamicLinkInfo": .object(info), "suffix": .object(suffix)]
        do {
            let parsed = try ShortLinkRequest(
                body, publicBaseURL: configuration.publicBaseURL, appleApps: configuration.apple.apps,
                androidApps: configuration.android.apps, policy: RedirectPolicy(authorizedDomains: configuration.authorizedDomains))
            let suffix = try await links.create(parsed, actor: session.actor, logger: context.logger)
            return redirect(to: "\(Self.linksPath)/\(suffix)?done=created")
        } catch {
            let message =
                switch error {
                case .invalidArgument(let message), .notFound(let message), .permissionDenied(let message), .alreadyExists(let message): message
                case .unavailable: renderer[.unavailable]
                }
            // The form comes back as it was typed, with what is wrong above it.
            let typed = Dictionary(uniqueKeysWithValues: (Self.editedParameters + ["suffix"]).map { ($0, form[$0] ?? "") })
            return try await linkList(
                request, session: session, context: context, problem: message, status: HTTPResponse.Status(code: error.statusCode),
                typed: typed.merging(["unguessable": form["option"] == "UNGUESSABLE" ? "1" : ""]) { $1 })
        }
    }

    /// A link's page; after a refused edit, `refused` holds the refusal and the fields as typed, shown again.
    func linkPage(
        _ suffix: String, request: Request, session: ConsoleSession, context: Context, refused: (problem: String, typed: [String: String])? = nil
    ) async throws -> Response {
        let found: ShortLinkListing?
        do {
            found = try await admin.shortLinkListing(suffix: suffix)
        } catch {
            return message(renderer[.unavailable], in: .links, session: session, status: .serviceUnavailable)
        }
        guard let listing = found else { return message(renderer[.notFound], in: .links, session: session, back: Self.linksPath, status: .notFound) }
        await linkEvents.flush()
        let today = LinkStatistics.day(ofMilliseconds: clock.nowMilliseconds())
        let counts = (try? await admin.dailyEventTotals(suffix: suffix, fromDay: today - 29)) ?? []
        let shortLink = "\(configuration.publicBaseURL)/\(suffix)"
        var values: [String: Any] = [
            "suffix": suffix, "shortLink": shortLink, "disabled": listing.disabled,
            "parameters": QueryString(Substring(listing.record.longLinkQuery)).readableItems.map { ["name": $0.name, "value": $0.value] },
            "destinations": destinations(listing.record, shortLink: shortLink),
            "qrAlt": renderer.format(.qrAlt, ["link": shortLink]),
            "toggleAction": listing.disabled ? "enable" : "disable", "toggleLabel": renderer[listing.disabled ? .enable : .disable],
            "toggleToken": token(session, "\(Self.linksPath)/\(suffix)/\(listing.disabled ? "enable" : "disable")"),
            "deleteToken": token(session, "\(Self.linksPath)/\(suffix)/delete"),
            "editToken": token(session, "\(Self.linksPath)/\(suffix)/edit"),
            // The edit form, filled with what the link holds now.
            "edit": refused?.typed
                ?? Dictionary(uniqueKeysWithValues: Self.editedParameters.map { ($0, QueryString(Substring(listing.record.longLinkQuery)).text($0) ?? "") }),
        ]
        if let chart = ConsoleCharts.clicks(counts, platform: nil, today: today, renderer: renderer) { values["chart"] = chart }
        let platforms = ConsoleCharts.platforms(counts, today: today, renderer: renderer)
        values["platforms"] = platforms
        values["hasPlatforms"] = !platforms.isEmpty
        let notice: String? =
            switch request.uri.queryParameters["done"] {
            case "created"?: renderer.format(.createdLink, ["link": shortLink])
            case "disabled"?: renderer[.linkDisabled]
            case "enabled"?: renderer[.linkEnabled]
            case "changed"?: renderer[.linkChanged]
            default: nil
            }
        return renderer.page(
            "console-link", title: renderer.format(.linkTitle, ["suffix": suffix]), chrome: chrome(session, .links), values: values,
            notice: notice, problem: refused?.problem, status: refused == nil ? .ok : .badRequest)
    }

    /// Where a phone, a computer and a previewer go: the router's own decision for each.
    private func destinations(_ record: ShortLinkRecord, shortLink: String) -> [[String: String]] {
        let visitors: [(ConsoleText, String)] = [
            (
                .deviceIphone,
                "Mozilla/5.0 (iPhone; CPU iPhone OS 18_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.0 Mobile/15E148 Safari/604.1"
            ),
            (.deviceAndroid, "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 Mobile Safari/537.36"),
            (.deviceDesktop, "Mozilla/5.0 (X11; Linux x86_64; rv:132.0) Gecko/20100101 Firefox/132.0"),
            (.deviceCrawler, "Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)"),
        ]
        let link = LinkRequest(storedQuery: Substring(record.longLinkQuery), requestPath: Substring("/" + record.suffix), requestQuery: nil)
        return visitors.map { device, agent in
            let answer = router.answer(
                link, visitor: PlatformClassifier.classify(userAgent: agent), method: .get, isShortLink: true, acceptLanguage: ConsoleRenderer.language,
                facts: .unknown)
            let goesTo =
                switch answer.reply {
                case .redirect(_, let location): renderer.format(.goesRedirect, ["link": location])
                case .page(let page): renderer[Self.pageText(page)]
                case .actionPage, .checkCode, .codeEnded: renderer[.goesActionPage]
                }
            return ["device": renderer[device], "goesTo": goesTo]
        }
    }

    /// The QR code as SVG, or as a PNG of about `side` pixels (`?size=`, 8 pixels a module without it).
    private func qrCode(_ suffix: String, file: String, side: Int?) throws -> Response {
        let link = "\(configuration.publicBaseURL)/\(suffix)"
        guard let code = QRCode(Array(link.utf8)) else { throw HTTPError(.notFound) }
        switch file {
        case "qr.svg":
            return Response(
                status: .ok, headers: [.contentType: "image/svg+xml", .cacheControl: "no-store"],
                body: .init(byteBuffer: ByteBuffer(string: code.svgDocument(label: link))))
        case "qr.png":
            return Response(
                status: .ok,
                headers: [
                    .contentType: "image/png", .cacheControl: "no-store",
                    .contentDisposition: "attachment; filename=\"\(suffix)\(side.map { "-\(min(max($0, 1), QRCode.largestPNGSide))" } ?? "").png\"",
                ],
                body: .init(byteBuffer: ByteBuffer(bytes: side.map(code.png(fitting:)) ?? code.png())))
        default:
            throw HTTPError(.notFound)
        }
    }

    static func pageText(_ page: LinkPage) -> ConsoleText {
        switch page {
        case .preview: .goesPreview
        case .appLanding: .goesLanding
        case .social, .neutral: .goesCard
        case .notALink, .redirectRefused: .goesRefused
        case .debug, .signInInstructions, .phoneOrComputer: .goesOtherPage
        }
    }

}
