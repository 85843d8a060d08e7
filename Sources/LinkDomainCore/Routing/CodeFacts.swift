/// What the service knows about an email action's code beside the link's text: whether it can
/// still be used and whether an app asked for it (docs/design/code-aware-pages.md).
///
/// Gathered at the edge (the backend's check-only call) and handed to the pure
/// ``LinkRouter/decide(_:visitor:preferWeb:facts:)``; ``unknown`` decides from the link alone.
public struct CodeFacts: Sendable, Equatable {
    public enum State: Sendable, Equatable {
        /// The check said the code can be used for this link's action.
        case live
        /// Past its lifetime (`EXPIRED_OOB_CODE`).
        case expired
        /// Spent, never made, or for another action: Identity Toolkit says `INVALID_OOB_CODE` for
        /// all three, so the page cannot tell them apart either.
        case usedOrInvalid
        /// Not checked: a bot, HEAD, the check's budget spent, or the backend away.
        case unknown
    }

    public var state: State
    /// Whether an app asked for the code (ActionCodeSettings naming an app or letting one handle
    /// it): the embedded backend's record says so; nil when only the link can tell.
    public var askedByApp: Bool?

    public init(state: State, askedByApp: Bool? = nil) {
        self.state = state
        self.askedByApp = askedByApp
    }

    public static let unknown = CodeFacts(state: .unknown)

    /// Whether `link` was asked for by an app: the record's word when there is one, else the link's
    /// shape (``shapeSaysAskedByApp(_:)``).
    package func askedByApp(_ link: ActionLink) -> Bool {
        askedByApp ?? Self.shapeSaysAskedByApp(link)
    }

    /// What the link alone says: Firebase mails a code made with app settings as
    /// `/__/auth/links?link=...`, and its action URL may carry `ibi`/`apn`; a web app's link is the
    /// bare action URL.
    package static func shapeSaysAskedByApp(_ link: ActionLink) -> Bool {
        switch link.shape {
        case .authLinks, .legacyDynamicLink, .deepLinkID: true
        case .actionURL, .emulatorAction: link.hints.iOSBundleID != nil || link.hints.androidPackageName != nil
        }
    }
}
