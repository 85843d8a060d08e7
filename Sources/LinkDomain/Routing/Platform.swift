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
    private static let botMarkerBytes = botMarkers.map { Array($0.utf8) }

    public static func classify(userAgent: String?, platformHint: String? = nil) -> Visitor {
        // Every link click runs this: it works on the ASCII-lower-cased bytes of the header,
        // which is all the markers need.
        let agent = LowercasedBytes(userAgent ?? "")
        let inAppMail = agent.contains("gmail") || agent.contains("outlook-ios/") || agent.contains("outlook-android/")
        if agent.bytes.isEmpty && platformHint == nil { return Visitor(platform: .bot) }
        // A preview fetcher named Outlook-iOS-LinkPreview is a bot even though it says iOS.
        if botMarkerBytes.contains(where: agent.contains) { return Visitor(platform: .bot) }

        let hint = platformHint.map { $0.trimmingCharacters(in: .init(charactersIn: "\" ")).lowercased() }
        if hint == "android" || agent.contains("android") { return Visitor(platform: .android, inAppMailBrowser: inAppMail) }
        if agent.contains("ipad") { return Visitor(platform: .iPadOS, inAppMailBrowser: inAppMail) }
        if agent.contains("iphone") || agent.contains("ipod") || hint == "ios" {
            return Visitor(platform: .iOS, inAppMailBrowser: inAppMail)
        }
        // iPadOS 13+ Safari asks for desktop sites by presenting as a Mac; only the touch-capable
        // "Mobile/" token in a Macintosh Safari UA gives it away.
        if agent.contains("macintosh") && agent.contains("mobile/") && agent.contains("safari") {
            return Visitor(platform: .iPadOS, inAppMailBrowser: inAppMail)
        }
        return Visitor(platform: .desktop, inAppMailBrowser: inAppMail)
    }
}
