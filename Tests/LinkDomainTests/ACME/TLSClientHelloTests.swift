import Foundation
import Testing

@testable import LinkDomainCore
import LinkDomainCoreExercises

@Suite("The ClientHello reader tls-alpn-01 needs")
struct TLSClientHelloTests {
    /// What `openssl s_client -servername links.example.test -alpn acme-tls/1` sent as its first record.
    static let opensslHello: [UInt8] = hex(
        "16030101500100014c0303cf1761f29e7647f08489ff39b5b63c4a69e00f52df4b6f175041b4357449ff212092f2120a7e18ef1409be1d9a1b39e4a1c8e8a8a0b40a394b8d0b17017f0dc2d0003e130213031301c02cc030009fcca9cca8ccaac02bc02f009ec024c028006bc023c0270067c00ac0140039c009c0130033009d009c003d003c0035002f00ff010000c50000001700150000126c696e6b732e6578616d706c652e74657374000b000403000102000a00160014001d0017001e0019001801000101010201030104002300000010000d000b0a61636d652d746c732f310016000000170000000d002a0028040305030603080708080809080a080b080408050806040105010601030303010302040205020602002b0009080304030303020301002d00020101003300260024001d00205205e2792106de9035a68c8fab7538adf4f6bf76e1b4b61d18f151692fc41a15"
    )

    static func hex(_ text: String) -> [UInt8] {
        var bytes: [UInt8] = []
        var index = text.startIndex
        while index < text.endIndex {
            let next = text.index(index, offsetBy: 2)
            bytes.append(UInt8(text[index..<next], radix: 16) ?? 0)
            index = next
        }
        return bytes
    }

    /// A ClientHello record with the given extensions (type, data), built field by field.
    static func hello(extensions: [(Int, [UInt8])]) -> [UInt8] {
        func length(_ value: Int, _ size: Int) -> [UInt8] { (0..<size).reversed().map { UInt8(truncatingIfNeeded: value >> ($0 * 8)) } }
        let extensionBytes = extensions.flatMap { type, data in length(type, 2) + length(data.count, 2) + data }
        var body: [UInt8] = [3, 3] + Array(repeating: 7, count: 32) + [0] + [0, 2, 0x13, 0x01] + [1, 0]
        body += length(extensionBytes.count, 2) + extensionBytes
        let handshake = [1] + length(body.count, 3) + body
        return [0x16, 3, 1] + length(handshake.count, 2) + handshake
    }

    static func serverName(_ name: String) -> (Int, [UInt8]) {
        let bytes = Array(name.utf8)
        let entry = [0] + [UInt8(bytes.count >> 8), UInt8(bytes.count & 0xFF)] + bytes
        return (0, [UInt8(entry.count >> 8), UInt8(entry.count & 0xFF)] + entry)
    }

    static func protocols(_ names: [String]) -> (Int, [UInt8]) {
        let list = names.flatMap { [UInt8($0.utf8.count)] + Array($0.utf8) }
        return (16, [UInt8(list.count >> 8), UInt8(list.count & 0xFF)] + list)
    }

    @Test("OpenSSL's hello: its server name and its one protocol")
    func openssl() {
        #expect(TLSClientHello.peek(Self.opensslHello) == .hello(TLSClientHello(serverName: "links.example.test", applicationProtocols: ["acme-tls/1"])))
    }

    @Test("a browser's kind of hello: the name lower-cased, every protocol in order")
    func browser() {
        let bytes = Self.hello(extensions: [(23, []), Self.serverName("Links.Example.COM"), Self.protocols(["h2", "http/1.1"])])
        #expect(TLSClientHello.peek(bytes) == .hello(TLSClientHello(serverName: "links.example.com", applicationProtocols: ["h2", "http/1.1"])))
    }

    @Test("every prefix of a hello asks for more; trailing bytes of the next record are left alone")
    func prefixes() {
        for cut in 0..<Self.opensslHello.count {
            #expect(TLSClientHello.peek(Array(Self.opensslHello[..<cut])) == .needMore, "cut at \(cut)")
        }
        #expect(TLSClientHello.peek(Self.opensslHello + [0x17, 3, 3]) != .needMore)
    }

    @Test("not a handshake, an oversized record, lengths past the record, a bad name: passed on, never a trap")
    func other() {
        #expect(TLSClientHello.peek(Array("GET / HTTP/1.1\r\n".utf8)) == .other)
        #expect(TLSClientHello.peek([0x16, 3, 1, 0x40, 0x01] + Array(repeating: 0, count: 16385)) == .other)
        var lying = Self.hello(extensions: [Self.serverName("a.example")])
        lying[lying.count - 12] = 0xFF
        #expect(TLSClientHello.peek(lying) != .needMore)
        let control = Self.hello(extensions: [Self.serverName("a\u{01}b.example")])
        #expect(TLSClientHello.peek(control) == .hello(TLSClientHello(serverName: nil, applicationProtocols: [])))
        let empty = Self.hello(extensions: [Self.protocols([""])])
        #expect(TLSClientHello.peek(empty) == .hello(TLSClientHello(serverName: nil, applicationProtocols: [])))
    }

    @Test("random bytes after a hello's header never trap, and the exercise finds nothing broken")
    func randomBytes() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2000 {
            var bytes = Self.opensslHello
            for _ in 0..<Int.random(in: 1...8, using: &generator) {
                bytes[Int.random(in: 5..<bytes.count, using: &generator)] = UInt8.random(in: 0...255, using: &generator)
            }
            #expect(ACMEExercise.run(bytes) == nil)
        }
    }

    static let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("FuzzCorpus")

    @Test("the ACME fuzzer's corpus replays without a broken promise")
    func replay() throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: Self.corpus.path).sorted()
        #expect(names.count >= 7)
        for name in names {
            #expect(ACMEExercise.run(Array(try Data(contentsOf: Self.corpus.appendingPathComponent(name)))) == nil, "\(name)")
        }
    }
}
