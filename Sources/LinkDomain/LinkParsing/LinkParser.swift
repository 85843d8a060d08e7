#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Finds the email action in any link shape LinkDomain receives (WIRE.md §1):
///
/// - `/__/auth/links?link=<action URL>`
/// - the action URL itself, at `/__/auth/action` or a custom action path
/// - the Auth emulator's `/emulator/action?...`
/// - Dynamic Links long links on any path: `?link=<action URL>&apn=...&ibi=...&ifl=...`
/// - `deep_link_id` hand-offs
///
/// Nested links are unwrapped in the Firebase JS SDK's order of preference (`deep_link_id`'s
/// `link`, `deep_link_id`, `link`'s `deep_link_id`, `link`), up to ``maximumDepth`` levels. Dynamic
/// Links parameters are taken from the outermost level that has them. Parsing is pure and never
/// traps, whatever the input.
public enum LinkParser {
    static let maximumDepth = 4
    /// Longer values are refused rather than carried into pages and redirects.
    static let maximumCodeLength = 512
    static let maximumURLLength = 4096

    /// Parses a request's path and raw (still percent-encoded) query string.
    public static func parse(path: Substring, query: Substring) -> Result<ActionLink, LinkParseError> {
        parse(path: path, parameters: QueryString(query))
    }

    /// Parses a request's path and its query, already split (a click reads its query once).
    static func parse(path: Substring, parameters outer: QueryString) -> Result<ActionLink, LinkParseError> {
        let shape: LinkShape
        if outer.contains("deep_link_id") {
            shape = .deepLinkID
        } else if hasPrefix(path, "/__/auth/links") {
            shape = .authLinks
        } else if hasPrefix(path, "/emulator/action") {
            shape = .emulatorAction
        } else if outer.contains("link") {
            shape = .legacyDynamicLink
        } else {
            shape = .actionURL
        }
        var hints = PlatformHints()
        return find(in: outer, depth: 0, hints: &hints).flatMap { parameters in
            build(parameters, hints: hints, shape: shape)
        }
    }

    /// Parses a whole URL (`https://host/path?query`), or a path and query.
    public static func parse(url: String) -> Result<ActionLink, LinkParseError> {
        // Offsets over the contiguous bytes, not Characters or String indices: this runs on every click.
        var url = url
        let (pathStart, pathEnd, query) = url.withUTF8 { bytes -> (Int, Int, Range<Int>?) in
            func first(from start: Int, _ isWanted: (UInt8) -> Bool) -> Int {
                var index = start
                while index < bytes.count, !isWanted(bytes[index]) { index += 1 }
                return index
            }
            let isDelimiter = { (byte: UInt8) in byte == UInt8(ascii: "/") || byte == UInt8(ascii: "?") || byte == UInt8(ascii: "#") }
            var pathStart = 0
            let stop = first(from: 0) { isDelimiter($0) || $0 == UInt8(ascii: ":") }
            // A scheme and `//`: the path starts after the authority.
            if stop + 2 < bytes.count, bytes[stop] == UInt8(ascii: ":"), bytes[stop + 1] == UInt8(ascii: "/"), bytes[stop + 2] == UInt8(ascii: "/") {
                pathStart = first(from: stop + 3, isDelimiter)
            }
            let pathEnd = first(from: pathStart) { $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") }
            let mark = first(from: pathStart) { $0 == UInt8(ascii: "?") }
            let query = mark < bytes.count ? (mark + 1)..<first(from: mark + 1) { $0 == UInt8(ascii: "#") } : nil
            return (pathStart, pathEnd, query)
        }
        let utf8 = url.utf8
        func index(_ offset: Int) -> String.Index { utf8.index(utf8.startIndex, offsetBy: offset) }
        return parse(path: url[index(pathStart)..<index(pathEnd)], query: query.map { url[index($0.lowerBound)..<index($0.upperBound)] } ?? "")
    }

    /// A Dynamic Links long link (`?link=...&apn=...`) as such, for links whose deep link is not
    /// an email action; nil when the query has no usable `link`.
    public static func parseDynamicLink(query: Substring) -> DynamicLink? {
        parseDynamicLink(parameters: QueryString(query))
    }

    static func parseDynamicLink(parameters outer: QueryString) -> DynamicLink? {
        guard let deepLink = outer["link"], !deepLink.isEmpty, deepLink.utf8.count <= maximumURLLength else { return nil }
        var hints = PlatformHints()
        readHints(outer, into: &hints)
        return DynamicLink(deepLink: deepLink, hints: hints)
    }

    /// A nested link's parameter, and the name its own query is searched for first.
    private static let nestingOrder = [("deep_link_id", "link"), ("link", "deep_link_id")]

    private static func find(in query: QueryString, depth: Int, hints: inout PlatformHints) -> Result<QueryString, LinkParseError> {
        if hints.isEmpty { readHints(query, into: &hints) }
        if query.contains("mode") || query.contains("oobCode") { return .success(query) }
        guard depth < maximumDepth else { return .failure(.notAnActionLink) }
        // Each nested link's own query is split once: it is read for the next level's name, then
        // searched. The order is the JS SDK's: `deep_link_id`'s `link`, `deep_link_id`, `link`'s
        // `deep_link_id`, `link`. (A link mailed without escaping its own `&` has the action's
        // parameters beside `link`: this level already answered for it, as the iOS SDK reads it.)
        for (outerName, innerName) in nestingOrder {
            guard let link = query[outerName].map({ Substring($0) }) else { continue }
            let parameters = QueryString(QueryString.of(link))
            if let inner = parameters[innerName],
               case .success(let found) = find(in: QueryString(QueryString.of(Substring(inner))), depth: depth + 1, hints: &hints) {
                return .success(found)
            }
            if case .success(let found) = find(in: parameters, depth: depth + 1, hints: &hints) { return .success(found) }
        }
        return .failure(.notAnActionLink)
    }

    /// The Dynamic Links parameters, in ``readHints(_:into:)``'s order.
    private static let hintNames = QueryString.Names(["apn", "afl", "amv", "ibi", "ifl", "isi", "imv", "ipbi", "ipfl", "ius", "ofl", "efr", "st", "sd", "si"])

    private static func readHints(_ query: QueryString, into hints: inout PlatformHints) {
        let values = query.values(of: hintNames)
        guard !values.isEmpty else { return }
        hints.androidPackageName = values[0]
        hints.androidFallbackURL = values[1]
        hints.androidMinimumVersion = values[2].flatMap { Int($0) }
        hints.iOSBundleID = values[3]
        hints.iOSFallbackURL = values[4]
        hints.iOSAppStoreID = values[5]
        hints.iOSMinimumVersion = values[6]
        hints.iPadBundleID = values[7]
        hints.iPadFallbackURL = values[8]
        hints.iOSCustomScheme = values[9]
        hints.otherPlatformFallbackURL = values[10]
        hints.skipPreviewPage = values[11] == "1"
        hints.socialTitle = values[12]
        hints.socialDescription = values[13]
        hints.socialImageURL = values[14]
        for url in [hints.androidFallbackURL, hints.iOSFallbackURL, hints.iPadFallbackURL, hints.otherPlatformFallbackURL,
                    hints.socialImageURL] where (url?.utf8.count ?? 0) > maximumURLLength {
            hints = PlatformHints()  // absurd values: ignore the hints rather than carry them anywhere
            return
        }
    }

    /// The action's parameters, in ``build(_:hints:shape:)``'s order.
    private static let actionNames = QueryString.Names(["mode", "oobCode", "apiKey", "continueUrl", "lang", "tenantId", "linkDomain"])

    private static func build(_ query: QueryString, hints: PlatformHints, shape: LinkShape) -> Result<ActionLink, LinkParseError> {
        let values = query.values(of: actionNames)
        guard let modeName = values[0], !modeName.isEmpty else { return .failure(.notAnActionLink) }
        guard let mode = ActionMode(rawValue: modeName) else { return .failure(.unknownMode(String(modeName.prefix(64)))) }
        guard let code = values[1], !code.isEmpty else { return .failure(.notAnActionLink) }
        guard code.utf8.count <= maximumCodeLength else { return .failure(.invalidParameter("oobCode")) }
        var link = ActionLink(mode: mode, oobCode: code, hints: hints, shape: shape)
        link.apiKey = nonEmpty(values[2])
        link.continueURL = nonEmpty(values[3])
        link.languageCode = nonEmpty(values[4])
        link.tenantID = nonEmpty(values[5])
        link.linkDomain = nonEmpty(values[6])
        for (name, value) in [("apiKey", link.apiKey), ("lang", link.languageCode), ("tenantId", link.tenantID), ("linkDomain", link.linkDomain)]
        where (value?.utf8.count ?? 0) > 256 {
            return .failure(.invalidParameter(name))
        }
        if (link.continueURL?.utf8.count ?? 0) > maximumURLLength { return .failure(.invalidParameter("continueUrl")) }
        return .success(link)
    }

    private static func hasPrefix(_ text: Substring, _ prefix: StaticString) -> Bool {
        var text = text
        return text.withUTF8 { bytes in
            guard let start = bytes.baseAddress, bytes.count >= prefix.utf8CodeUnitCount else { return false }
            return memcmp(start, prefix.utf8Start, prefix.utf8CodeUnitCount) == 0
        }
    }

    private static func nonEmpty(_ value: String?) -> String? {
        guard let value, !value.isEmpty else { return nil }
        return value
    }
}
