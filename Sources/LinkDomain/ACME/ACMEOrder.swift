import Crypto
import Foundation
import LinkDomainCore
import Logging

/// One certificate ordered end to end (RFC 8555 §7.4): the order, each name's authorization
/// proven by the configured challenge, the CSR, the wait for issuance, the chain. Every step's
/// answer is checked; waits are bounded in number and time.
struct ACMEOrder {
    let client: ACMEClient
    let key: ACMEAccountKey
    let names: [String]
    let challenge: ACMEChallengeKind
    let responses: ChallengeResponses
    let logger: Logger
    /// How many times an authorization or the order is looked at before giving up (with waits of 1 to 10 s).
    var pollLimit = 60

    /// The steps an order goes through, as the log says them.
    enum Step: String {
        case ordering, proving, finalizing, downloading
    }

    func run() async throws(ACMEError) -> IssuedCertificate {
        let identifiers = names.map(ACMEIdentifier.dns)
        let payload = (try? JSONEncoder().encode(["identifiers": identifiers])).map(Array.init) ?? []
        let directory = try await client.loadDirectory()
        logger.info("ACME: ordering a certificate", metadata: ["names": .string(names.joined(separator: ","))])
        let (created, answer) = try await client.post(directory.newOrder, payload: payload, as: ACMEOrderObject.self)
        guard let orderURL = answer.location else { throw .malformedAnswer("an order without a Location") }
        let orderLocation = try await client.checked(orderURL)
        guard Set(created.identifiers.map { $0.value.lowercased() }) == Set(names) else { throw .malformedAnswer("an order for other names") }
        for authorization in created.authorizations {
            try await prove(try await client.checked(authorization))
        }
        var order = try await wait(for: orderLocation, until: [.ready, .valid], from: created)
        let certificateKey = P256.Signing.PrivateKey()
        if order.status == .ready {
            let csr: [UInt8]
            do {
                csr = try CertificateFactory.signingRequest(names: names, key: certificateKey)
            } catch {
                throw .orderFailed("the certificate request could not be made")
            }
            let finalize = Array(#"{"csr":"\#(Base64URL.encode(csr))"}"#.utf8)
            let (finalized, _) = try await client.post(try await client.checked(order.finalize), payload: finalize, as: ACMEOrderObject.self)
            order = try await wait(for: orderLocation, until: [.valid], from: finalized)
        }
        guard let certificateURL = order.certificate else { throw .malformedAnswer("a valid order without a certificate") }
        let chainAnswer = try await client.post(
            try await client.checked(certificateURL), payload: nil, limit: ACMEWire.chainLimit, accept: "application/pem-certificate-chain")
        let chain = String(decoding: chainAnswer.body, as: UTF8.self)
        let leaf = try CertificateLeaf.read(chain: chain, key: certificateKey, names: names)
        logger.notice(
            "ACME: certificate issued",
            metadata: ["names": .string(names.joined(separator: ",")), "notAfter": .string("\(Date(timeIntervalSince1970: TimeInterval(leaf.notAfter)))")])
        return IssuedCertificate(
            names: IssuedCertificate.key(names), chainPEM: chain, keyPEM: certificateKey.pemRepresentation, notBefore: leaf.notBefore,
            notAfter: leaf.notAfter)
    }

    /// Proves one name: answers its challenge, tells the CA, waits for its verdict.
    private func prove(_ url: String) async throws(ACMEError) {
        let (authorization, _) = try await client.post(url, payload: nil, as: ACMEAuthorizationObject.self)
        switch authorization.status {
        case .valid: return
        case .pending: break
        default: throw .orderFailed("the authorization for \(authorization.identifier.value) is \(authorization.status.rawValue)")
        }
        let name = authorization.identifier.value.lowercased()
        guard authorization.identifier.type == "dns", names.contains(name) else { throw .malformedAnswer("an authorization for another name") }
        guard let offered = authorization.challenges.first(where: { $0.type == challenge.rawValue }), let token = offered.token,
            ACMEWire.isWellFormedToken(token)
        else { throw .orderFailed("the CA offers no \(challenge.rawValue) challenge for \(name)") }
        do {
            try await responses.publish(token: token, name: name, keyAuthorization: key.keyAuthorization(token: token), kind: challenge)
        } catch {
            await responses.withdraw(token: token, name: name)
            throw .orderFailed("the \(challenge.rawValue) answer could not be prepared or shared with the other replicas")
        }
        do {
            try await waitForVerdict(authorization: url, challenge: offered.url, name: name)
            await responses.withdraw(token: token, name: name)
        } catch {
            await responses.withdraw(token: token, name: name)
            throw error
        }
    }

    /// Tells the CA the challenge is ready and waits for its verdict on the authorization.
    private func waitForVerdict(authorization url: String, challenge challengeURL: String, name: String) async throws(ACMEError) {
        _ = try await client.post(try await client.checked(challengeURL), payload: Array("{}".utf8))
        for _ in 0..<pollLimit {
            let (current, answer) = try await client.post(url, payload: nil, as: ACMEAuthorizationObject.self)
            switch current.status {
            case .valid: return
            case .pending: try await pause(ACMEClient.retryAfter(answer))
            default:
                let reason = current.challenges.first(where: { $0.type == challenge.rawValue })?.error?.summary ?? current.status.rawValue
                throw .orderFailed("\(name) was not proven: \(reason)")
            }
        }
        throw .orderFailed("\(name) was still not proven after \(pollLimit) looks")
    }

    /// Looks at the order until it reaches one of `statuses`; `invalid` ends it.
    private func wait(for url: String, until statuses: Set<ACMEStatus>, from first: ACMEOrderObject) async throws(ACMEError) -> ACMEOrderObject {
        var order = first
        for _ in 0..<pollLimit {
            if statuses.contains(order.status) { return order }
            guard order.status == .pending || order.status == .processing || order.status == .ready else {
                throw .orderFailed("the order is \(order.status.rawValue)\(order.error.map { ": \($0.summary)" } ?? "")")
            }
            try await pause(1)
            order = try await client.post(url, payload: nil, as: ACMEOrderObject.self).0
        }
        throw .orderFailed("the order was still \(order.status.rawValue) after \(pollLimit) looks")
    }

    private func pause(_ seconds: Int) async throws(ACMEError) {
        do {
            try await Task.sleep(for: .seconds(seconds))
        } catch {
            throw .unreachable("stopped")
        }
    }
}
