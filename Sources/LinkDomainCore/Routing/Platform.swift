import Foundation

/// Who is visiting, as far as the request tells.
public enum Platform: String, Sendable, Hashable, CaseIterable {
    case iOS
    /// iPadOS, including desktop-class Safari, which presents itself as a Mac.
    case iPadOS
    case android
    case desktop
    /// Link scanners, preview fetchers and crawlers: never shown anything that spends or reveals.
    case bot

    public var isMobile: Bool { self == .iOS || self == .iPadOS || self == .android }
    public var isApple: Bool { self == .iOS || self == .iPadOS }
}

/// An app's own browser, where universal links and App Links do not fire and `intent://` mostly
/// fails: the page must tell the person how to get to Safari or Chrome, in that app's words.
public enum InAppBrowser: String, Sendable, Hashable, CaseIterable {
    case gmail, outlook, googleApp, facebook, instagram
    /// Any other app's web view: an iPhone browser that is not Safari-based (no `Safari/` token),
    /// or an Android WebView (`; wv)`).
    case other

    /// The app's name as the page says it (a string key for the one that is not a brand).
    package var displayName: (name: String?, text: PageText?) {
        switch self {
        case .gmail: ("Gmail", nil)
        case .outlook: ("Outlook", nil)
        case .facebook: ("Facebook", nil)
        case .instagram: ("Instagram", nil)
        case .googleApp: (nil, .inappGoogleApp)
        case .other: (nil, nil)
        }
    }
}

/// The visitor's platform and whether they are inside an app's own browser.
public struct Visitor: Sendable, Hashable {
    public var platform: Platform
    public var inAppBrowser: InAppBrowser?

    /// A person's browser, not a scanner, a preview fetcher or a crawler: what click statistics count.
    public var isPerson: Bool { platform != .bot }

    public init(platform: Platform, inAppBrowser: InAppBrowser? = nil) {
        self.platform = platform
        self.inAppBrowser = inAppBrowser
    }
}

/// Classifies a visitor from `User-Agent` and, when sent, the `Sec-CH-UA-Platform` client hint
/// (which Chromium browsers send as their user agents lose detail).
public enum PlatformClassifier {
    /// Case-insensitive substrings that mark automated fetchers: mail-security scanners, link
    /// preview bots and generic HTTP clients.
    package static let botMarkers = [
        "bot", "crawler", "spider", "slurp", "preview", "scanner", "safelinks", "safe links", "barracuda", "mimecast",
        "proofpoint", "curl/", "wget/", "python-requests", "python-urllib", "go-http-client", "okhttp", "java/", "libwww",
        "httpclient", "headlesschrome", "phantomjs", "facebookexternalhit", "whatsapp", "slackbot", "twitterbot",
        "linkedinbot", "discordbot", "telegrambot", "skypeuripreview", "outlook-ios-linkpreview", "microsoft office",
        "ms office", "google-read-aloud", "yahoo! slurp", "bingpreview",
    ]
    /// What else classification looks for, after the bot markers in the same scan.
    private static let otherMarkers = [
        "gmail", "outlook-ios/", "outlook-android/", "android", "ipad", "iphone", "ipod", "macintosh", "mobile/", "safari",
        "gsa/", "fban", "fbav", "fb_iab", "instagram", "; wv)", "outlook",
    ]
    private static let scanner = MarkerScanner(botMarkers + otherMarkers)
    private static let botMask: UInt64 = (1 << UInt64(botMarkers.count)) - 1

    /// The scan's bit for one of `otherMarkers`.
    private static func bit(_ marker: String) -> UInt64 {
        1 << UInt64(botMarkers.count + otherMarkers.firstIndex(of: marker)!)
    }
    private static let facebookMask = bit("fban") | bit("fbav") | bit("fb_iab")
    private static let android = bit("android"), iPad = bit("ipad"), iPhone = bit("iphone") | bit("ipod")
    private static let touchMac = bit("macintosh") | bit("mobile/") | bit("safari")
    // Each app's marks, looked up once: `bit` searches the marker list.
    private static let gmail = bit("gmail"), outlook = bit("outlook-ios/") | bit("outlook-android/") | bit("outlook"), googleApp = bit("gsa/")
    private static let instagram = bit("instagram"), safari = bit("safari"), webView = bit("; wv)")

    public static func classify(userAgent: String?, platformHint: String? = nil) -> Visitor {
        let agent = userAgent ?? ""
        if agent.isEmpty && platformHint == nil { return Visitor(platform: .bot) }
        let found = scanner.scan(agent)
        // A preview fetcher named Outlook-iOS-LinkPreview is a bot even though it says iOS.
        if found & botMask != 0 { return Visitor(platform: .bot) }
        let hint = platformHint.map(bareHint)
        let platform: Platform
        if hint == "android" || found & android != 0 {
            platform = .android
        } else if found & iPad != 0 {
            platform = .iPadOS
        } else if found & iPhone != 0 || hint == "ios" {
            platform = .iOS
        } else if found & touchMac == touchMac {
            // iPadOS 13+ Safari asks for desktop sites by presenting as a Mac; only the touch-capable
            // "Mobile/" token in a Macintosh Safari UA gives it away.
            platform = .iPadOS
        } else {
            platform = .desktop
        }
        return Visitor(platform: platform, inAppBrowser: inAppBrowser(found, platform: platform))
    }

    /// `Sec-CH-UA-Platform`'s value (`"Android"`) without its quotes and spaces, its ASCII letters
    /// lower-cased: bytes, not Foundation's `trimmingCharacters`, which cost Chrome's every request
    /// more than the rest of the classification.
    private static func bareHint(_ value: String) -> String {
        var bytes = Substring(value).utf8[...]
        let trimmed: (UInt8) -> Bool = { $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: " ") }
        while let first = bytes.first, trimmed(first) { bytes = bytes.dropFirst() }
        while let last = bytes.last, trimmed(last) { bytes = bytes.dropLast() }
        return String(decoding: bytes.map(\.asciiLowercased), as: UTF8.self)
    }

    /// Which app's own browser the marks show, if any. On iOS every browser but a web view says
    /// `Safari/` (Chrome and Firefox for iOS too); on Android a WebView says `; wv)`.
    private static func inAppBrowser(_ found: UInt64, platform: Platform) -> InAppBrowser? {
        if found & gmail != 0 { return .gmail }
        if found & outlook != 0, platform.isMobile { return .outlook }
        if found & googleApp != 0 { return .googleApp }
        if found & instagram != 0 { return .instagram }
        if found & facebookMask != 0 { return .facebook }
        if platform.isApple, found & safari == 0 { return .other }
        if platform == .android, found & webView != 0 { return .other }
        return nil
    }
}
