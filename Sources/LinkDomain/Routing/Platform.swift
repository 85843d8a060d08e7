import Foundation

/// Who is visiting, as far as the request tells.
public enum Platform: String, Sendable, Equatable, CaseIterable {
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

/// The visitor's platform and whether they are inside a mail app's own browser.
public struct Visitor: Sendable, Equatable {
    public var platform: Platform
    /// Gmail's or Outlook's in-app browser: universal links and App Links do not fire there.
    public var inAppMailBrowser: Bool

    /// A person's browser, not a scanner, a preview fetcher or a crawler: what click statistics count.
    public var isPerson: Bool { platform != .bot }

    public init(platform: Platform, inAppMailBrowser: Bool = false) {
        self.platform = platform
        self.inAppMailBrowser = inAppMailBrowser
    }
}

/// Classifies a visitor from `User-Agent` and, when sent, the `Sec-CH-UA-Platform` client hint
/// (which Chromium browsers send as their user agents lose detail).
public enum PlatformClassifier {
    /// Case-insensitive substrings that mark automated fetchers: mail-security scanners, link
    /// preview bots and generic HTTP clients.
    static let botMarkers = [
        "bot", "crawler", "spider", "slurp", "preview", "scanner", "safelinks", "safe links", "barracuda", "mimecast",
        "proofpoint", "curl/", "wget/", "python-requests", "python-urllib", "go-http-client", "okhttp", "java/", "libwww",
        "httpclient", "headlesschrome", "phantomjs", "facebookexternalhit", "whatsapp", "slackbot", "twitterbot",
        "linkedinbot", "discordbot", "telegrambot", "skypeuripreview", "outlook-ios-linkpreview", "microsoft office",
        "ms office", "google-read-aloud", "yahoo! slurp", "bingpreview",
    ]
    /// What else classification looks for, after the bot markers in the same scan.
    private static let otherMarkers = ["gmail", "outlook-ios/", "outlook-android/", "android", "ipad", "iphone", "ipod", "macintosh", "mobile/", "safari"]
    private static let scanner = MarkerScanner(botMarkers + otherMarkers)
    private static let botMask: UInt64 = (1 << UInt64(botMarkers.count)) - 1

    /// The scan's bit for one of `otherMarkers`.
    private static func bit(_ marker: String) -> UInt64 {
        1 << UInt64(botMarkers.count + otherMarkers.firstIndex(of: marker)!)
    }
    private static let inAppMailMask = bit("gmail") | bit("outlook-ios/") | bit("outlook-android/")
    private static let android = bit("android"), iPad = bit("ipad"), iPhone = bit("iphone") | bit("ipod")
    private static let touchMac = bit("macintosh") | bit("mobile/") | bit("safari")

    public static func classify(userAgent: String?, platformHint: String? = nil) -> Visitor {
        let agent = userAgent ?? ""
        if agent.isEmpty && platformHint == nil { return Visitor(platform: .bot) }
        let found = scanner.scan(agent)
        // A preview fetcher named Outlook-iOS-LinkPreview is a bot even though it says iOS.
        if found & botMask != 0 { return Visitor(platform: .bot) }
        let inAppMail = found & inAppMailMask != 0

        let hint = platformHint.map { $0.trimmingCharacters(in: .init(charactersIn: "\" ")).lowercased() }
        if hint == "android" || found & android != 0 { return Visitor(platform: .android, inAppMailBrowser: inAppMail) }
        if found & iPad != 0 { return Visitor(platform: .iPadOS, inAppMailBrowser: inAppMail) }
        if found & iPhone != 0 || hint == "ios" { return Visitor(platform: .iOS, inAppMailBrowser: inAppMail) }
        // iPadOS 13+ Safari asks for desktop sites by presenting as a Mac; only the touch-capable
        // "Mobile/" token in a Macintosh Safari UA gives it away.
        if found & touchMac == touchMac { return Visitor(platform: .iPadOS, inAppMailBrowser: inAppMail) }
        return Visitor(platform: .desktop, inAppMailBrowser: inAppMail)
    }
}
