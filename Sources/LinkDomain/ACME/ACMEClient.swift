import AsyncHTTPClient
import Foundation
import LinkDomainCore
import NIOCore
import NIOHTTP1
import NIOSSL

/// Speaks RFC 8555 to one CA: the directory, nonces, and every request signed as a JWS. Each
/// answer is checked (status, size, type) before anything reads it; a `badNonce` is retried with
/// the fresh nonce the CA sent, up to three times.
actor ACMEClient {
    let directoryURL: String
    private let http: HTTPClient
    private let key: ACMEAccountKey
    private var directory: ACMEDirectory?
    private var nonce: String?
    /// The account's URL once it exists; requests are then signed with it as `kid`.
    private(set) var accountURL: String?
    private let allowsLoopbackHTTP: Bool
    static let requestDeadline = TimeAmount.seconds(30)

    init(directoryURL: String, key: ACMEAccountKey, http: HTTPClient) {
        self.directoryURL = directoryURL
        self.key = key
        self.http = http
        allowsLoopbackHTTP = WebAddress(directoryURL)?.scheme == "http"
    }

    /// An HTTP client that also trusts `trustedCertificatesPath`'s CAs (a private CA, Pebble).
    static func makeHTTPClient(trustedCertificatesPath: String?) -> HTTPClient {
        var tls = TLSConfiguration.makeClientConfiguration()
        if let trustedCertificatesPath { tls.additionalTrustRoots = [.file(trustedCertificatesPath)] }
        var configuration = HTTPClient.Configuration(
            tlsConfiguration: tls, redirectConfiguration: .disallow, timeout: .init(connect: .seconds(10), read: .seconds(30)))
        configuration.httpVersion = .http1Only
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }

    struct Answer {
        let status: Int
        let headers: HTTPHeaders
        let body: [UInt8]
        var location: String? { headers.first(name: "location") }
    }

    private func send(_ request: HTTPClientRequest, limit: Int) async throws(ACMEError) -> Answer {
        do {
            let response = try await http.execute(request, timeout: Self.requestDeadline)
            let body = try await response.body.collect(upTo: limit)
            if let fresh = response.headers.first(name: "replay-nonce"), Self.isWellFormedNonce(fresh) { nonce = fresh }
            return Answer(status: Int(response.status.code), headers: response.headers, body: Array(buffer: body))
        } catch let error as NIOTooManyBytesError {
            _ = error
            throw .malformedAnswer("an answer over \(limit) bytes")
        } catch {
            throw .unreachable(String(describing: error).prefix(200).description)
        }
    }

    /// Nonces are base64url (RFC 8555 §6.5.1); anything else is not echoed back.
    static func isWellFormedNonce(_ value: String) -> Bool {
        value.utf8.count <= 256 && Base64URL.isAlphabet(value)
    }

    func loadDirectory() async throws(ACMEError) -> ACMEDirectory {
        if let directory { return directory }
        let answer = try await send(HTTPClientRequest(url: directoryURL), limit: ACMEWire.answerLimit)
        guard answer.status == 200 else { throw Self.problem(answer) }
        var loaded = try ACMEWire.decode(ACMEDirectory.self, from: answer.body)
        loaded.newNonce = try ACMEWire.checkedURL(loaded.newNonce, allowingLoopbackHTTP: allowsLoopbackHTTP)
        loaded.newAccount = try ACMEWire.checkedURL(loaded.newAccount, allowingLoopbackHTTP: allowsLoopbackHTTP)
        loaded.newOrder = try ACMEWire.checkedURL(loaded.newOrder, allowingLoopbackHTTP: allowsLoopbackHTTP)
        directory = loaded
        return loaded
    }

    private func freshNonce() async throws(ACMEError) -> String {
        if let nonce {
            self.nonce = nil
            return nonce
        }
        var request = HTTPClientRequest(url: try await loadDirectory().newNonce)
        request.method = .HEAD
        _ = try await send(request, limit: 0)
        guard let nonce else { throw .malformedAnswer("no Replay-Nonce from newNonce") }
        self.nonce = nil
        return nonce
    }

    /// POSTs a JWS over `payload` (nil: POST-as-GET) to `url`, signed with the JWK or the account.
    func post(_ url: String, payload: [UInt8]?, limit: Int = ACMEWire.answerLimit, accept: String? = nil) async throws(ACMEError) -> Answer {
        let checkedURL = try ACMEWire.checkedURL(url, allowingLoopbackHTTP: allowsLoopbackHTTP)
        for attempt in 1...3 {
            let signer: ACMEAccountKey.Signer = accountURL.map { .account($0) } ?? .jwk
            let body: [UInt8]
            do {
                body = try key.signedBody(url: checkedURL, nonce: try await freshNonce(), payload: payload, signer: signer)
            } catch let error as ACMEError {
                throw error
            } catch {
                throw .malformedAnswer("a request that could not be signed")
            }
            var request = HTTPClientRequest(url: checkedURL)
            request.method = .POST
            request.headers.add(name: "content-type", value: "application/jose+json")
            if let accept { request.headers.add(name: "accept", value: accept) }
            request.body = .bytes(ByteBuffer(bytes: body))
            let answer = try await send(request, limit: limit)
            if (200..<300).contains(answer.status) { return answer }
            let problem = Self.problem(answer)
            if case .problem(let document) = problem, document.isBadNonce, attempt < 3 { continue }
            throw problem
        }
        throw .malformedAnswer("badNonce three times")
    }

    /// POSTs and decodes the JSON answer.
    func post<Value: Decodable>(_ url: String, payload: [UInt8]?, as type: Value.Type) async throws(ACMEError) -> (Value, Answer) {
        let answer = try await post(url, payload: payload)
        return (try ACMEWire.decode(Value.self, from: answer.body), answer)
    }

    /// Creates the account (or finds the one this key already has) and signs with it from then on.
    /// With `externalAccount`, the account is bound to the CA's own account (RFC 8555 §7.3.4);
    /// `existingOnly` asks for the key's account without making one (no binding spent again).
    func register(email: String?, externalAccount: ACMESettings.ExternalAccount? = nil, existingOnly: Bool = false) async throws(ACMEError) -> String {
        let newAccount = try await loadDirectory().newAccount
        var fields: [String] = []
        if existingOnly {
            fields.append(#""onlyReturnExisting":true"#)
        } else {
            let contact = (try? JSONEncoder().encode(email.map { ["mailto:\($0)"] } ?? [])).map { String(decoding: $0, as: UTF8.self) } ?? "[]"
            fields += [#""termsOfServiceAgreed":true"#, #""contact":\#(contact)"#]
            if let externalAccount {
                guard let macKey = Base64URL.decode(externalAccount.macKey),
                    let binding = try? key.externalAccountBinding(keyID: externalAccount.keyID, macKey: Array(macKey), url: newAccount)
                else { throw .orderFailed("the external account binding could not be made") }
                fields.append(#""externalAccountBinding":\#(binding)"#)
            }
        }
        let payload = Array("{\(fields.joined(separator: ","))}".utf8)
        let (account, answer) = try await post(newAccount, payload: payload, as: ACMEAccountObject.self)
        guard account.status == .valid, let location = answer.location else { throw .malformedAnswer("an account that is not valid, or no Location") }
        accountURL = try ACMEWire.checkedURL(location, allowingLoopbackHTTP: allowsLoopbackHTTP)
        return location
    }

    /// Uses an account created before (kept in the store).
    func use(accountURL: String) { self.accountURL = accountURL }

    /// Checks a URL the CA gave against this directory's rules.
    func checked(_ url: String) throws(ACMEError) -> String { try ACMEWire.checkedURL(url, allowingLoopbackHTTP: allowsLoopbackHTTP) }

    static func problem(_ answer: Answer) -> ACMEError {
        if let document = try? ACMEWire.decode(ACMEProblem.self, from: answer.body) {
            var document = document
            document.status = document.status ?? answer.status
            return .problem(document)
        }
        return .problem(ACMEProblem(type: nil, detail: "HTTP \(answer.status)", status: answer.status))
    }

    /// `Retry-After` in seconds, bounded to 1...10 (a CA's hint, not an order to wait an hour).
    static func retryAfter(_ answer: Answer) -> Int {
        answer.headers.first(name: "retry-after").flatMap { Int($0) }.map { min(max($0, 1), 10) } ?? 1
    }
}
