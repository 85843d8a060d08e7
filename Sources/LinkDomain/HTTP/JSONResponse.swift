import Foundation
import Hummingbird
import LinkDomainCore
import LinkDomainStorage
import NIOFoundationEssentialsCompat

extension Response {
    /// A JSON API answer: never cached, slashes written plainly (URLs read as they are).
    static func json(_ value: some Encodable, status: HTTPResponse.Status = .ok) -> Response {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .withoutEscapingSlashes
        // The answers are plain structs of strings, numbers, booleans and lists: encoding them cannot fail.
        let data = (try? encoder.encode(value)) ?? Data("{}".utf8)
        return Response(
            status: status, headers: [.contentType: "application/json; charset=utf-8", .cacheControl: "no-store"],
            body: .init(byteBuffer: ByteBuffer(data: data)))
    }
}
