/// Every path the service answers, in one place: the routers, the event-loop fast path, metrics
/// and the deployment doctor all read them from here.
package enum RoutePaths {
    package static let appleAssociation = "/.well-known/apple-app-site-association"
    /// iOS 9 to 12 also fetched the file from the root.
    package static let appleAssociationAtRoot = "/apple-app-site-association"
    package static let androidAssociation = "/.well-known/assetlinks.json"
    /// Passkeys' related origins (WebAuthn Level 3).
    package static let webauthn = "/.well-known/webauthn"
    /// Where password managers send people to make and manage passkeys (W3C draft).
    package static let passkeyEndpoints = "/.well-known/passkey-endpoints"
    /// Where password managers send people to change a password.
    package static let changePassword = "/.well-known/change-password"
    /// Firebase's sign-in helper, relayed from its origin (``AuthHelperScope`` decides what may be).
    package static let authHelper = "/__/auth/**"
    package static let firebaseHelper = "/__/firebase/**"
    package static let stylesheet = "/__/static/styles.css"
    /// The pages' script: enhancements only (show passwords, copy a link), never required.
    package static let script = "/__/static/page.js"
    /// The pages' icon, and where browsers look for one unasked.
    package static let favicon = "/__/static/favicon.svg"
    package static let rootFavicon = "/favicon.ico"
    /// Firebase's two email-link paths; the action path also takes the pages' form POST.
    package static let emailLinks = "/__/auth/links"
    package static let emailAction = "/__/auth/action"
    /// Where a completed form redirects: the signed result page (Post/Redirect/Get).
    package static let actionResult = "/__/auth/done"
    /// The result page's "send me a link to change my password" (after an address was restored).
    package static let resetRequest = "/__/auth/reset-request"
    /// "Send me a new link" from an expired or used link's page: its POST, and the page it redirects to.
    package static let newLink = "/__/auth/new-link"
    /// In development, the demo configuration's continue URL: a page standing in for the app's own.
    package static let demoContinue = "/__/demo/continue"
    /// A hand-off URL (what the pasteboard carries across an app's install), opened in a browser.
    package static let handoff = "/__/handoff/:token"
    /// The Firebase Auth emulator's action path, so links it would mail work here too.
    package static let emulatorAction = "/emulator/action"
    package static let health = "/healthz"
    package static let readiness = "/readyz"
    package static let metrics = "/metrics"
    /// The router's catch-all: short links (`/<suffix>`) and legacy Dynamic Links on any path; also
    /// the route label metrics give short links answered on the event loop.
    package static let catchAll = "/**"
    /// The console (`docs/design/console.md`); everything it serves is under it.
    package static let console = "/__/console"
    package static let createShortLink = "/v1/shortLinks"
    /// One short link (`/v1/shortLinks/abc`), or a method on it (`/v1/shortLinks/abc:disable`).
    package static let shortLink = "/v1/shortLinks/:name"
    /// The embedded backend's ID-token keys, at the path Google publishes Firebase's under.
    package static let idTokenKeys = "/www.googleapis.com/service_accounts/v1/jwk/securetoken@system.gserviceaccount.com"
    /// Identity Toolkit's `GetSessionCookiePublicKeys`.
    package static let sessionCookieKeys = "/identitytoolkit.googleapis.com/v1/sessionCookiePublicKeys"
    /// The email action API: Identity Toolkit's `accounts:sendOobCode`, answered with a mail.
    package static let sendEmailAction = "/v1/accounts:sendOobCode"
    package static let linkStatistics = "/v1/:shortLink/linkStats"
    /// The app half of Dynamic Links: what the link an app was opened with means, and the link it was installed through.
    package static let reopenAttribution = "/v1/reopenAttribution"
    package static let installAttribution = "/v1/installAttribution"

    /// The paths that serve email actions: Firebase's two, the emulator's, and a custom action path.
    package static func actionLinkPaths(customActionPath: String?) -> [String] {
        [emailLinks, emailAction, emulatorAction] + (customActionPath.map { [$0] } ?? [])
    }

    /// Whether people read what `path` answers (links, short links, the pages' forms), so an error
    /// there is a branded page; the APIs, the association files, health, metrics and the static
    /// files keep plain answers.
    package static func isPagePath(_ path: String) -> Bool {
        !machinePaths.contains(path) && !machinePrefixes.contains(where: path.hasPrefix)
    }

    private static let machinePrefixes = [
        "/v1/", "/v2/", "/identitytoolkit.googleapis.com/", "/www.googleapis.com/", "/securetoken.googleapis.com/",
        "/emulator/v1/", "/.well-known/", "/__/static/", "/__/firebase/",
    ]
    private static let machinePaths: Set<String> = [appleAssociationAtRoot, health, readiness, metrics, rootFavicon]

    /// Single-segment paths the router serves itself, which are never short links.
    package static let reservedSingleSegments: Set<String> = [health, readiness, metrics, rootFavicon, appleAssociationAtRoot]
}
