import LinkDomainCore
import LinkDomainStorage
#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif
import HTTPTypes
import Logging
import NIOCore

/// Answers the requests that need no I/O from the request head alone: association files, the
/// stylesheet, and every link whose answer needs no backend (redirects and the pages made from the
/// link alone), short links this replica has resolved before included; and email actions' forms
/// whose code the backend has at hand without waiting (``ImmediateModeForms``).
///
/// It decides nothing about links: ``LinkRouter/answer(_:visitor:method:isShortLink:acceptLanguage:)``
/// does, and ``LinkAnswerWriter`` writes the answer, as for the router's pages. Requests it does
/// not answer (nil) go on to the router.
struct ImmediateResponder: Sendable {
    enum Kind: Sendable {
        case appleAssociation, androidAssociation, stylesheet, link
        /// `/<suffix>`: answered when the link is cached; its route pattern is the router's catch-all.
        case shortLink
    }

    let files: AssociationFiles
    let stylesheet: ImmediateResponse
    /// The association files' 200s, made once: only a conditional request needs its own answer.
    let associationOK: (apple: ImmediateResponse, android: ImmediateResponse)
    let writer: LinkAnswerWriter
    let shortLinks: CachedLinkStore
    let linkEvents: LinkEventRecorder
    /// The fixed paths answered here (their own route patterns, as metrics count them); a handful,
    /// compared as bytes so that a request's path never has to become a `String` to be found.
    let routes: [(path: String, kind: Kind)]

    /// Email actions' forms, when the backend can check a code without waiting.
    var modeForms: ImmediateModeForms?

    /// The writer's router, kept here: a computed copy retained and released its arrays on every request.
    let router: LinkRouter
    /// In development, the hosts answered (others are the router's 421); nil in a deployment.
    let developmentHosts: DevelopmentHosts?
    /// Short links' redirects, decided once per long link, visitor and method on each thread.
    let shortLinkRedirects = PerThread { ShortLinkRedirects() }
    /// Visitors classified on each thread, by their user agent and platform hint.
    let knownVisitors = PerThread { KnownVisitors() }

    init(
        configuration: LinkDomainConfiguration, files: AssociationFiles, stylesheet: [UInt8], writer: LinkAnswerWriter,
        shortLinks: CachedLinkStore, linkEvents: LinkEventRecorder
    ) {
        self.shortLinks = shortLinks
        self.linkEvents = linkEvents
        self.files = files
        associationOK = (files.apple.response(ifNoneMatch: nil), files.android.response(ifNoneMatch: nil))
        self.writer = writer
        self.router = writer.pages.router
        // Only where development mode comes from a loopback server: a CI container that forces it
        // is reached by other containers under names of their own.
        developmentHosts =
            configuration.mode == .development && !configuration.isDevelopmentForced
            ? DevelopmentHosts(publicHost: configuration.publicHost.lowercased(), pivotHost: writer.pages.router.pivotHost) : nil
        self.stylesheet = ImmediateResponse(
            status: .ok, headers: [.contentType: "text/css; charset=utf-8", .cacheControl: "public, max-age=86400"],
            body: ByteBuffer(bytes: stylesheet))
        let fixed: [(String, Kind)] = [
            (RoutePaths.appleAssociation, .appleAssociation), (RoutePaths.appleAssociationAtRoot, .appleAssociation),
            (RoutePaths.androidAssociation, .androidAssociation), (RoutePaths.stylesheet, .stylesheet),
        ]
        var links: [(String, Kind)] = []
        for path in RoutePaths.actionLinkPaths(customActionPath: configuration.actionPath) + ["/"] where !fixed.contains(where: { $0.0 == path }) {
            links.append((path, .link))
        }
        self.routes = fixed + links
    }

    /// What `path` is, if it may be answered here, and its route pattern as metrics count it.
    func match(_ path: UnsafeRawBufferPointer) -> (kind: Kind, route: String)? {
        for route in routes where route.path.utf8.count == path.count {
            // The paths are literals and configuration: native strings, whose bytes are at hand.
            let equal =
                route.path.utf8.withContiguousStorageIfAvailable { bytes in
                    guard let wanted = bytes.baseAddress, let given = path.baseAddress else { return bytes.isEmpty }
                    return memcmp(wanted, given, path.count) == 0
                } ?? route.path.utf8.elementsEqual(path)
            if equal { return (route.kind, route.path) }
        }
        guard ShortLinkPath.namesSuffix(path) else { return nil }
        return (.shortLink, RoutePaths.catchAll)
    }

    /// Whether a redirect's bytes are worth keeping for the next answers: short links and Dynamic
    /// Links are clicked alike by a campaign's readers; an action link carries its own code, clicked once.
    static func keepsRedirect(of kind: Kind, route: String) -> Bool {
        kind == .shortLink || route == "/"
    }

    func match(_ path: Substring) -> (kind: Kind, route: String)? {
        var path = path
        return path.withUTF8 { match(UnsafeRawBufferPointer($0)) }
    }

    /// What ``answer(to:method:path:query:headers:logger:)`` answers, with redirects not yet made
    /// into responses: the event loop writes their few bytes directly.
    enum Answer {
        case response(ImmediateResponse)
        case redirect(HTTPResponse.Status, location: String)

        var response: ImmediateResponse {
            switch self {
            case .response(let response): response
            case .redirect(let status, let location): .redirect(status, to: location)
            }
        }
    }

    /// The answer to a GET or HEAD of `path`, or nil when it takes more than the head. A GET of a
    /// short link counts its events, as the router's answer does.
    /// - Parameter peer: the connection's peer address, whose page-check budget a form takes from
    ///   (read only for a form); without one, forms are the router's.
    func answer(
        to kind: Kind, method: HTTPRequest.Method, path: Substring, query: Substring?, headers: RequestHeaders, peer: () -> String? = { nil },
        logger: Logger
    ) -> Answer? {
        switch kind {
        case .appleAssociation:
            return .response(headers.ifNoneMatch == nil ? associationOK.apple : files.apple.response(ifNoneMatch: headers.ifNoneMatch))
        case .androidAssociation:
            return .response(headers.ifNoneMatch == nil ? associationOK.android : files.android.response(ifNoneMatch: headers.ifNoneMatch))
        case .stylesheet:
            return .response(stylesheet)
        case .link:
            return answer(
                LinkRequest(path: path, query: query), visitor: visitor(headers), method: method, headers: headers, peer: peer,
                suffix: nil, logger: logger)
        case .shortLink:
            let suffix = String(path.dropFirst())
            let visitor = visitor(headers)
            // With a query of its own (`?d=1`), the request asks for more than the link's redirect.
            var keep: (key: ShortLinkRedirects.Key, generation: UInt64)?
            if query == nil {
                // Read before the link: a redirect kept from it is stale once a link is forgotten after.
                let generation = shortLinks.generation
                let key = ShortLinkRedirects.Key(suffix: suffix, visitor: visitor, method: method)
                if let known = shortLinkRedirects.current.redirect(key, generation: generation) {
                    linkEvents.record(known.events, suffix: suffix, platform: visitor.platform)
                    return .redirect(known.status, location: known.location)
                }
                keep = (key, generation)
            }
            // A link this replica has not resolved yet is read from the store by the router.
            guard let record = shortLinks.cached(suffix: suffix) else { return nil }
            return answer(
                LinkRequest(storedQuery: Substring(record.longLinkQuery), requestPath: path, requestQuery: query), visitor: visitor,
                method: method, headers: headers, peer: peer, suffix: suffix, keep: keep, logger: logger)
        }
    }

    private func visitor(_ headers: RequestHeaders) -> Visitor {
        headers.visitor ?? knownVisitors.current.visitor(userAgent: headers.userAgent, platformHint: headers.platformHint)
    }

    /// - Parameter keep: where to keep the answer, when it is a redirect decided from the link alone.
    private func answer(
        _ link: LinkRequest, visitor: Visitor, method: HTTPRequest.Method, headers: RequestHeaders, peer: () -> String?, suffix: String?,
        keep: (key: ShortLinkRedirects.Key, generation: UInt64)? = nil, logger: Logger
    ) -> Answer? {
        let decided = router.answer(
            link, visitor: visitor, method: method, isShortLink: suffix != nil, acceptLanguage: headers.acceptLanguage,
            host: headers.host)
        // The code at hand and live: the answer for a live code, here; else the router checks.
        guard case .checkCode(let pending) = decided.reply else {
            return written(decided, link: link, visitor: visitor, checked: nil, suffix: suffix, keep: keep, logger: logger)
        }
        guard let modeForms, let checked = modeForms.check(pending.action, query: link.requestQuery, peer: peer()) else { return nil }
        let answer = router.answer(
            link, checked: pending, facts: checked.info.facts(for: pending.action), visitor: visitor, method: method,
            isShortLink: suffix != nil, acceptLanguage: headers.acceptLanguage, host: headers.host)
        // The check's token stays taken only for an answer made here.
        guard let made = written(answer, link: link, visitor: visitor, checked: checked.info, suffix: suffix, keep: nil, logger: logger) else {
            modeForms.passedOn(checked.client)
            return nil
        }
        modeForms.answered(checked: checked.checked)
        return made
    }

    /// Whether a page may be answered here: `/` carries Dynamic Links only, and without one it is the
    /// router's 404, whatever page its query asks for (`/?d=1`). A redirect came from a link in the
    /// query, so only pages are asked.
    private static func mayBePage(_ link: LinkRequest) -> Bool {
        !(link.linkIsRequest && link.linkPath == "/" && !LegacyLinkQuery.mayCarryLink(link.requestQuery))
    }

    /// The answer as written here, or nil when it is the router's.
    /// - Parameter checked: the link's code as the check found it, when the answer was decided with it.
    private func written(
        _ answer: LinkAnswer, link: LinkRequest, visitor: Visitor, checked: CodeInfo?, suffix: String?,
        keep: (key: ShortLinkRedirects.Key, generation: UInt64)?, logger: Logger
    ) -> Answer? {
        // One match of the reply: each match of a borrowed answer's reply cost a copy of it.
        let written: Answer
        switch answer.reply {
        case .redirect(let status, let location):
            written = .redirect(status, location: location)
            if let keep {
                let redirect = ShortLinkRedirects.Redirect(generation: keep.generation, status: status, location: location, events: answer.events)
                shortLinkRedirects.current.keep(redirect, for: keep.key)
            }
        case .page(.debug), .checkCode, .codeEnded:
            // A debug page is under the page-check budget, which the router holds (behind proxies too).
            return nil
        case .actionPage(let action):
            guard Self.mayBePage(link), let checked, let form = modeForms?.writer.response(action, info: checked, language: answer.language) else {
                return nil
            }
            written = .response(form)
        case .page:
            guard Self.mayBePage(link), let page = writer.response(answer, link: link, visitor: visitor, logger: logger) else { return nil }
            written = .response(page)
        }
        if let suffix { linkEvents.record(answer.events, suffix: suffix, platform: visitor.platform) }
        return written
    }
}
