import AsyncHTTPClient
import Foundation
import LinkDomainCore
import LinkDomainStorage
import NIOCore
import NIOFoundationEssentialsCompat
import NIOHTTP1

/// One JSON call to an Identity Toolkit endpoint over HTTP: the body out, the typed answer or
/// Google's error (`{"error": {"message": "CODE : detail"}}`) back, failures in ``BackendError``'s terms.
enum IdentityToolkitHTTP {
    static func post<Answer: Decodable>(
        _ url: String, _ body: some Encodable, authorization: String? = nil, client: HTTPClient,
        timeout: TimeAmount
    ) async throws(BackendError) -> Answer {
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        if let authorization { request.headers.add(name: "Authorization", value: authorization) }
        guard let encoded = try? JSONEncoder().encode(body) else { throw .invalidResponse }
        request.body = .bytes(ByteBuffer(data: encoded))
        let status: HTTPResponseStatus
        let buffer: ByteBuffer
        do {
            let response = try await client.execute(request, timeout: timeout)
            status = response.status
            buffer = try await response.body.collect(upTo: 1 << 20)
        } catch let error as HTTPClientError where error == .deadlineExceeded || error == .readTimeout || error == .connectTimeout {
            throw .timedOut
        } catch {
            throw .unreachable
        }
        let data = Data(buffer: buffer)
        if status == .ok {
            guard let answer = try? JSONDecoder().decode(Answer.self, from: data) else { throw .invalidResponse }
            return answer
        }
        guard let refusal = try? JSONDecoder().decode(ErrorAnswer.self, from: data) else { throw .invalidResponse }
        throw .rejected(BackendRefusal(wireMessage: refusal.error.message))
    }

    /// `{"error": {"code": 400, "message": "CODE : detail", ...}}`.
    struct ErrorAnswer: Decodable {
        struct Body: Decodable {
            var message: String
        }

        var error: Body
    }
}
