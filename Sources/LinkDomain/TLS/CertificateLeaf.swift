import Crypto
import Foundation
import LinkDomainCore
import SwiftASN1
import X509

/// What a certificate chain's leaf says: its validity and names, read with swift-certificates.
struct CertificateLeaf {
    let notBefore: Int64
    let notAfter: Int64
    let names: [String]

    /// Reads the chain's first certificate; with `key` and `names`, refuses a leaf that is not for
    /// that key or does not cover every name.
    static func read(chain pem: String, key: P256.Signing.PrivateKey? = nil, names: [String] = []) throws(ACMEError) -> CertificateLeaf {
        let leaf: Certificate
        do {
            guard let first = try PEMDocument.parseMultiple(pemString: pem).first(where: { $0.discriminator == "CERTIFICATE" }) else {
                throw ACMEError.malformedAnswer("a chain without a certificate")
            }
            leaf = try Certificate(pemEncoded: first.pemString)
        } catch let error as ACMEError {
            throw error
        } catch {
            throw .malformedAnswer("a chain that is not PEM certificates")
        }
        if let key, leaf.publicKey != Certificate.PublicKey(key.publicKey) {
            throw .malformedAnswer("a certificate for another key")
        }
        let covered =
            ((try? leaf.extensions.subjectAlternativeNames) ?? nil).map { names in
                names.compactMap { name -> String? in if case .dnsName(let value) = name { value.lowercased() } else { nil } }
            } ?? []
        if let missing = names.first(where: { !covered.contains($0) }) {
            throw .malformedAnswer("a certificate that does not name \(missing)")
        }
        return CertificateLeaf(
            notBefore: Int64(leaf.notValidBefore.timeIntervalSince1970), notAfter: Int64(leaf.notValidAfter.timeIntervalSince1970), names: covered)
    }
}
