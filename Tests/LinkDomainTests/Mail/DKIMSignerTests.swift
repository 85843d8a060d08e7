import Crypto
import CryptoExtras
import Foundation
import Testing

@testable import LinkDomain
@testable import LinkDomainCore
@testable import LinkDomainStorage

@Suite("DKIM: relaxed canonicalization as RFC 6376 gives it, signatures the public key verifies")
struct DKIMSignerTests {
    @Test("RFC 6376 §3.4.5's example, headers and body")
    func rfcExample() {
        let fields = DKIMCanonicalization.headerFields("A: X\r\nB : Y\t\r\n\tZ  ")
        #expect(fields.map { DKIMCanonicalization.relaxedHeader($0.raw) } == ["a:X", "b:Y Z"])
        #expect(DKIMCanonicalization.relaxedBody(" C \r\nD \t E\r\n\r\n\r\n") == " C\r\nD E\r\n")
        #expect(DKIMCanonicalization.relaxedBody("\r\n\r\n") == "")
    }

    static let message = MailMessage(
        sender: MailSender(name: "Example App", address: MailAddress("noreply@example.com")!), recipient: MailAddress("user@example.org")!,
        subject: "Sign in to Example App", text: "Open https://links.example.com/__/auth/action?x=1 \nto sign in.", html: "<p>Open</p>",
        date: 1_795_000_000, messageID: "id@example.com")

    /// The signature's tags, and the data it covers, recomputed the way a verifier does.
    static func verify(_ signed: String, check: (Data, Data) -> Bool) throws {
        let header = try #require(signed.components(separatedBy: "\r\n").first { $0.hasPrefix("DKIM-Signature:") })
        let block = String(signed[..<signed.range(of: "\r\n\r\n")!.lowerBound])
        let fields = DKIMCanonicalization.headerFields(block)
        let signature = try #require(fields.first { $0.name == "dkim-signature" })
        let unfolded = signature.raw.replacingOccurrences(of: "\r\n", with: "").replacingOccurrences(of: "\t", with: " ")
        var tags: [String: String] = [:]
        for part in unfolded.dropFirst("DKIM-Signature:".count).split(separator: ";") {
            let pair = part.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            if pair.count == 2 { tags[pair[0]] = pair[1].replacingOccurrences(of: " ", with: "") }
        }
        #expect(header.hasPrefix("DKIM-Signature: v=1;"))
        #expect(tags["c"] == "relaxed/relaxed" && tags["d"] == "example.com" && tags["s"] == "sel")
        #expect(tags["h"] == "from:to:subject:date:message-id:mime-version:content-type")
        let body = String(signed[signed.range(of: "\r\n\r\n")!.upperBound...])
        #expect(tags["bh"] == Data(SHA256.hash(data: Array(DKIMCanonicalization.relaxedBody(body).utf8))).base64EncodedString())
        var covered = ""
        for name in (tags["h"] ?? "").split(separator: ":") {
            covered += DKIMCanonicalization.relaxedHeader(try #require(fields.last { $0.name == name }).raw) + "\r\n"
        }
        let withoutSignature = signature.raw.replacingOccurrences(of: #"b=[A-Za-z0-9+/=\r\n\t ]+$"#, with: "b=", options: .regularExpression)
        covered += DKIMCanonicalization.relaxedHeader(withoutSignature)
        #expect(check(Data(covered.utf8), try #require(Data(base64Encoded: tags["b"] ?? ""))))
    }

    @Test("rsa-sha256 with a 2048-bit key")
    func rsa() throws {
        let key = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        let signer = DKIMSigner(key: .rsa(key), domain: "example.com", selector: "sel")
        let signed = try signer.sign(Self.message.rendered(), time: 1_795_000_000)
        #expect(signed.contains("a=rsa-sha256") && signed.contains("t=1795000000"))
        try Self.verify(signed) { data, signature in
            key.publicKey.isValidSignature(_RSA.Signing.RSASignature(rawRepresentation: signature), for: data, padding: .insecurePKCS1v1_5)
        }
        #expect(DKIMKey.rsa(key).dnsRecord.hasPrefix("v=DKIM1; k=rsa; p=MII"))
        #expect(signer.dnsName == "sel._domainkey.example.com")
    }

    @Test("ed25519-sha256 (RFC 8463): the SHA-256 of the data is what Ed25519 signs; keys read from openssl's PKCS#8 PEM")
    func ed25519() throws {
        let key = Curve25519.Signing.PrivateKey()
        let der = Data([0x30, 0x2E, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06, 0x03, 0x2B, 0x65, 0x70, 0x04, 0x22, 0x04, 0x20]) + key.rawRepresentation
        let pem = "-----BEGIN PRIVATE KEY-----\n\(der.base64EncodedString())\n-----END PRIVATE KEY-----\n"
        guard case .ed25519(let read) = try DKIMKey(pem: pem) else { Issue.record("not read as Ed25519"); return }
        #expect(read.publicKey.rawRepresentation == key.publicKey.rawRepresentation)
        let signed = try DKIMSigner(key: .ed25519(key), domain: "example.com", selector: "sel").sign(Self.message.rendered(), time: 1)
        #expect(signed.contains("a=ed25519-sha256"))
        try Self.verify(signed) { data, signature in key.publicKey.isValidSignature(signature, for: Data(SHA256.hash(data: data))) }
    }

    @Test("what is not a usable key is refused, saying why")
    func refusals() throws {
        #expect(throws: DKIMKey.Problem.self) { try DKIMKey(pem: "not a key") }
        // An ECDSA key: DKIM knows RSA and Ed25519 only.
        #expect { try DKIMKey(pem: P256.Signing.PrivateKey().pemRepresentation) } throws: {
            ($0 as? DKIMKey.Problem)?.description == "is not a PEM RSA or Ed25519 private key"
        }
    }
}
