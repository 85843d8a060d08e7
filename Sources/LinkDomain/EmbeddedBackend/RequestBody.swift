import Foundation
import LinkDomainCore
import LinkDomainStorage

/// A request body as ``RequestBodyDecoder`` let it through: a JSON object (or form) within every
/// limit. Each operation reads its own typed request from it (``decode(_:)``); nothing reads its
/// fields by name.
package struct RequestBody: Sendable {
    let fields: [String: JSONValue]
    /// The checked fields written out once, for every type read from them (the tenant, then the request).
    private let json: Data

    init(_ fields: [String: JSONValue] = [:]) {
        self.fields = fields
        // A JSON value always encodes; the empty object stands in for the impossible failure.
        json = (try? JSONEncoder().encode(JSONValue.object(fields))) ?? Data("{}".utf8)
    }

    /// The body as `Request`, read with Identity Toolkit's leniency (each request's `init(from:)`).
    package func decode<Request: Decodable>(_ type: Request.Type = Request.self) throws(IdentityToolkitError) -> Request {
        do {
            return try JSONDecoder().decode(Request.self, from: json)
        } catch {
            // The requests read every field leniently: only a body that is not an object gets here.
            throw IdentityToolkitError(.invalidJSON, detail: "the request body is not a JSON object")
        }
    }
}
