/// What to do with an action link for a visitor, decided from the link, the visitor's platform,
/// the configured apps and what the code's check said, so the rules fit in a table (docs/pages.md) and in unit tests.
public enum RoutingDecision: Sendable, Equatable {
    /// Offer the app: a landing page with "Open in app", the store link, and (where the mode can
    /// complete on the web) "continue in this browser".
    case appLanding(AppTarget)
    /// Complete the action on this service's own pages.
    case webPage
    /// `signIn` on the web: 303 to the continue URL with the action parameters added.
    case continueToApp(String)
    /// `signIn` on the web without an allowed continue URL: a page explaining how to finish.
    case signInInstructions
    /// Scanners and previewers get a neutral page: no backend call, nothing revealed or spent.
    case botPage
    /// The check said the code cannot be used: its ending at once, with "Send me a new link".
    case codeEnded(CodeEnding)
    /// A sign-in an app asked for, opened on a computer: "Open on your phone" (a QR code of the
    /// same link) first, "Continue on this computer" (this continuation) second.
    case phoneOrComputer(continueURL: String)
}

/// Why a checked code cannot be used.
public enum CodeEnding: Sendable, Equatable {
    case expired
    case usedOrInvalid
}

/// The app a landing page offers.
public struct AppTarget: Sendable, Equatable {
    /// Which platform's app.
    public enum Kind: Sendable, Equatable {
        case apple(AppleApp)
        case android(AndroidApp)
    }

    public var kind: Kind
    /// Where "get the app" goes (App Store or Play); never carries the code.
    public var storeURL: String?

    package init(kind: Kind, storeURL: String? = nil) {
        self.kind = kind
        self.storeURL = storeURL
    }

    /// The App Store page of an app ID.
    package static func appStoreURL(_ id: String) -> String { "https://apps.apple.com/app/id\(id)" }

    public var name: String {
        switch kind {
        case .apple(let app): app.bundleID
        case .android(let app): app.packageName
        }
    }
}

/// What a request for a link asks for, decided by ``LinkRouter`` from the link and the visitor alone
/// (no backend, no storage). The pages and the event-loop fast path both start here, so a redirect
/// answered either way is the same redirect.
package enum LinkOutcome: Equatable {
    /// `?d=1` on the request: the debug page.
    case debugPage
    case action(ActionLink, RoutingDecision)
    case dynamic(DynamicLink, DynamicLinkDecision)
    /// Neither an email action nor (off the email-link paths) a Dynamic Link.
    case notALink
}
