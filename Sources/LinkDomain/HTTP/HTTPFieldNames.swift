import HTTPTypes
import LinkDomainCore
import LinkDomainStorage

/// The header names LinkDomain reads or writes that HTTPTypes does not name itself.
extension HTTPField.Name {
    /// The platform a Chromium browser reports (User-Agent reduction leaves "Android 10; K").
    static let secCHUAPlatform = HTTPField.Name("Sec-CH-UA-Platform")!
    /// Where a request comes from, as the browser sees it (`same-origin`, `same-site`, `cross-site`, `none`).
    static let secFetchSite = HTTPField.Name("Sec-Fetch-Site")!
    static let xForwardedFor = HTTPField.Name("X-Forwarded-For")!
    static let xForwardedProto = HTTPField.Name("X-Forwarded-Proto")!
    static let referrerPolicy = HTTPField.Name("Referrer-Policy")!
    static let xFrameOptions = HTTPField.Name("X-Frame-Options")!
    /// The language Firebase clients ask mails to be written in.
    static let firebaseLocale = HTTPField.Name("X-Firebase-Locale")!
    /// Where Google's client libraries may send the API key instead of `?key=`.
    static let googAPIKey = HTTPField.Name("X-Goog-Api-Key")!
    /// Keeps the console out of search engines, whatever links to it.
    static let xRobotsTag = HTTPField.Name("X-Robots-Tag")!
    /// Marks an answer relayed from the sign-in helper's origin for ``SecurityHeaders``, which
    /// removes it: never sent.
    static let relayedFromOrigin = HTTPField.Name("LinkDomain-Relayed-From-Origin")!
}
