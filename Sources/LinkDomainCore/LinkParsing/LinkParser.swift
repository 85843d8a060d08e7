#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Finds the email action in any link shape LinkDomain receives (docs/wire-formats.md §1):
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
    package static let maximumDepth = 4
    /// Longer values are refused rather than carried into pages and redirects.
    package static let maximumCodeLength = 512
    package static let maximumURLLength = 4096

    /// Parses a request's path and raw (still percent-encoded) query string.
    public static func parse(path: Substring, query: Substring) -> Result<ActionLink, LinkParseError> {
        parse(path: path, parameters: LinkParameters(query))
    }

    /// Parses a request's path and its query, already read (a click reads its query once).
    package static func parse(path: Substring, parameters: LinkParameters) -> Result<ActionLink, LinkParseError> {
        var path = path
        return parse(path: path.withUTF8(PathKind.init), parameters: parameters)
    }

    /// Parses a whole URL (`https://host/path?query`), or a path and query.
    public static func parse(url: String) -> Result<ActionLink, LinkParseError> {
        // Offsets over the contiguous bytes, not Characters or String indices: this runs on every click.
        var url = url
        let (path, query) = url.withUTF8 { bytes -> (PathKind, Range<Int>) in
            func isDelimiter(_ byte: UInt8) -> Bool { byte == UInt8(ascii: "/") || byte == UInt8(ascii: "?") || byte == UInt8(ascii: "#") }
            func first(_ byte: UInt8, from start: Int) -> Int {
                QueryBytes.first(byte, in: min(start, bytes.count)..<bytes.count, of: bytes) ?? bytes.count
            }
            var pathStart = 0
            var stop = 0
            while stop < bytes.count, !isDelimiter(bytes[stop]), bytes[stop] != UInt8(ascii: ":") { stop += 1 }
            // A scheme and `//`: the path starts after the authority.
            if stop + 2 < bytes.count, bytes[stop] == UInt8(ascii: ":"), bytes[stop + 1] == UInt8(ascii: "/"), bytes[stop + 2] == UInt8(ascii: "/") {
                pathStart = stop + 3
                while pathStart < bytes.count, !isDelimiter(bytes[pathStart]) { pathStart += 1 }
            }
            // The query follows the first `?` after the authority (even one past a `#`), up to a `#`.
            let mark = first(UInt8(ascii: "?"), from: pathStart)
            let pathEnd = min(mark, first(UInt8(ascii: "#"), from: pathStart))
            let queryStart = min(mark + 1, bytes.count)
            let queryEnd = first(UInt8(ascii: "#"), from: queryStart)
            return (PathKind(UnsafeBufferPointer(rebasing: bytes[pathStart..<pathEnd])), queryStart..<queryEnd)
        }
        return parse(path: path, parameters: LinkParameters(QueryBytes(source: url, bounds: query)))
    }

    /// What a link's path says about its shape.
    package enum PathKind {
        case authLinks, emulatorAction, other

        package init(_ path: UnsafeBufferPointer<UInt8>) {
            if LinkParser.hasPrefix(path, "/__/auth/links") {
                self = .authLinks
            } else if LinkParser.hasPrefix(path, "/emulator/action") {
                self = .emulatorAction
            } else {
                self = .other
            }
        }
    }

    private static func parse(path: PathKind, parameters: LinkParameters) -> Result<ActionLink, LinkParseError> {
        let shape: LinkShape
        if parameters.contains(.deepLinkID) {
            shape = .deepLinkID
        } else if path == .authLinks {
            shape = .authLinks
        } else if path == .emulatorAction {
            shape = .emulatorAction
        } else if parameters.contains(.link) {
            shape = .legacyDynamicLink
        } else {
            shape = .actionURL
        }
        var hints = PlatformHints()
        return find(in: parameters, depth: 0, hints: &hints, shape: shape) ?? .failure(.notAnActionLink)
    }

    /// A Dynamic Links long link (`?link=...&apn=...`) as such, for links whose deep link is not
    /// an email action; nil when the query has no usable `link`.
    public static func parseDynamicLink(query: Substring) -> DynamicLink? {
        parseDynamicLink(parameters: LinkParameters(query))
    }

    package static func parseDynamicLink(parameters: LinkParameters) -> DynamicLink? {
        guard let deepLink = parameters[.link], !deepLink.isEmpty, deepLink.utf8.count <= maximumURLLength else { return nil }
        var hints = PlatformHints()
        readHints(parameters, into: &hints)
        return DynamicLink(deepLink: deepLink, hints: hints)
    }

    /// A nested link's parameter, and the name its own query is searched for first.
    private static let nestingOrder: [(LinkParameters.Name, LinkParameters.Name)] = [(.deepLinkID, .link), (.link, .deepLinkID)]

    /// The action made from the parameters that have one (`mode` or `oobCode`): these, or those of
    /// a link nested in them; nil when none has. (Made where found: the parameters are a large value.)
    private static func find(
        in parameters: LinkParameters, depth: Int, hints: inout PlatformHints,
        shape: LinkShape
    ) -> Result<ActionLink, LinkParseError>? {
        if hints.isEmpty, parameters.hasHints { readHints(parameters, into: &hints) }
        if parameters.contains(.mode) || parameters.contains(.oobCode) { return build(parameters, hints: hints, shape: shape) }
        guard depth < maximumDepth else { return nil }
        // Each nested link's own query is read once: for the next level's name, then searched.
        // The order is the JS SDK's: `deep_link_id`'s `link`, `deep_link_id`, `link`'s
        // `deep_link_id`, `link`. (A link mailed without escaping its own `&` has the action's
        // parameters beside `link`: this level already answered for it, as the iOS SDK reads it.)
        for (outerName, innerName) in nestingOrder {
            guard let link = parameters[outerName] else { continue }
            let nested = LinkParameters(url: link)
            if let inner = nested[innerName], let found = find(in: LinkParameters(url: inner), depth: depth + 1, hints: &hints, shape: shape) {
                return found
            }
            if let found = find(in: nested, depth: depth + 1, hints: &hints, shape: shape) { return found }
        }
        return nil
    }

    private static func readHints(_ parameters: LinkParameters, into hints: inout PlatformHints) {
        guard parameters.hasHints else { return }
        var absurd = false
        func url(_ name: LinkParameters.Name) -> String? {
            let value = parameters[name]
            if (value?.utf8.count ?? 0) > maximumURLLength { absurd = true }
            return value
        }
        var fields = PlatformHints.Fields()
        fields.androidPackageName = parameters[.androidPackageName]
        fields.androidFallbackURL = url(.androidFallbackURL)
        fields.androidMinimumVersion = parameters[.androidMinimumVersion].flatMap { Int($0) }
        fields.iOSBundleID = parameters[.iOSBundleID]
        fields.iOSFallbackURL = url(.iOSFallbackURL)
        fields.iOSAppStoreID = parameters[.iOSAppStoreID]
        fields.iOSMinimumVersion = parameters[.iOSMinimumVersion]
        fields.iPadBundleID = parameters[.iPadBundleID]
        fields.iPadFallbackURL = url(.iPadFallbackURL)
        fields.iOSCustomScheme = parameters[.iOSCustomScheme]
        fields.otherPlatformFallbackURL = url(.otherPlatformFallbackURL)
        fields.skipPreviewPage = parameters[.skipPreviewPage] == "1"
        fields.socialTitle = parameters.text(.socialTitle)
        fields.socialDescription = parameters.text(.socialDescription)
        fields.socialImageURL = url(.socialImageURL)
        // Absurd values: ignore the hints rather than carry them anywhere.
        hints = absurd ? PlatformHints() : PlatformHints(fields)
    }

    private static func build(_ parameters: LinkParameters, hints: PlatformHints, shape: LinkShape) -> Result<ActionLink, LinkParseError> {
        do throws(LinkParseError) {
            return .success(try link(parameters, hints: hints, shape: shape))
        } catch {
            return .failure(error)
        }
    }

    /// The link made at once from its values (setting them one by one copied the whole value).
    private static func link(_ parameters: LinkParameters, hints: PlatformHints, shape: LinkShape) throws(LinkParseError) -> ActionLink {
        guard let modeName = parameters[.mode], !modeName.isEmpty else { throw .notAnActionLink }
        guard let mode = ActionMode(rawValue: modeName) else { throw .unknownMode(String(modeName.prefix(64))) }
        guard let code = parameters[.oobCode], !code.isEmpty else { throw .notAnActionLink }
        guard code.utf8.count <= maximumCodeLength else { throw .invalidParameter("oobCode") }
        let apiKey = try value(.apiKey, of: parameters, limit: 256)
        let languageCode = try value(.languageCode, of: parameters, limit: 256)
        let tenantID = try value(.tenantID, of: parameters, limit: 256)
        let linkDomain = try value(.linkDomain, of: parameters, limit: 256)
        let continueURL = try value(.continueURL, of: parameters, limit: maximumURLLength)
        return ActionLink(
            mode: mode, oobCode: code, apiKey: apiKey, continueURL: continueURL, languageCode: languageCode, tenantID: tenantID,
            linkDomain: linkDomain, hints: hints, shape: shape)
    }

    /// A parameter's value, nil when absent or empty; too long is an error.
    private static func value(_ name: LinkParameters.Name, of parameters: LinkParameters, limit: Int) throws(LinkParseError) -> String? {
        guard let value = parameters[name], !value.isEmpty else { return nil }
        guard value.utf8.count <= limit else { throw .invalidParameter(name.wireName) }
        return value
    }

    private static func hasPrefix(_ bytes: UnsafeBufferPointer<UInt8>, _ prefix: StaticString) -> Bool {
        guard let start = bytes.baseAddress, bytes.count >= prefix.utf8CodeUnitCount else { return false }
        return memcmp(start, prefix.utf8Start, prefix.utf8CodeUnitCount) == 0
    }
}
