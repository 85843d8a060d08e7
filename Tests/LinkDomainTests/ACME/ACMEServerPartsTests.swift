import Crypto
import Foundation
import Logging
import NIOHTTP1
import NIOSSL
import SwiftASN1
import Testing
import X509
import LinkDomainExercises

@testable import LinkDomain
@testable import LinkDomainCore
@testable import LinkDomainStorage

@Suite("ACME's server parts: configuration, certificates, challenges, the plain port, the store")
struct ACMEServerPartsTests {
    static let base = #"{"publicBaseURL": "https://links.example.com", "pivotBaseURL": "https://pivot.example.com", "server": {"forceDevelopmentMode": true, "#

    @Test("any acme key turns ordering on; names default to the public and pivot hosts; https by default")
    func configuration() throws {
        let configuration = try Fixtures.load(
            #"{"pivotBaseURL": "https://pivot.example.com", "server": {"forceDevelopmentMode": true, "tls": {"acme": {"email": "ops@example.com"}}}, "publicBaseURL": "https://links.example.com"}"#
        )
        let acme = try #require(configuration.server.acme)
        #expect(acme.names == ["links.example.com", "pivot.example.com"])
        #expect(acme.directoryURL == "https://acme-v02.api.letsencrypt.org/directory")
        #expect(acme.challenge == .tlsALPN && configuration.server.terminatesTLS)
        let named = try Fixtures.load(Self.base + #""tls": {"acme": {"names": ["A.example.com"], "challenge": "http-01"}}, "httpPort": 8081}}"#)
        #expect(named.server.acme?.names == ["a.example.com"] && named.server.httpPort == 8081 && named.server.acme?.challenge == .http)
        let defaulted = try Fixtures.load(
            #"{"server": {"host": "127.0.0.1", "forceDevelopmentMode": true, "tls": {"acme": {"names": ["links.example.com"]}}}}"#)
        #expect(defaulted.publicBaseURL.hasPrefix("https://"))
    }

    @Test("what is wrong is named: http-01 without the plain port, files beside ACME, a plain port without TLS, an IP, a bad CA URL")
    func problems() {
        func keys(_ json: String) -> [String] { Fixtures.problems(json).map(\.key) }
        #expect(keys(Self.base + #""tls": {"acme": {"challenge": "http-01"}}}}"#).contains("server.httpPort"))
        #expect(keys(Self.base + #""httpPort": 80}}"#).contains("server.httpPort"))
        #expect(keys(Self.base + #""tls": {"acme": {"names": ["192.168.1.1"]}}}}"#).contains("server.tls.acme.names"))
        #expect(keys(Self.base + #""tls": {"acme": {"directoryURL": "http://ca.example/dir"}}}}"#).contains("server.tls.acme.directoryURL"))
        #expect(keys(Self.base + #""tls": {"acme": {"challenge": "dns-01"}}}}"#).contains("server.tls.acme.challenge"))
        #expect(keys(Self.base + #""tls": {"acme": {"email": "not an address"}}}}"#).contains("server.tls.acme.email"))
        #expect(keys(Self.base + #""tls": {"acme": {"trustedCertificatesPath": "/nonexistent/ca.pem"}}}}"#).contains("server.tls.acme.trustedCertificatesPath"))
        #expect(keys(Self.base + #""tls": {"acme": {"email": "a@b.example"}, "certificatePath": "/nonexistent"}}}"#).contains("server.tls.acme"))
        #expect(keys(Self.base + #""tls": {"acme": {"externalAccountKeyID": "kid-1"}}}}"#).contains("server.tls.acme.externalAccountMacKey"))
        #expect(
            keys(Self.base + #""tls": {"acme": {"externalAccountKeyID": "k", "externalAccountMacKey": "c2hvcnQ"}}}}"#).contains(
                "server.tls.acme.externalAccountMacKey"))
        let problems = Fixtures.problems(Self.base + #""tls": {"acme": {"externalAccountKeyID": "k", "externalAccountMacKey": "c2hvcnQ"}}}}"#)
        #expect(!problems.description.contains("c2hvcnQ"))
    }

    @Test("the plain port: an open challenge's key authorization, 404 for any other token, 308 to https on a known host")
    func plainPort() async {
        let hosts: Set = ["links.example.com", "pivot.example.com"]
        let token = "evaGxfADs6pSRb2LAv9IZf17Dt3juxGJ-PCt92wr-oA"
        func answer(_ target: String, host: String? = "links.example.com", base: String = "https://links.example.com") async -> PlainPortListener.Answer {
            await PlainPortListener.answer(target: target, host: host, hosts: hosts, publicBaseURL: base) { $0 == token ? "\(token).thumb" : nil }
        }
        #expect(await answer("/.well-known/acme-challenge/\(token)") == .keyAuthorization("\(token).thumb"))
        #expect(await answer("/.well-known/acme-challenge/evaGxfADs6pSRb2LAv9IZf17Dt3juxGJ-PCt92wr-oB") == .notFound)
        #expect(await answer("/.well-known/acme-challenge/../../x") == .notFound)
        #expect(await answer("/x?y=1", host: "Pivot.Example.com:80") == .redirect("https://pivot.example.com/x?y=1"))
        #expect(await answer("/x", host: "evil.example") == .redirect("https://links.example.com/x"))
        #expect(await answer("/x", host: nil, base: "https://links.example.com:8443") == .redirect("https://links.example.com:8443/x"))
        #expect(await answer("http://evil.example/", host: "links.example.com") == .redirect("https://links.example.com/"))
    }

    @Test("the CSR names every name and our key; the challenge certificate carries the critical acmeIdentifier")
    func certificates() throws {
        let key = P256.Signing.PrivateKey()
        let der = try CertificateFactory.signingRequest(names: ["a.example.com", "b.example.com"], key: key)
        let request = try CertificateSigningRequest(derEncoded: der)
        #expect(request.publicKey == Certificate.PublicKey(key.publicKey))
        let requested = try #require(try request.attributes.extensionRequest).extensions.subjectAlternativeNames
        #expect(requested.map(Array.init) == [.dnsName("a.example.com"), .dnsName("b.example.com")])
        #expect(request.publicKey.isValidSignature(request.signature, for: request))
        _ = try CertificateFactory.challengeContext(name: "a.example.com", keyAuthorization: "tok.thumb")
    }

    @Test("a chain's leaf is refused when it is for another key or misses a name")
    func leafChecks() throws {
        let key = P256.Signing.PrivateKey()
        let name = try DistinguishedName { CommonName("a.example.com") }
        let certificate = try Certificate(
            version: .v3, serialNumber: .init(), publicKey: .init(key.publicKey), notValidBefore: Date(timeIntervalSince1970: 1000),
            notValidAfter: Date(timeIntervalSince1970: 91000), issuer: name, subject: name, signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions { SubjectAlternativeNames([.dnsName("a.example.com")]) }, issuerPrivateKey: .init(key))
        let pem = try certificate.serializeAsPEM().pemString
        let leaf = try CertificateLeaf.read(chain: pem, key: key, names: ["a.example.com"])
        #expect(leaf.notBefore == 1000 && leaf.notAfter == 91000 && leaf.names == ["a.example.com"])
        #expect(throws: ACMEError.self) { try CertificateLeaf.read(chain: pem, key: P256.Signing.PrivateKey(), names: []) }
        #expect(throws: ACMEError.self) { try CertificateLeaf.read(chain: pem, key: key, names: ["b.example.com"]) }
        #expect(throws: ACMEError.self) { try CertificateLeaf.read(chain: "not pem") }
        let store = try CertificateStore(standInFor: ["a.example.com"])
        #expect(store.served == nil)
        try store.install(IssuedCertificate(names: "a.example.com", chainPEM: pem, keyPEM: key.pemRepresentation, notBefore: 1000, notAfter: 91000))
        #expect(store.served?.notAfter == 91000)
        #expect(throws: (any Error).self) {
            try store.install(
                IssuedCertificate(names: "a.example.com", chainPEM: pem, keyPEM: P256.Signing.PrivateKey().pemRepresentation, notBefore: 0, notAfter: 1))
        }
        #expect(store.served?.notAfter == 91000)
    }

    @Test("a challenge is answered only for exactly acme-tls/1 and an open challenge, here or published by another replica", arguments: StoreKind.available)
    func challengeResponses(kind: StoreKind) async throws {
        try await kind.withStore { base in
            let store = try #require(base as? any ACMEStore)
            let name = "c\(UUID().uuidString.prefix(8).lowercased()).example.com", token = "tok-\(UUID().uuidString)"
            let ordering = ChallengeResponses(shared: store), other = ChallengeResponses(shared: store)
            let hello = TLSClientHello(serverName: name, applicationProtocols: ["acme-tls/1"])
            #expect(await other.sharedContext(for: hello) == nil)
            try await ordering.publish(token: token, name: name.uppercased(), keyAuthorization: "\(token).thumb", kind: .tlsALPN)
            #expect(ordering.localContext(for: hello) != nil && other.localContext(for: hello) == nil)
            #expect(await other.sharedContext(for: hello) != nil)
            #expect(await other.sharedContext(for: TLSClientHello(serverName: name, applicationProtocols: ["h2", "acme-tls/1"])) == nil)
            #expect(await other.sharedContext(for: TLSClientHello(serverName: "x" + name, applicationProtocols: ["acme-tls/1"])) == nil)
            #expect(await other.keyAuthorization(token: token) == "\(token).thumb")
            await ordering.withdraw(token: token, name: name)
            #expect(ordering.localContext(for: hello) == nil)
            #expect(await other.sharedContext(for: hello) == nil)
            #expect(await other.keyAuthorization(token: token) == nil)
            try await ordering.publish(token: token, name: name, keyAuthorization: "\(token).thumb", kind: .http)
            #expect(await ordering.keyAuthorization(token: token) == "\(token).thumb")
            #expect(await other.keyAuthorization(token: token) == "\(token).thumb")
            await ordering.withdraw(token: token, name: name)
            #expect(await other.keyAuthorization(token: token) == nil)
            let expired = ChallengeResponses(shared: store, clock: ManualWallClock(milliseconds: Int64(Date().timeIntervalSince1970 + 3600) * 1000))
            try await ordering.publish(token: token, name: name, keyAuthorization: "k", kind: .http)
            #expect(await expired.keyAuthorization(token: token) == nil)
            await ordering.withdraw(token: token, name: name)
        }
    }

    @Test("the store keeps the account and the certificate; one replica holds the ordering lease at a time", arguments: StoreKind.available)
    func store(kind: StoreKind) async throws {
        try await kind.withStore { base in
            let store = try #require(base as? any ACMEStore)
            let directory = "https://ca-\(UUID().uuidString).example/dir"
            #expect(try await store.acmeAccount(directoryURL: directory) == nil)
            try await store.saveACMEAccount(ACMEAccountRecord(directoryURL: directory, keyPEM: "k1", accountURL: "https://ca/acct/1"))
            try await store.saveACMEAccount(ACMEAccountRecord(directoryURL: directory, keyPEM: "k1", accountURL: "https://ca/acct/2"))
            #expect(try await store.acmeAccount(directoryURL: directory)?.accountURL == "https://ca/acct/2")
            let names = IssuedCertificate.key(["B.example.com", "a.example.com", UUID().uuidString + ".example"])
            try await store.saveIssuedCertificate(IssuedCertificate(names: names, chainPEM: "c1", keyPEM: "k", notBefore: 1, notAfter: 2))
            try await store.saveIssuedCertificate(IssuedCertificate(names: names, chainPEM: "c2", keyPEM: "k", notBefore: 3, notAfter: 4))
            #expect(try await store.issuedCertificate(names: names) == IssuedCertificate(names: names, chainPEM: "c2", keyPEM: "k", notBefore: 3, notAfter: 4))
            let first = "r1-\(UUID().uuidString)", second = "r2-\(UUID().uuidString)"
            let now = Int64(Date().timeIntervalSince1970) + 1_000_000
            #expect(try await store.takeACMELease(holder: first, now: now, until: now + 100))
            #expect(try await !store.takeACMELease(holder: second, now: now + 50, until: now + 150))
            #expect(try await store.takeACMELease(holder: first, now: now + 60, until: now + 160))
            #expect(try await store.takeACMELease(holder: second, now: now + 161, until: now + 200))
            try await store.releaseACMELease(holder: first)
            #expect(try await !store.takeACMELease(holder: first, now: now + 170, until: now + 200))
            try await store.releaseACMELease(holder: second)
            #expect(try await store.takeACMELease(holder: first, now: now + 170, until: now + 200))
            try await store.releaseACMELease(holder: first)
        }
    }

    @Test("doctor reads the certificate's warnings from /readyz; check prints what the store holds")
    func findings() {
        func findings(_ body: String) -> [DoctorFinding] {
            DeploymentDoctor.checkCertificate(readiness: FetchedDocument(status: 200, headers: [:], body: Array(body.utf8), truncated: false))
        }
        #expect(findings("ready\n").isEmpty)
        let warned = findings("ready\nwarning: certificate: the certificate for a.example expires in 3 days\n")
        #expect(warned.map(\.severity) == [.warning] && warned.first?.message == "the certificate for a.example expires in 3 days")
        let missing = findings("not ready: certificate: none issued yet for a.example (ordering)\n")
        #expect(missing.map(\.severity) == [.error] && missing.first?.message == "none issued yet for a.example (ordering)")
        var acme = ACMESettings()
        acme.names = ["a.example"]
        #expect(CertificateCheck.text(acme: acme, issued: nil, now: 0).contains("warning: no certificate has been issued for a.example yet"))
        let issued = IssuedCertificate(names: "a.example", chainPEM: "", keyPEM: "", notBefore: 0, notAfter: 90 * 86400)
        let fresh = CertificateCheck.text(acme: acme, issued: issued, now: 86400)
        #expect(fresh.contains("expires 1970-04-01T00:00:00Z, renewed from 1970-03-02T00:00:00Z") && !fresh.contains("warning"))
        #expect(CertificateCheck.text(acme: acme, issued: issued, now: 85 * 86400).contains("warning: the certificate for a.example expires in 5 days"))
    }
}
