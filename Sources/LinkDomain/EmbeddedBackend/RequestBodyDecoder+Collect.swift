import Hummingbird
import LinkDomainCore
import LinkDomainStorage
import NIOCore

extension RequestBodyDecoder {
    /// The answer to a body that ended before its announced length: the client cut its upload or
    /// went away. Its doing, not ours: answered (if anyone still listens) and never logged as a failure.
    static let incompleteBody = IdentityToolkitError(.invalidArgument, detail: "the request body ended before its announced length")

    /// The whole body of `request`, up to `limit` bytes, or the Identity Toolkit error for a body
    /// that is too large or incomplete.
    static func collect(_ request: Request, upTo limit: Int) async throws(IdentityToolkitError) -> ByteBuffer {
        do {
            return try await request.body.collect(upTo: limit)
        } catch is NIOTooManyBytesError {
            throw bodyTooLarge
        } catch {
            throw incompleteBody
        }
    }
}
