import LinkDomainCore
import LinkDomainStorage
import NIOCore

/// One reply of an SMTP server: its code and its lines' text (`250-first`, `250 last`).
package struct SMTPReply: Sendable, Equatable, CustomStringConvertible {
    package let code: Int
    let lines: [String]

    /// 4xx: try again later.
    var isTransient: Bool { (400..<500).contains(code) }

    /// `code text`, on one line, as errors quote it.
    package var description: String { "\(code) " + lines.joined(separator: " ").prefix(300) }
}

/// Why a relay's bytes are not SMTP replies.
struct SMTPProtocolError: Error, CustomStringConvertible {
    let description: String
}

/// Reads a relay's bytes into replies, strictly: three digits, a space or hyphen, text, CRLF (a
/// bare LF is taken too); lines of at most 2,048 bytes and replies of at most 128 lines, so a
/// hostile relay cannot make the sender buffer without limit.
package struct SMTPReplyDecoder: ByteToMessageDecoder {
    package typealias InboundOut = SMTPReply

    package static let maximumLineLength = 2048
    static let maximumLines = 128

    private var pending: [String] = []
    private var pendingCode: Int?

    package mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        guard let newline = buffer.readableBytesView.firstIndex(of: UInt8(ascii: "\n")) else {
            if buffer.readableBytes > Self.maximumLineLength {
                throw SMTPProtocolError(description: "the relay sent a line longer than \(Self.maximumLineLength) bytes")
            }
            return .needMoreData
        }
        let length = newline - buffer.readerIndex
        guard length <= Self.maximumLineLength, var line = buffer.readBytes(length: length) else {
            throw SMTPProtocolError(description: "the relay sent a line longer than \(Self.maximumLineLength) bytes")
        }
        buffer.moveReaderIndex(forwardBy: 1)
        if line.last == UInt8(ascii: "\r") { line.removeLast() }
        if let reply = try Self.accept(line, pending: &pending, pendingCode: &pendingCode) {
            context.fireChannelRead(wrapInboundOut(reply))
        }
        return .continue
    }

    /// Adds one line to the reply being read; returns the reply when this line ends it.
    package static func accept(_ line: [UInt8], pending: inout [String], pendingCode: inout Int?) throws -> SMTPReply? {
        guard line.count >= 3, line.prefix(3).allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }),
            let code = Int(String(decoding: line.prefix(3), as: UTF8.self)), (200..<600).contains(code)
        else { throw SMTPProtocolError(description: "the relay's answer is not SMTP") }
        if let pendingCode, pendingCode != code { throw SMTPProtocolError(description: "the relay changed codes within one reply") }
        let separator = line.count > 3 ? line[3] : UInt8(ascii: " ")
        guard separator == UInt8(ascii: " ") || separator == UInt8(ascii: "-") else { throw SMTPProtocolError(description: "the relay's answer is not SMTP") }
        pending.append(String(decoding: line.dropFirst(4).filter { $0 >= 0x20 && $0 < 0x7F }, as: UTF8.self))
        guard pending.count <= maximumLines else { throw SMTPProtocolError(description: "the relay's reply has more than \(maximumLines) lines") }
        if separator == UInt8(ascii: "-") {
            pendingCode = code
            return nil
        }
        let reply = SMTPReply(code: code, lines: pending)
        pending = []
        pendingCode = nil
        return reply
    }
}

/// Turns a connection idle past the timeout into an error the conversation sees, then closes it.
final class SMTPIdleHandler: ChannelInboundHandler, Sendable {
    typealias InboundIn = SMTPReply
    package typealias InboundOut = SMTPReply

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is IdleStateHandler.IdleStateEvent {
            context.fireErrorCaught(SMTPDeliveryError.timedOut)
            context.close(promise: nil)
        } else {
            context.fireUserInboundEventTriggered(event)
        }
    }
}

/// How a delivery attempt failed, for the queue: later (4xx, network) or never (5xx for this mail).
enum SMTPDeliveryError: Error, Equatable, CustomStringConvertible {
    /// Worth another try: the relay was down, slow, or said 4xx.
    case transient(String)
    /// The relay refused this mail for good (5xx to MAIL, RCPT or DATA).
    case permanent(String)
    case timedOut

    var description: String {
        switch self {
        case .transient(let reason), .permanent(let reason): reason
        case .timedOut: "the relay did not answer in time"
        }
    }
}
