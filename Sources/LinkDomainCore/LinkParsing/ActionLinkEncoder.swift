/// Builds the links the embedded backend mails, in the shapes Firebase's own mails have:
///
///     <base>/__/auth/action?apiKey=K&mode=M&oobCode=C&continueUrl=U&lang=L[&tenantId=T]
///     <base>/__/auth/links?link=<that action URL, with = & % escaped>
///
/// Parameter values are percent-encoded (everything but RFC 3986 unreserved characters), and the
/// wrapped form escapes only `=`, `&` and `%` of the action URL, as real mails do. That survives
/// both client parsers: the JS SDK (split on `&` and `=`, then decode once per level) and the iOS
/// SDK (decode the whole query once, split on `&`, then at the first `=`), including a continue
/// URL with its own query and non-ASCII characters. `apiKey` goes first so that, under the iOS
/// parser, it is the parameter that sticks to the `link` key.
public struct ActionLinkEncoder: Sendable {
    public var baseURL: String

    public init(baseURL: String) {
        self.baseURL = baseURL
    }

    /// What an action link carries.
    public struct Parameters: Sendable, Equatable {
        public var apiKey: String
        public var mode: String
        public var oobCode: String
        public var continueURL: String?
        public var languageCode: String?
        public var tenantID: String?

        public init(
            apiKey: String, mode: String, oobCode: String, continueURL: String? = nil, languageCode: String? = nil,
            tenantID: String? = nil
        ) {
            self.apiKey = apiKey
            self.mode = mode
            self.oobCode = oobCode
            self.continueURL = continueURL
            self.languageCode = languageCode
            self.tenantID = tenantID
        }
    }

    /// The email action handler URL.
    public func actionURL(_ parameters: Parameters) -> String {
        String(decoding: actionURLBytes(parameters), as: UTF8.self)
    }

    /// The action URL wrapped for apps: the path that universal links and App Links open.
    public func appLink(_ parameters: Parameters) -> String {
        var bytes = Array(baseURL.utf8)
        bytes.append(contentsOf: "/__/auth/links?link=".utf8)
        Self.escapeForLinkParameter(actionURLBytes(parameters), into: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Written over bytes: pairs mapped to interpolated strings and joined cost a landing page
    /// 17,000 instructions (BENCHMARKS.md, "The first page a phone sees").
    private func actionURLBytes(_ parameters: Parameters) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(baseURL.utf8.count + 128 + (parameters.continueURL?.utf8.count ?? 0) * 3)
        bytes.append(contentsOf: baseURL.utf8)
        bytes.append(contentsOf: "/__/auth/action?".utf8)
        var first = true
        func pair(_ name: String, _ value: String) {
            if !first { bytes.append(UInt8(ascii: "&")) }
            first = false
            bytes.append(contentsOf: name.utf8)
            bytes.append(UInt8(ascii: "="))
            Self.percentEncode(value, into: &bytes)
        }
        pair("apiKey", parameters.apiKey)
        pair("mode", parameters.mode)
        pair("oobCode", parameters.oobCode)
        if let continueURL = parameters.continueURL { pair("continueUrl", continueURL) }
        pair("lang", parameters.languageCode ?? "en")
        if let tenantID = parameters.tenantID { pair("tenantId", tenantID) }
        return bytes
    }

    /// Percent-encodes every byte that is not an RFC 3986 unreserved character.
    public static func percentEncode(_ value: String) -> String {
        var result: [UInt8] = []
        result.reserveCapacity(value.utf8.count * 3)
        percentEncode(value, into: &result)
        return String(decoding: result, as: UTF8.self)
    }

    /// Appends the encoding to bytes: building a String a scalar at a time costs several times more.
    package static func percentEncode(_ value: String, into result: inout [UInt8]) {
        for byte in value.utf8 {
            if isUnreserved(byte) {
                result.append(byte)
            } else {
                appendEscaped(byte, to: &result)
            }
        }
    }

    /// Escapes what would end or split the `link` parameter (and `%`, so inner escapes survive one decode).
    package static func escapeForLinkParameter(_ url: String) -> String {
        var result: [UInt8] = []
        result.reserveCapacity(url.utf8.count + 16)
        escapeForLinkParameter(url.utf8, into: &result)
        return String(decoding: result, as: UTF8.self)
    }

    /// Written over bytes, as ``percentEncode(_:into:)`` is: appending scalar by scalar to a String
    /// was a fifth of a landing page's cost.
    package static func escapeForLinkParameter(_ url: some Sequence<UInt8>, into result: inout [UInt8]) {
        for byte in url {
            switch byte {
            case UInt8(ascii: "%"), UInt8(ascii: "&"), UInt8(ascii: "="):
                appendEscaped(byte, to: &result)
            default: result.append(byte)
            }
        }
    }

    /// `%` and the byte's two hexadecimal digits.
    package static func appendEscaped(_ byte: UInt8, to result: inout [UInt8]) {
        result.append(UInt8(ascii: "%"))
        result.append(hexDigits[Int(byte >> 4)])
        result.append(hexDigits[Int(byte & 0xF)])
    }

    package static let hexDigits = Array("0123456789ABCDEF".utf8)

    package static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
            UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: "~"):
            true
        default:
            false
        }
    }
}
