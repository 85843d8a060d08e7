import Foundation
import Hummingbird
import LinkDomainCore
import LinkDomainStorage

/// `GET /v1/shortLinks` (paged, searched, sorted), `GET`, `PATCH` and `DELETE /v1/shortLinks/{suffix}`,
/// and `POST /v1/shortLinks/{suffix}:disable` / `:enable`: what the console does, for scripts.
extension ShortLinksController {
    func addListingRoutes(to routes: RouteCollection<Context>) {
        routes.get(RouterPath(RoutePaths.createShortLink)) { request, context in
            await ShortLinkAPIError.answer { () async throws(ShortLinkAPIError) in try await list(request, context: context) }
        }
        routes.get(RouterPath(RoutePaths.shortLink)) { request, context in
            await ShortLinkAPIError.answer { () async throws(ShortLinkAPIError) in
                try authorize(request)
                return ShortLinkResource(
                    try await operations.listing(suffix: try suffix(context), logger: context.logger), publicBaseURL: configuration.publicBaseURL)
            }
        }
        routes.patch(RouterPath(RoutePaths.shortLink)) { request, context in
            await ShortLinkAPIError.answer { () async throws(ShortLinkAPIError) in try await update(request, context: context) }
        }
        routes.delete(RouterPath(RoutePaths.shortLink)) { request, context in
            await ShortLinkAPIError.answer { () async throws(ShortLinkAPIError) in
                let actor = try authorize(request)
                try await operations.delete(suffix: try suffix(context), actor: actor, logger: context.logger)
                return EmptyAnswer()
            }
        }
        routes.post(RouterPath(RoutePaths.shortLink)) { request, context in
            await ShortLinkAPIError.answer { () async throws(ShortLinkAPIError) in
                let actor = try authorize(request)
                let name = context.parameters.get("name") ?? ""
                let parts = name.split(separator: ":", maxSplits: 1)
                guard parts.count == 2, let method = ["disable": true, "enable": false][String(parts[1])] else {
                    throw .notFound("no such method: use {suffix}:disable or {suffix}:enable")
                }
                try await operations.setDisabled(method, suffix: String(parts[0]), actor: actor, logger: context.logger)
                return ShortLinkResource(
                    try await operations.listing(suffix: String(parts[0]), logger: context.logger),
                    publicBaseURL: configuration.publicBaseURL)
            }
        }
    }

    private func suffix(_ context: Context) throws(ShortLinkAPIError) -> String {
        let name = context.parameters.get("name") ?? ""
        guard !name.contains(":") else { throw .notFound("no such method") }
        return name
    }

    /// `PATCH /v1/shortLinks/{suffix}` with `longDynamicLink` or `dynamicLinkInfo`, checked as a new
    /// link's are: where the link leads changes, nothing else.
    private func update(_ request: Request, context: Context) async throws(ShortLinkAPIError) -> ShortLinkResource {
        let actor = try authorize(request)
        let suffix = try suffix(context)
        let body = try await jsonBody(request)
        guard body["suffix"] == nil else { throw .invalidArgument("a link's suffix cannot be changed: make a new link instead") }
        let parsed = try parsedLink(body)
        try await operations.update(suffix: suffix, longLinkQuery: parsed.longLinkQuery, actor: actor, logger: context.logger)
        return ShortLinkResource(try await operations.listing(suffix: suffix, logger: context.logger), publicBaseURL: configuration.publicBaseURL)
    }

    private func list(_ request: Request, context: Context) async throws(ShortLinkAPIError) -> ShortLinkList {
        try authorize(request)
        let parameters = request.uri.queryParameters
        let text = parameters["query"].map(String.init) ?? ""
        guard text.utf8.count <= 200 else { throw .invalidArgument("query is longer than 200 bytes") }
        var query = ShortLinkQuery(search: ShortLinkSearch(pasted: text, hosts: configuration.serviceHosts))
        switch parameters["orderBy"].map(String.init) {
        case nil, "createTime"?: query.order = .created
        case "clicks"?: query.order = .clicks
        default: throw .invalidArgument("orderBy must be createTime or clicks")
        }
        query.limit = try APIPaging.size(parameters["pageSize"], default: query.limit)
        query.after = try APIPaging.after(parameters["pageToken"], ShortLinkCursor.init(pageToken:))
        let page = try await operations.list(query, logger: context.logger)
        return ShortLinkList(
            shortLinks: page.map { ShortLinkResource($0, publicBaseURL: configuration.publicBaseURL) },
            nextPageToken: page.count == query.limit ? page.last.map { $0.cursor(for: query.order).pageToken } : nil)
    }
}

/// A short link as the listing API answers it.
struct ShortLinkResource: Encodable, Sendable {
    let name: String
    let shortLink: String
    let longDynamicLink: String
    let createTime: String
    let disabled: Bool
    /// `CLICK` events, all time, as a string (Google's int64 in JSON).
    let clickCount: String

    init(_ listing: ShortLinkListing, publicBaseURL: String) {
        name = "shortLinks/" + listing.record.suffix
        shortLink = publicBaseURL + "/" + listing.record.suffix
        longDynamicLink = publicBaseURL + "/?" + listing.record.longLinkQuery
        createTime = RFC3339.string(milliseconds: listing.record.createdAt)
        disabled = listing.disabled
        clickCount = String(listing.clicks)
    }
}

struct ShortLinkList: Encodable, Sendable {
    let shortLinks: [ShortLinkResource]
    let nextPageToken: String?
}

/// A listing call's `pageSize` and `pageToken`, checked alike by every listing API.
enum APIPaging {
    static func size(_ text: Substring?, default limit: Int) throws(ShortLinkAPIError) -> Int {
        guard let text else { return limit }
        guard let size = Int(text), (1...100).contains(size) else { throw .invalidArgument("pageSize must be 1 to 100") }
        return size
    }

    static func after<Cursor>(_ token: Substring?, _ read: (Substring) -> Cursor?) throws(ShortLinkAPIError) -> Cursor? {
        guard let token else { return nil }
        guard let cursor = read(token) else { throw .invalidArgument("pageToken is not one this API gave") }
        return cursor
    }
}

/// `{}`: what a deletion answers, as Google's APIs do.
struct EmptyAnswer: Encodable, Sendable {}
