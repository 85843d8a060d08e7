import Hummingbird
import LinkDomainCore
import LinkDomainStorage

/// The body of the Dynamic Links REST call `POST /v1/shortLinks`, turned into the long link's query.
struct ShortLinkRequest {
    /// How the link's suffix comes about: made by the service (`SHORT`, `UNGUESSABLE`) or chosen (`CUSTOM`).
    enum Suffix: Equatable {
        case generated(SuffixGenerator.Option)
        case chosen(String)
    }

    var longLinkQuery: String
    var suffix: Suffix
    var warnings: [(code: String, message: String)]

    /// Reads `longDynamicLink` or `dynamicLinkInfo`, and `suffix.option` (with `suffix.customSuffix`
    /// for `CUSTOM`; `OPTION_UNSPECIFIED`, like no option, is `UNGUESSABLE`). The deep link and every
    /// fallback must pass `policy` (the one every redirect out of this service passes), as Dynamic
    /// Links refused deep links outside its URL allow-list: a link made otherwise would not work.
    init(
        _ body: [String: JSONValue], publicBaseURL: String, appleApps: [AppleApp], androidApps: [AndroidApp], policy: RedirectPolicy
    ) throws(ShortLinkAPIError) {
        suffix = try Self.suffix(body["suffix"])
        if case .string(let long)? = body["longDynamicLink"] {
            let prefix = publicBaseURL.lowercased()
            guard long.lowercased().hasPrefix(prefix), let mark = long.firstIndex(of: "?"),
                long[long.index(long.startIndex, offsetBy: prefix.count)...].first.map({ $0 == "/" || $0 == "?" }) == true
            else {
                throw .invalidArgument("longDynamicLink must start with this link domain, \(publicBaseURL)")
            }
            longLinkQuery = String(long[long.index(after: mark)...])
        } else if case .object(let info)? = body["dynamicLinkInfo"] {
            longLinkQuery = try Self.query(from: info, publicBaseURL: publicBaseURL)
        } else {
            throw .invalidArgument("give longDynamicLink or dynamicLinkInfo")
        }
        guard let link = LinkParser.parseDynamicLink(query: Substring(longLinkQuery)), WebAddress(link.deepLink) != nil else {
            throw .invalidArgument("the link parameter must be an http(s) URL")
        }
        if let refusal = Self.refusal(of: link, policy: policy) { throw .invalidArgument(refusal) }
        warnings = []
        if let package = link.hints.androidPackageName, !androidApps.contains(where: { $0.packageName == package }) {
            warnings.append(("NOT_IN_PROJECT_ANDROID_PACKAGE_NAME", "Android app '\(package)' is not in this link domain's configuration."))
        }
        if let bundle = link.hints.iOSBundleID, !appleApps.contains(where: { $0.bundleID == bundle }) {
            warnings.append(("NOT_IN_PROJECT_IOS_BUNDLE_ID", "iOS app '\(bundle)' is not in this link domain's configuration."))
        }
    }

    private static func suffix(_ value: JSONValue?) throws(ShortLinkAPIError) -> Suffix {
        guard let value else { return .generated(.unguessable) }
        guard case .object(let fields) = value else { throw .invalidArgument("suffix must be an object") }
        switch fields["option"] {
        case nil, .string("OPTION_UNSPECIFIED")?, .string("UNGUESSABLE")?: return .generated(.unguessable)
        case .string("SHORT")?: return .generated(.short)
        case .string("CUSTOM")?:
            guard case .string(let chosen)? = fields["customSuffix"] else {
                throw .invalidArgument("suffix.customSuffix is required with suffix.option CUSTOM")
            }
            if let problem = SuffixGenerator.problem(withChosen: chosen) { throw .invalidArgument("suffix.customSuffix: \(problem)") }
            return .chosen(chosen)
        default: throw .invalidArgument("suffix.option must be SHORT, UNGUESSABLE or CUSTOM")
        }
    }

    /// Why a link would not work, naming the address's host and what to change; nil when its deep
    /// link and fallbacks all pass `policy`.
    static func refusal(of link: DynamicLink, policy: RedirectPolicy) -> String? {
        let hints = link.hints
        let addresses: [(name: String, url: String?)] = [
            ("the deep link (link)", link.deepLink), ("the Android fallback (afl)", hints.androidFallbackURL),
            ("the iOS fallback (ifl)", hints.iOSFallbackURL), ("the iPad fallback (ipfl)", hints.iPadFallbackURL),
            ("the other platforms' fallback (ofl)", hints.otherPlatformFallbackURL),
        ]
        for case let (name, url?) in addresses where policy.allowed(url) == nil {
            guard let address = WebAddress(url) else { return "\(name) is not a web address" }
            guard address.scheme == "https" || address.isLoopback else { return "\(name) must be an https address" }
            return
                "\(name) is on \(address.host), which is not in authorizedDomains: add \(address.host) to authorizedDomains in the configuration to link there"
        }
        return nil
    }

    /// The long link's query for a `dynamicLinkInfo` object, parameter by parameter.
    private static func query(from info: [String: JSONValue], publicBaseURL: String) throws(ShortLinkAPIError) -> String {
        // `domainUriPrefix` is the origin; the deprecated `dynamicLinkDomain` named only the host.
        let named: Bool
        switch (info["domainUriPrefix"], info["dynamicLinkDomain"]) {
        case (.string(let prefix)?, _): named = prefix.lowercased().trimmingSuffix("/") == publicBaseURL.lowercased()
        case (nil, .string(let host)?): named = WebAddress(publicBaseURL)?.host == host.lowercased()
        default: named = false
        }
        guard named else { throw .invalidArgument("dynamicLinkInfo.domainUriPrefix must be this link domain, \(publicBaseURL)") }
        guard case .string(let link)? = info["link"] else { throw .invalidArgument("dynamicLinkInfo.link is required") }
        var pairs: [(String, String)] = [("link", link)]
        func add(_ name: String, _ object: String, _ field: String) {
            guard case .object(let fields)? = info[object] else { return }
            switch fields[field] {
            case .string(let value)?: pairs.append((name, value))
            case .integer(let value)?: pairs.append((name, String(value)))
            case .boolean(let value)?: pairs.append((name, value ? "1" : "0"))
            default: break
            }
        }
        add("apn", "androidInfo", "androidPackageName")
        add("afl", "androidInfo", "androidFallbackLink")
        add("amv", "androidInfo", "androidMinPackageVersionCode")
        add("ibi", "iosInfo", "iosBundleId")
        add("ifl", "iosInfo", "iosFallbackLink")
        add("ius", "iosInfo", "iosCustomScheme")
        add("ipfl", "iosInfo", "iosIpadFallbackLink")
        add("ipbi", "iosInfo", "iosIpadBundleId")
        add("isi", "iosInfo", "iosAppStoreId")
        add("ofl", "desktopInfo", "desktopFallbackLink")
        add("efr", "navigationInfo", "enableForcedRedirect")
        add("st", "socialMetaTagInfo", "socialTitle")
        add("sd", "socialMetaTagInfo", "socialDescription")
        add("si", "socialMetaTagInfo", "socialImageLink")
        return pairs.map { "\($0)=\(ActionLinkEncoder.percentEncode($1))" }.joined(separator: "&")
    }
}

extension ShortLinkAPIError {
    /// Runs an API call: its JSON answer, or the error's (a 503 says when to try again).
    static func answer(_ work: () async throws(ShortLinkAPIError) -> some Encodable) async -> Response {
        do {
            return .json(try await work())
        } catch {
            var response = Response.json(error.body, status: HTTPResponse.Status(code: error.statusCode))
            if error == .unavailable { response.headers[.retryAfter] = "5" }
            return response
        }
    }
}

/// Errors of the link API, in Google APIs' shape: `{"error":{"code":400,"message":"...","status":"INVALID_ARGUMENT"}}`.
enum ShortLinkAPIError: Error, Equatable {
    case invalidArgument(String)
    case permissionDenied(String)
    case notFound(String)
    /// A chosen suffix that stands for another link already.
    case alreadyExists(String)
    case unavailable

    var statusCode: Int {
        switch self {
        case .invalidArgument: 400
        case .permissionDenied: 403
        case .notFound: 404
        case .alreadyExists: 409
        case .unavailable: 503
        }
    }

    /// The JSON body Google APIs answer with.
    var body: Body {
        let (message, status): (String, String) =
            switch self {
            case .invalidArgument(let message): (message, "INVALID_ARGUMENT")
            case .permissionDenied(let message): (message, "PERMISSION_DENIED")
            case .notFound(let message): (message, "NOT_FOUND")
            case .alreadyExists(let message): (message, "ALREADY_EXISTS")
            case .unavailable: ("The link store is unavailable. Try again.", "UNAVAILABLE")
            }
        return Body(error: .init(code: statusCode, message: message, status: status))
    }

    struct Body: Encodable, Sendable {
        struct Detail: Encodable, Sendable {
            let code: Int
            let message: String
            let status: String
        }

        let error: Detail
    }
}

extension String {
    fileprivate func trimmingSuffix(_ suffix: String) -> String {
        hasSuffix(suffix) ? String(dropLast(suffix.count)) : self
    }
}
