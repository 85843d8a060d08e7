import LinkDomainCore

/// Takes arbitrary bytes through what meets the network when certificates are ordered: a TLS
/// connection's first record as the tls-alpn-01 reader sees it (and every shorter prefix of it), and
/// a CA's answer decoded as each RFC 8555 object. The fuzzer (`Fuzz/`) calls it with generated
/// input, the tests with its corpus.
///
/// Returns the first broken promise: a prefix of a complete hello read as something else than
/// "need more", a server name that is not printable ASCII, or an unprintable problem summary.
public enum ACMEExercise {
    public static func run(_ bytes: [UInt8]) -> String? {
        let peeked = TLSClientHello.peek(bytes)
        if case .hello(let hello) = peeked {
            if let name = hello.serverName, !name.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) || name.utf8.count > 253 {
                return "a server name that is not printable ASCII: \(Array(name.utf8))"
            }
            // Every prefix of the record it was read from is incomplete, never a different answer.
            let recordLength = 5 + (Int(bytes[3]) << 8 | Int(bytes[4]))
            for cut in stride(from: 0, to: recordLength, by: max(1, recordLength / 64)) where TLSClientHello.peek(Array(bytes[..<cut])) != .needMore {
                return "the first \(cut) bytes of a hello were not 'need more'"
            }
        }
        if let problem = try? ACMEWire.decode(ACMEProblem.self, from: bytes) {
            let summary = problem.summary
            if summary.unicodeScalars.count > 200 || !summary.unicodeScalars.allSatisfy({ (0x20...0x7E).contains($0.value) }) {
                return "a problem summary that is not short printable text"
            }
        }
        _ = try? ACMEWire.decode(ACMEOrderObject.self, from: bytes)
        _ = try? ACMEWire.decode(ACMEAuthorizationObject.self, from: bytes)
        _ = try? ACMEWire.decode(ACMEDirectory.self, from: bytes)
        if let token = String(validating: bytes, as: UTF8.self), ACMEWire.isWellFormedToken(token), token.contains("/") {
            return "a token with a slash"
        }
        return nil
    }
}
