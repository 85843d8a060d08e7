/// The server name and the application protocols a TLS ClientHello offers, read from the
/// connection's first record before the TLS library sees it, so that an ACME CA's tls-alpn-01
/// check (RFC 8737) can be given its own certificate.
///
/// Bounded: one record of at most 16 KiB, and every length is checked against what is left; a
/// hello split over several records, or anything else, is "not one to divert" and goes to the TLS
/// library as it came.
public struct TLSClientHello: Sendable, Equatable {
    public var serverName: String?
    public var applicationProtocols: [String]

    /// What the bytes so far say.
    public enum Peek: Sendable, Equatable {
        /// The first record is not complete yet.
        case needMore
        case hello(TLSClientHello)
        /// Not a ClientHello this reader takes apart: pass it on.
        case other
    }

    /// A TLS record's header, then at most 2^14 bytes of fragment (RFC 8446 §5.1).
    public static let largestRecord = 5 + 16384

    public static func peek(_ bytes: [UInt8]) -> Peek {
        guard let first = bytes.first else { return .needMore }
        guard first == 0x16 else { return .other }
        guard bytes.count >= 5 else { return .needMore }
        let length = Int(bytes[3]) << 8 | Int(bytes[4])
        guard length <= 16384 else { return .other }
        guard bytes.count >= 5 + length else { return .needMore }
        var reader = Reader(bytes: bytes, position: 5, end: 5 + length)
        return reader.clientHello().map(Peek.hello) ?? .other
    }

    /// A cursor that refuses to read past `end`.
    struct Reader {
        let bytes: [UInt8]
        var position: Int
        var end: Int

        mutating func byte() -> Int? {
            guard position < end else { return nil }
            defer { position += 1 }
            return Int(bytes[position])
        }

        mutating func integer(_ size: Int) -> Int? {
            var value = 0
            for _ in 0..<size {
                guard let next = byte() else { return nil }
                value = value << 8 | next
            }
            return value
        }

        /// A reader over the next `length` bytes, which this one skips.
        mutating func slice(_ length: Int) -> Reader? {
            guard length >= 0, length <= end - position else { return nil }
            defer { position += length }
            return Reader(bytes: bytes, position: position, end: position + length)
        }

        mutating func vector(lengthSize: Int) -> Reader? {
            integer(lengthSize).flatMap { slice($0) }
        }

        var isAtEnd: Bool { position == end }

        var rest: ArraySlice<UInt8> { bytes[position..<end] }

        mutating func clientHello() -> TLSClientHello? {
            // Handshake type 1, and the whole message in this record.
            guard byte() == 1, let length = integer(3), var body = slice(length) else { return nil }
            guard body.slice(2 + 32) != nil, body.vector(lengthSize: 1) != nil, body.vector(lengthSize: 2) != nil,
                body.vector(lengthSize: 1) != nil
            else { return nil }
            var hello = TLSClientHello(serverName: nil, applicationProtocols: [])
            guard !body.isAtEnd else { return hello }
            guard var extensions = body.vector(lengthSize: 2) else { return nil }
            while !extensions.isAtEnd {
                guard let type = extensions.integer(2), var data = extensions.vector(lengthSize: 2) else { return nil }
                switch type {
                case 0: hello.serverName = data.serverName()
                case 16: hello.applicationProtocols = data.protocols() ?? []
                default: break
                }
            }
            return hello
        }

        /// server_name (RFC 6066 §3): the first host_name entry, ASCII.
        mutating func serverName() -> String? {
            guard var list = vector(lengthSize: 2) else { return nil }
            while !list.isAtEnd {
                guard let kind = list.byte(), let name = list.vector(lengthSize: 2) else { return nil }
                if kind == 0 {
                    let bytes = name.rest
                    guard (1...253).contains(bytes.count), bytes.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else { return nil }
                    return String(decoding: bytes, as: UTF8.self).lowercased()
                }
            }
            return nil
        }

        /// application_layer_protocol_negotiation (RFC 7301 §3.1).
        mutating func protocols() -> [String]? {
            guard var list = vector(lengthSize: 2) else { return nil }
            var protocols: [String] = []
            while !list.isAtEnd {
                guard let name = list.vector(lengthSize: 1), !name.isAtEnd else { return nil }
                protocols.append(String(decoding: name.rest, as: UTF8.self))
            }
            return protocols
        }
    }
}
