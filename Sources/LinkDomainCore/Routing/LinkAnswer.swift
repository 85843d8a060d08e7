import HTTPTypes

/// The one answer to a request for a link, decided from the link, the visitor and the request's
/// method and language alone. The event-loop fast path and the router's pages both ask
/// ``LinkRouter/answer(_:visitor:method:isShortLink:acceptLanguage:host:)`` for it and only write it out,
/// so a request gets the same status, `Location`, page and counted events whichever way it came.
package struct LinkAnswer: Equatable {
    package enum Reply: Equatable {
        /// Straight on: 303 to a sign-in's continue URL, 302 for a Dynamic Link.
        case redirect(HTTPResponse.Status, location: String)
        /// A page made from the link alone: nothing asked of a backend or the store.
        case page(LinkPage)
        /// Check the code first (the backend's check-only call), then answer again with what it
        /// said (``LinkRouter/answer(_:checked:facts:visitor:method:isShortLink:acceptLanguage:host:)``):
        /// a person's GET of an email action whose answer depends on the code.
        case checkCode(PendingCheck)
        /// The email action's own form: the code was checked and is live.
        case actionPage(ActionLink)
        /// The code was checked and cannot be used: the link's ending, with "Send me a new link".
        case codeEnded(ActionLink, CodeEnding)
    }

    package var reply: Reply
    /// The language the page speaks: the link's own (`lang`, `languageCode`), else the visitor's;
    /// empty for a redirect.
    package var language: String
    /// What a short link counts for this answer: a person's GET only (HEAD is a probe, and a chat
    /// app's preview or a crawler is not a click). Empty for every other link.
    package var events: [LinkEvent]
}

/// An email action parsed and waiting for its code's check: what deciding again needs, so the
/// link is not parsed twice.
package struct PendingCheck: Equatable {
    package var action: ActionLink
    /// The request asked to stay in the browser (`web=1`).
    package var preferWeb: Bool
    /// The sign-in continuation the decision before the check made, if it made one: it depends on
    /// the link alone, so deciding again after the check does not make it again.
    package var continuation: String? = nil
}

/// The pages a link leads to that need nothing but the link.
package enum LinkPage: Equatable {
    /// `?d=1`: how the link was understood and where each kind of device goes.
    case debug
    /// Neither an email action nor (off the email-link paths) a Dynamic Link.
    case notALink
    /// What crawlers and chat apps read to draw a preview card.
    case social(PlatformHints, fallbackTitle: String?)
    /// What scanners, previewers and HEAD requests see: nothing revealed, nothing spent.
    case neutral
    /// The Dynamic Links preview page a phone sees before leaving for the app or the link.
    case preview(DynamicLink, app: AppTarget?, continueURL: String?)
    /// The page that offers the app for an email action; on the pivot host (a tap the app did not
    /// take), the page that says the app may not be installed.
    case appLanding(AppTarget, ActionLink, appDidNotOpen: Bool)
    /// A sign-in link without a continue URL: how to finish it.
    case signInInstructions
    /// A sign-in an app asked for, on a computer: a QR code of this same link first, "Continue on
    /// this computer" (`continueURL`) second.
    case phoneOrComputer(ActionLink, continueURL: String)
    /// The link's destination is not allowed (a Dynamic Link's, or a sign-in's continue URL on a
    /// host outside `authorizedDomains`, named so that an operator can see which).
    case redirectRefused(refusedHost: String?)

    package var status: HTTPResponse.Status {
        switch self {
        case .notALink, .redirectRefused: .badRequest
        case .debug, .social, .neutral, .preview, .appLanding, .signInInstructions, .phoneOrComputer: .ok
        }
    }
}

extension LinkRouter {
    /// The answer to a request for `link` (its path and query, or a short link's stored long link).
    ///
    /// - Parameters:
    ///   - isShortLink: the request named a short link, whose clicks are counted.
    ///   - acceptLanguage: the request's `Accept-Language`, for pages whose link names no language.
    ///   - host: the request's `Host` (or `:authority`): on the pivot host, the app did not open.
    ///   - facts: what the code's check said; nil when it was not asked yet (a person's GET that
    ///     needs it is then answered ``LinkAnswer/Reply/checkCode(_:)``).
    package func answer(
        _ link: LinkRequest, visitor: Visitor, method: HTTPRequest.Method, isShortLink: Bool, acceptLanguage: String?,
        host: String? = nil, facts: CodeFacts? = nil
    ) -> LinkAnswer {
        let (outcome, preferWeb) = routeAndPreference(link, visitor: visitor, facts: facts ?? .unknown)
        var pending: PendingCheck?
        if facts == nil, method == .get, visitor.isPerson, case .action(let action, let decision) = outcome, Self.checksCode(decision) {
            let continuation: String? = if case .continueToApp(let made) = decision { made } else { nil }
            pending = PendingCheck(action: action, preferWeb: preferWeb, continuation: continuation)
        }
        return answer(
            outcome, link: link, pending: pending, visitor: visitor, method: method, isShortLink: isShortLink, acceptLanguage: acceptLanguage,
            host: host)
    }

    /// The answer again once the check of `checked`'s code said `facts`: decided from the link
    /// parsed the first time.
    package func answer(
        _ link: LinkRequest, checked: PendingCheck, facts: CodeFacts, visitor: Visitor, method: HTTPRequest.Method, isShortLink: Bool,
        acceptLanguage: String?, host: String? = nil
    ) -> LinkAnswer {
        let decision = decide(checked.action, visitor: visitor, preferWeb: checked.preferWeb, facts: facts, continuation: checked.continuation)
        return answer(
            .action(checked.action, decision), link: link, pending: nil, visitor: visitor, method: method, isShortLink: isShortLink,
            acceptLanguage: acceptLanguage, host: host)
    }

    private func answer(
        _ outcome: LinkOutcome, link: LinkRequest, pending: PendingCheck?, visitor: Visitor, method: HTTPRequest.Method, isShortLink: Bool,
        acceptLanguage: String?, host: String?
    ) -> LinkAnswer {
        let reply: LinkAnswer.Reply
        switch outcome {
        case .action(let action, let decision):
            reply = pending.map { .checkCode($0) } ?? Self.reply(to: action, decision: decision, method: method, onPivotHost: isPivotHost(host))
        case .dynamic(let dynamic, let decision): reply = Self.reply(to: dynamic, decision: decision)
        case .debugPage: reply = .page(.debug)
        case .notALink: reply = .page(.notALink)
        }
        var events: [LinkEvent] = []
        if isShortLink, method == .get, visitor.isPerson, outcome != .debugPage {
            events = Self.event(of: outcome).map { [.click, $0] } ?? [.click]
        }
        // A redirect speaks no language: the link's `lang` is read for pages only. Nor does a check
        // waiting to be made: whatever it says, the answer is decided again, with its language.
        switch reply {
        case .redirect, .checkCode: return LinkAnswer(reply: reply, language: "", events: events)
        default: break
        }
        let linkLanguage: String? =
            if case .action(let action, _) = outcome { action.languageCode } else { QueryString(link.linkQuery)["lang"] }
        let language = language(preferring: linkLanguage, acceptLanguage: acceptLanguage)
        return LinkAnswer(reply: reply, language: language, events: events)
    }

    private static func reply(to action: ActionLink, decision: RoutingDecision, method: HTTPRequest.Method, onPivotHost: Bool) -> LinkAnswer.Reply {
        switch decision {
        case .botPage:
            action.hints.socialTitle != nil ? .page(.social(action.hints, fallbackTitle: nil)) : .page(.neutral)
        case .appLanding(let target):
            .page(.appLanding(target, action, appDidNotOpen: onPivotHost))
        case .continueToApp(let url):
            .redirect(.seeOther, location: url)
        case .signInInstructions:
            action.continueURL.map { .page(.redirectRefused(refusedHost: WebAddress($0)?.host ?? "(not an http(s) URL)")) }
                ?? .page(.signInInstructions)
        case .webPage:
            // HEAD is answered without asking the backend anything.
            method == .head ? .page(.neutral) : .actionPage(action)
        case .codeEnded(let ending):
            .codeEnded(action, ending)
        case .phoneOrComputer(let continueURL):
            .page(.phoneOrComputer(action, continueURL: continueURL))
        }
    }

    private static func reply(to dynamic: DynamicLink, decision: DynamicLinkDecision) -> LinkAnswer.Reply {
        switch decision {
        case .socialPreview: .page(.social(dynamic.hints, fallbackTitle: WebAddress(dynamic.deepLink)?.host))
        case .previewPage(let app, let continueURL): .page(.preview(dynamic, app: app, continueURL: continueURL))
        case .redirect(let url, _): .redirect(.found, location: url)
        case .refused: .page(.redirectRefused(refusedHost: nil))
        }
    }

    /// Whether `host` (a `Host` value: a name, maybe a port) is the pivot host.
    package func isPivotHost(_ host: String?) -> Bool {
        guard let pivotHost, let host else { return false }
        return WebAddress.hostName(ofAuthority: host).lowercased() == pivotHost
    }

    /// The event a short link counts beside its click: where the visitor was sent.
    private static func event(of outcome: LinkOutcome) -> LinkEvent? {
        switch outcome {
        case .action(_, .appLanding): .redirectToApp
        case .action(_, .continueToApp): .redirectToFallback
        case .dynamic(_, .redirect(_, let event)): event
        default: nil
        }
    }
}
