import Crypto
import Foundation
import Testing

@testable import LinkDomainCore

@Suite("ACME's pure parts: the CA's answers, the JWS, the renewal schedule")
struct ACMEProtocolTests {
    @Test("answers decode into checked values; an unknown status, a wrong type or an oversized body is refused")
    func answers() throws {
        let order = try ACMEWire.decode(
            ACMEOrderObject.self,
            from: Array(#"{"status":"ready","identifiers":[{"type":"dns","value":"a.example"}],"authorizations":[],"finalize":"https://ca/f"}"#.utf8))
        #expect(order.status == .ready && order.identifiers == [.dns("a.example")])
        #expect(throws: ACMEError.self) {
            try ACMEWire.decode(ACMEOrderObject.self, from: Array(#"{"status":"odd","identifiers":[],"authorizations":[],"finalize":"x"}"#.utf8))
        }
        #expect(throws: ACMEError.self) { try ACMEWire.decode(ACMEDirectory.self, from: Array(#"{"newNonce":1}"#.utf8)) }
        #expect(throws: ACMEError.self) { try ACMEWire.decode(ACMEProblem.self, from: Array(repeating: 0x20, count: ACMEWire.answerLimit + 1)) }
    }

    @Test("URLs from a CA must be https (http only on loopback when allowed); tokens are base64url")
    func urlsAndTokens() throws {
        #expect(try ACMEWire.checkedURL("https://ca.example/dir", allowingLoopbackHTTP: false) == "https://ca.example/dir")
        #expect(throws: ACMEError.self) { try ACMEWire.checkedURL("http://ca.example/dir", allowingLoopbackHTTP: true) }
        #expect(throws: ACMEError.self) { try ACMEWire.checkedURL("http://127.0.0.1/dir", allowingLoopbackHTTP: false) }
        #expect(try ACMEWire.checkedURL("http://127.0.0.1:4000/dir", allowingLoopbackHTTP: true) == "http://127.0.0.1:4000/dir")
        #expect(ACMEWire.isWellFormedToken("evaGxfADs6pSRb2LAv9IZf17Dt3juxGJ-PCt92wr-oA"))
        #expect(!ACMEWire.isWellFormedToken("../../etc/passwd-aaaaaaaaaaaa"))
        #expect(!ACMEWire.isWellFormedToken("short"))
    }

    @Test("a problem's summary is its type's last part and detail, printable, 200 characters at most")
    func problemSummary() {
        let problem = ACMEProblem(
            type: "urn:ietf:params:acme:error:rateLimited", detail: "too many\u{1B}[31m " + String(repeating: "x", count: 500), status: 429)
        #expect(problem.summary.hasPrefix("rateLimited: too many[31m"))
        #expect(problem.summary.count == 200)
        #expect(ACMEProblem(type: "urn:ietf:params:acme:error:badNonce", detail: nil, status: 400).isBadNonce)
    }

    @Test("the JWK lists crv, kty, x, y in order; the thumbprint is its SHA-256; a JWS verifies with the key")
    func jws() throws {
        let key = ACMEAccountKey()
        let jwk = key.jwk
        #expect(jwk.hasPrefix(#"{"crv":"P-256","kty":"EC","x":""#) && !jwk.contains(" "))
        #expect(key.thumbprint == Base64URL.encode(Array(SHA256.hash(data: Data(jwk.utf8)))))
        #expect(key.keyAuthorization(token: "tok") == "tok.\(key.thumbprint)")
        let body = try key.signedBody(url: "https://ca/new-order", nonce: "n0nce", payload: Array("{}".utf8), signer: .account("https://ca/acct/1"))
        let object = try JSONSerialization.jsonObject(with: Data(body)) as? [String: String] ?? [:]
        let protected = try #require(object["protected"]), payload = try #require(object["payload"]), signature = try #require(object["signature"])
        let header = try JSONSerialization.jsonObject(with: try #require(Base64URL.decode(protected))) as? [String: String]
        #expect(header == ["alg": "ES256", "kid": "https://ca/acct/1", "nonce": "n0nce", "url": "https://ca/new-order"])
        #expect(payload == Base64URL.encode(Array("{}".utf8)))
        let raw = try P256.Signing.ECDSASignature(rawRepresentation: try #require(Base64URL.decode(signature)))
        #expect(key.key.publicKey.isValidSignature(raw, for: Data("\(protected).\(payload)".utf8)))
        let getBody = try key.signedBody(url: "https://ca/x", nonce: "n", payload: nil, signer: .jwk)
        let get = try JSONSerialization.jsonObject(with: Data(getBody)) as? [String: String] ?? [:]
        #expect(get["payload"] == "")
        let getHeader = String(decoding: try #require(Base64URL.decode(get["protected"] ?? "")), as: UTF8.self)
        #expect(getHeader.contains(#""jwk":{"crv":"P-256""#) && !getHeader.contains("kid"))
        #expect(try ACMEAccountKey(pem: key.pem).thumbprint == key.thumbprint)
    }

    @Test("an external account binding is the account's JWK, signed HS256 with the CA's key under its key ID")
    func externalAccountBinding() throws {
        let key = ACMEAccountKey(), macKey = Array(repeating: UInt8(7), count: 32)
        let binding = try key.externalAccountBinding(keyID: "kid-1", macKey: macKey, url: "https://ca/new-account")
        let object = try JSONSerialization.jsonObject(with: Data(binding.utf8)) as? [String: String] ?? [:]
        let protected = try #require(object["protected"]), payload = try #require(object["payload"])
        let header = try JSONSerialization.jsonObject(with: try #require(Base64URL.decode(protected))) as? [String: String]
        #expect(header == ["alg": "HS256", "kid": "kid-1", "url": "https://ca/new-account"])
        #expect(String(decoding: try #require(Base64URL.decode(payload)), as: UTF8.self) == key.jwk)
        let expected = HMAC<SHA256>.authenticationCode(for: Data("\(protected).\(payload)".utf8), using: SymmetricKey(data: macKey))
        #expect(object["signature"] == Base64URL.encode(Array(expected)))
    }

    @Test("renewal at two thirds of the lifetime; retries double from 10 s to an hour; extremes never trap")
    func schedule() {
        #expect(RenewalSchedule.renewalTime(notBefore: 0, notAfter: 90 * 86400) == 60 * 86400)
        #expect(RenewalSchedule.renewalTime(notBefore: 1000, notAfter: 1030) == 1020)
        #expect(RenewalSchedule.renewalTime(notBefore: 500, notAfter: 100) == 500)
        #expect(RenewalSchedule.renewalTime(notBefore: .min, notAfter: .max) == .min)
        #expect(RenewalSchedule.renewalTime(notBefore: 0, notAfter: .max) > 0)
        #expect((0...8).map { RenewalSchedule.retryDelay(afterFailures: $0) } == [0, 10, 20, 40, 80, 160, 320, 640, 1280])
        #expect(RenewalSchedule.retryDelay(afterFailures: 10) == 3600)
        #expect(RenewalSchedule.retryDelay(afterFailures: .max) == 3600)
    }

    @Test("findings: none for a fresh certificate; near expiry, expired, none issued, failing for a day")
    func findings() {
        let day: Int64 = 86400
        #expect(RenewalSchedule.findings(names: ["a.example"], notAfter: 60 * day, failingSince: nil, lastError: nil, now: 0).isEmpty)
        #expect(
            RenewalSchedule.findings(names: ["a.example"], notAfter: 3 * day, failingSince: nil, lastError: nil, now: 0) == [
                "the certificate for a.example expires in 3 days"
            ])
        #expect(
            RenewalSchedule.findings(names: ["a.example"], notAfter: 10, failingSince: nil, lastError: nil, now: 20) == [
                "the certificate for a.example has expired"
            ])
        #expect(
            RenewalSchedule.findings(names: ["a.example"], notAfter: nil, failingSince: nil, lastError: nil, now: 0) == [
                "no certificate has been issued for a.example yet"
            ])
        let failing = RenewalSchedule.findings(
            names: ["a.example"], notAfter: 60 * day, failingSince: 0, lastError: "the CA could not be reached", now: day + 3600)
        #expect(failing == ["renewal has failed for 25 hours (the CA could not be reached)"])
        #expect(RenewalSchedule.findings(names: ["a.example"], notAfter: 60 * day, failingSince: 0, lastError: nil, now: 3600).isEmpty)
        #expect(!RenewalSchedule.findings(names: ["a.example"], notAfter: .min, failingSince: .min, lastError: nil, now: .max).isEmpty)
    }
}
