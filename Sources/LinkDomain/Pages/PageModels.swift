import LinkDomainCore
import LinkDomainStorage

/// A page's content: the template it fills and every value it fills it with.
///
/// Models are built by pure functions (``PageBuilder``) and filled in by ``PageRenderer``; their
/// property names are the templates' variable names (`{{title}}`, `{{#fields}}`), which custom
/// templates (`publicDirectory`) rely on.
protocol PageModel: PageValues {
    /// The template's name in `templates/` (without `.mustache`).
    static var template: String { get }
}

/// A hidden form field that carries the link into the page's POST.
struct HiddenField: Sendable, Equatable {
    let name: String
    let value: String
}

/// A message: an error, a confirmation, or what a scanner sees.
struct MessagePage: PageModel, Equatable {
    static let template = "message"
    var title: String
    /// What the link was for, above an error about it ("Reset your Example password").
    var purpose: String?
    var paragraphs: [String]
    /// A button that leads on (the continue URL after a completed action).
    var actionURL: String?
    var actionLabel: String?
    /// The button is the page's second choice (after the QR code of "Open on your phone").
    var actionSecondary = false
    /// Where nothing leads on: "You can close this page".
    var closeNote: String?
    /// After an address was restored: a button that mails the account a password-reset link.
    var resetRequest: ResetRequestForm?
    /// Under an expired or used link: "Send me a new link", asking the address it went to.
    var newLink: NewLinkForm?
    /// On a desktop, the link as a QR code for the phone (its modules and side, quiet zone included).
    var qrPath: String?
    var qrSide: Int?
}

/// The hidden fields of the "send me a link to change my password" form.
struct ResetRequestForm: Sendable, Equatable {
    var fields: [HiddenField]
}

/// The hidden fields of the "send me a new link" form (its mode, language, continue URL and token).
struct NewLinkForm: Sendable, Equatable {
    var fields: [HiddenField]
}

/// The form that completes a verify-email, recover-email or change-email action.
struct ConfirmActionPage: PageModel, Equatable {
    static let template = "confirm-action"
    var title: String
    var body: String
    var button: String
    var email: String?
    var newEmail: String?
    var fields: [HiddenField]
}

/// The form that sets a new password.
struct ResetPasswordPage: PageModel, Equatable {
    static let template = "reset-password"
    var title: String
    var email: String?
    /// Why the last attempt was refused (passwords differ, too weak).
    var error: String?
    var fields: [HiddenField]
}

/// The page that offers the app: "Open in app", the store, and (where possible) the web.
struct LandingPage: PageModel, Equatable {
    static let template = "landing"
    var title: String
    /// What the link does and where it finishes ("Choose a new password ... here in this browser").
    var body: String
    /// The browser finishes this link (every mode but sign-in): "Continue" (`webURL`) is the
    /// primary button and the app the second; for a sign-in, the app is primary.
    var continueFirst = false
    /// No way into the app on this page and no other help: how to open the mail's link in the app.
    var pressAndHold: String?
    var openURL: String?
    var storeURL: String?
    var storeLabel: String?
    /// This page again with `web=1`: finish in the browser.
    var webURL: String?
    /// In an app's own browser: how to get to Safari or Chrome, and this page's https address to open there.
    var inAppHelp: String?
    var pageURL: String?
    /// Shown once "Copy link" has copied it: where to paste it.
    var copiedNote: String?
    /// The link Safari's Smart App Banner hands the app (`app-argument`).
    var appArgument: String?
    /// On an iPhone: the hand-off URL "Copy the link and get the app" puts on the pasteboard.
    var handoffURL: String?
}

/// The Dynamic Links preview page shown on phones before leaving for the app or the link.
struct PreviewPage: PageModel, Equatable {
    static let template = "preview"
    var title: String
    var description: String?
    var continueURL: String?
    var openURL: String?
    var storeURL: String?
    var storeLabel: String?
    /// On an iPhone: the hand-off URL "Copy the link and get the app" puts on the pasteboard.
    var handoffURL: String?
}

/// Open Graph and Twitter meta tags for crawlers drawing a preview card.
struct SocialPage: PageModel, Equatable {
    static let template = "social"
    var title: String
    var description: String?
    var imageURL: String?
}

/// `?d=1`: a link's parameters and where each kind of device would go.
struct DebugPage: PageModel, Equatable {
    struct Parameter: Sendable, Equatable {
        let name: String
        let value: String
    }

    struct Flow: Sendable, Equatable {
        let platform: String
        let outcome: String
    }

    static let template = "debug"
    var title: String
    /// How an email action link reached this page (`authLinks`, `actionURL`, ...).
    var shape: String?
    var parameters: [Parameter]
    var flows: [Flow]
}
