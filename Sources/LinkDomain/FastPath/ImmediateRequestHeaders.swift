import HTTPTypes
import LinkDomainCore

extension ImmediateResponder {
    /// The request fields an answer here reads.
    struct RequestHeaders {
        var userAgent: String?
        var platformHint: String?
        var ifNoneMatch: String?
        var acceptLanguage: String?
        /// `Host`, or HTTP/2's `:authority`.
        var host: String?
        /// The visitor, when the caller already knows it from the same bytes (the thread's last,
        /// ``KnownVisitors/lastVisitor(userAgent:platformHint:)``): the two fields are then not made.
        var visitor: Visitor?

        init(
            userAgent: String? = nil, platformHint: String? = nil, ifNoneMatch: String? = nil, acceptLanguage: String? = nil,
            host: String? = nil, visitor: Visitor? = nil
        ) {
            self.userAgent = userAgent
            self.platformHint = platformHint
            self.ifNoneMatch = ifNoneMatch
            self.acceptLanguage = acceptLanguage
            self.host = host
            self.visitor = visitor
        }

        init(_ fields: HTTPFields, authority: String? = nil) {
            self.init(
                userAgent: Self.value(.userAgent, in: fields), platformHint: Self.value(.secCHUAPlatform, in: fields),
                ifNoneMatch: Self.value(.ifNoneMatch, in: fields), acceptLanguage: Self.value(.acceptLanguage, in: fields),
                host: authority)
        }

        /// `fields[name]`, without its generic join (4,600 instructions of an HTTP/2 request) when
        /// the field comes once, as it almost always does.
        private static func value(_ name: HTTPField.Name, in fields: HTTPFields) -> String? {
            let found = fields[fields: name]
            return found.count > 1 ? fields[name] : found.first?.value
        }
    }
}
