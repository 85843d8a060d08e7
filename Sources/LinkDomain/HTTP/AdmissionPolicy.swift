import HTTPTypes
import LinkDomainCore
import LinkDomainStorage

/// The limits every request meets, whichever way it is answered: the event loop answers only
/// requests inside them and leaves the rest to the router, which refuses them (414, 431) or, for a
/// `Connection` other than keep-alive, answers and closes as HTTP/1.1 says.
enum AdmissionPolicy {
    static let maximumURLLength = 8 * 1024
    static let maximumHeaderBytes = 32 * 1024

    /// Whether the event loop may answer a request of this size that keeps its connection open.
    static func mayAnswerOnEventLoop(targetBytes: Int, headerBytes: Int, keepsConnection: Bool = true) -> Bool {
        keepsConnection && targetBytes <= maximumURLLength && headerBytes <= maximumHeaderBytes
    }

    /// Whether a decoded request's `Connection` asks for nothing but the connection kept (absent,
    /// as on HTTP/2, or `keep-alive`): the rule ``RawRequestHead`` applies to the bytes.
    static func keepsConnection(_ fields: HTTPFields) -> Bool {
        fields[values: .connection].allSatisfy { $0.utf8.count == 10 && $0.lowercased() == "keep-alive" }
    }

    /// The refusal of a request over the limits, if it is one.
    static func refusal(urlBytes: Int, headers: HTTPFields) -> (status: HTTPResponse.Status, text: String)? {
        if urlBytes > maximumURLLength { return (.uriTooLong, "414 URI Too Long: links are never this long.\n") }
        if headerBytes(headers) > maximumHeaderBytes { return (.requestHeaderFieldsTooLarge, "431 Request Header Fields Too Large\n") }
        return nil
    }

    /// The size of the header section as sent: each line's name, ": ", value and CRLF.
    static func headerBytes(_ headers: HTTPFields) -> Int {
        headers.reduce(0) { $0 + $1.name.rawName.utf8.count + $1.value.utf8.count + 4 }
    }
}
