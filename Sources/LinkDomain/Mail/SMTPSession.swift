import Foundation
import LinkDomainCore
import LinkDomainStorage
import NIOCore

/// One SMTP conversation in progress: writes a command, reads its reply, and carries one mail
/// through MAIL, RCPT and DATA.
package struct SMTPSession {
    var replies: NIOAsyncChannelInboundStream<SMTPReply>.AsyncIterator
    let writer: NIOAsyncChannelOutboundWriter<ByteBuffer>

    /// The next reply; the connection ending first is a transient failure.
    mutating func reply() async throws -> SMTPReply {
        guard let reply = try await replies.next() else { throw SMTPDeliveryError.transient("the relay closed the connection") }
        return reply
    }

    /// Sends `line` and reads the reply. `quoted` names the command in errors instead of the line
    /// itself, which may hold credentials.
    @discardableResult
    mutating func command(_ line: String, quoted: String? = nil) async throws -> SMTPReply {
        try await writer.write(ByteBuffer(string: line + "\r\n"))
        return try await reply()
    }

    /// `reply` when its code is `expected`; otherwise the failure it means, naming the step.
    /// Setting-up steps fail transiently whatever the code: a refused login or greeting is the
    /// relay's or the configuration's problem, not the mail's, and must not lose it.
    @discardableResult
    func require(_ reply: SMTPReply, _ expected: Int, doing step: String) throws -> SMTPReply {
        guard reply.code == expected else { throw SMTPDeliveryError.transient("the relay answered \(step) with \(reply)") }
        return reply
    }

    /// One mail's transaction. Nil when the relay took it; the relay's refusal when it answered
    /// 4xx or 5xx (the transaction is then reset, and the connection serves the next mail).
    /// Network failures throw: they end the connection for every mail after this one too.
    mutating func transfer(_ mail: OutgoingMail) async throws -> SMTPDeliveryError? {
        let steps: [(command: String?, expected: ClosedRange<Int>, name: String)] = [
            ("MAIL FROM:<\(mail.from.value)>", 250...250, "MAIL FROM"),
            ("RCPT TO:<\(mail.to.value)>", 250...251, "RCPT TO"),
            ("DATA", 354...354, "DATA"),
            (nil, 250...250, "the message"),
        ]
        for step in steps {
            let reply: SMTPReply
            if let command = step.command {
                reply = try await self.command(command)
            } else {
                try await writer.write(ByteBuffer(string: Self.dotStuffed(mail.data)))
                reply = try await self.reply()
            }
            guard step.expected.contains(reply.code) else {
                let reason = "the relay answered \(step.name) with \(reply)"
                // A refusal before the message leaves a transaction open; after it, the transaction is over.
                if step.command != nil { _ = try? await command("RSET") }
                return reply.code >= 500 ? .permanent(reason) : .transient(reason)
            }
        }
        return nil
    }

    /// The message as DATA carries it: CRLF line ends, a dot doubled at the start of a line, and
    /// the closing `.` line.
    package static func dotStuffed(_ message: String) -> String {
        var lines = message.replacingOccurrences(of: "\r\n", with: "\n").split(separator: "\n", omittingEmptySubsequences: false)
        if lines.last == "" { lines.removeLast() }
        var output = ""
        output.reserveCapacity(message.utf8.count + 64)
        for line in lines {
            if line.hasPrefix(".") { output += "." }
            output += line
            output += "\r\n"
        }
        return output + ".\r\n"
    }
}
