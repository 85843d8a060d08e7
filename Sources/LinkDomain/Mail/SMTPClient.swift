import Foundation
import LinkDomainCore
import LinkDomainStorage
import NIOCore
import NIOPosix
import NIOSSL

/// One mail ready for the relay: the envelope and the message's bytes.
struct OutgoingMail: Sendable {
    let from: MailAddress
    let to: MailAddress
    /// The whole message, CRLF line ends, as signed.
    let data: String
}

/// A small SMTP client (RFC 5321) on SwiftNIO: one connection per batch, STARTTLS or implicit
/// TLS, AUTH PLAIN or LOGIN, dot-stuffing, a timeout on every step. Each mail's outcome is its
/// own: a 5xx to one recipient does not stop the next mail.
struct SMTPClient: Sendable {
    let relay: SMTPRelay
    /// What EHLO says this client is: the link domain's host.
    let heloName: String
    let timeout: TimeAmount
    let tlsContext: NIOSSLContext
    let group: any EventLoopGroup

    /// - Parameter trustedCertificates: a PEM file of certificate authorities trusted besides the system's (a private relay's).
    init(
        relay: SMTPRelay, heloName: String, timeout: TimeAmount, trustedCertificates: String?, group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton
    ) throws {
        self.relay = relay
        self.heloName = heloName
        self.timeout = timeout
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.minimumTLSVersion = .tlsv12
        if let trustedCertificates { tls.additionalTrustRoots = [.file(trustedCertificates)] }
        tlsContext = try NIOSSLContext(configuration: tls)
        self.group = group
    }

    /// Delivers `mails` in order over one connection; one outcome per mail, in the same order:
    /// nil when the relay accepted it, or why not.
    ///
    /// At `deadline` the connection is closed, whatever it is doing: the mails not yet taken fail
    /// transiently.
    func deliver(_ mails: [OutgoingMail], deadline: NIODeadline? = nil) async -> [SMTPDeliveryError?] {
        var outcomes: [SMTPDeliveryError?] = []
        do {
            let channel = try await connect()
            let cutOff = deadline.map { deadline in
                channel.channel.eventLoop.scheduleTask(deadline: deadline) { channel.channel.close(promise: nil) }
            }
            defer { cutOff?.cancel() }
            try await channel.executeThenClose { inbound, outbound in
                var session = SMTPSession(replies: inbound.makeAsyncIterator(), writer: outbound)
                try await open(&session, channel: channel.channel)
                for mail in mails {
                    outcomes.append(try await session.transfer(mail))
                }
                _ = try? await session.command("QUIT")
            }
        } catch let error as SMTPDeliveryError {
            outcomes += Array(repeating: error, count: mails.count - outcomes.count)
        } catch {
            outcomes += Array(repeating: .transient(Self.describe(error)), count: mails.count - outcomes.count)
        }
        return outcomes
    }

    private func connect() async throws -> NIOAsyncChannel<SMTPReply, ByteBuffer> {
        let tlsContext = tlsContext
        let serverName = relay.hostIsName ? relay.host : nil
        let implicitTLS = relay.security == .implicitTLS
        let timeout = timeout
        return try await ClientBootstrap(group: group)
            .connectTimeout(timeout)
            .connect(host: relay.host, port: relay.port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    let handlers = channel.pipeline.syncOperations
                    if implicitTLS { try handlers.addHandler(NIOSSLClientHandler(context: tlsContext, serverHostname: serverName)) }
                    try handlers.addHandler(IdleStateHandler(readTimeout: timeout))
                    try handlers.addHandler(ByteToMessageHandler(SMTPReplyDecoder()))
                    try handlers.addHandler(SMTPIdleHandler())
                    return try NIOAsyncChannel<SMTPReply, ByteBuffer>(wrappingChannelSynchronously: channel)
                }
            }
    }

    /// Greeting, EHLO, STARTTLS and a second EHLO when `smtp://`, then AUTH when configured.
    private func open(_ session: inout SMTPSession, channel: any Channel) async throws {
        try session.require(try await session.reply(), 220, doing: "greeting")
        var capabilities = try session.require(try await session.command("EHLO \(heloName)"), 250, doing: "EHLO").lines
        if relay.security == .startTLS {
            if capabilities.contains(where: { $0.uppercased() == "STARTTLS" }) {
                try session.require(try await session.command("STARTTLS"), 220, doing: "STARTTLS")
                let tlsContext = tlsContext
                let serverName = relay.hostIsName ? relay.host : nil
                try await channel.eventLoop.submit {
                    try channel.pipeline.syncOperations.addHandler(NIOSSLClientHandler(context: tlsContext, serverHostname: serverName), position: .first)
                }.get()
                capabilities = try session.require(try await session.command("EHLO \(heloName)"), 250, doing: "EHLO after STARTTLS").lines
            } else if !relay.isLoopback {
                throw SMTPDeliveryError.transient("the relay \(relay.host) offers no STARTTLS; mails are never sent in plain text over a network")
            }
        }
        guard let username = relay.username else { return }
        let methods = capabilities.first { $0.uppercased().hasPrefix("AUTH") }?.uppercased().split(separator: " ").map(String.init) ?? []
        let password = relay.password ?? ""
        if methods.contains("PLAIN") || !methods.contains("LOGIN") {
            let token = Data(("\0" + username + "\0" + password).utf8).base64EncodedString()
            try session.require(try await session.command("AUTH PLAIN " + token, quoted: "AUTH PLAIN"), 235, doing: "AUTH PLAIN")
        } else {
            try session.require(try await session.command("AUTH LOGIN"), 334, doing: "AUTH LOGIN")
            try session.require(try await session.command(Data(username.utf8).base64EncodedString(), quoted: "the user name"), 334, doing: "AUTH LOGIN")
            try session.require(try await session.command(Data(password.utf8).base64EncodedString(), quoted: "the password"), 235, doing: "AUTH LOGIN")
        }
    }

    static func describe(_ error: any Error) -> String {
        switch error {
        case let error as SMTPDeliveryError: error.description
        case let error as SMTPProtocolError: error.description
        case let error as NIOSSLError: "TLS with the relay failed: \(error)"
        case let error as BoringSSLError: "TLS with the relay failed: \(error)"
        case let error as NIOConnectionError:
            // The connect attempt's own error says why (refused, unreachable); a failed lookup only when no attempt was made.
            "cannot connect to the relay: \(reason(error.connectionErrors.first?.error ?? error.dnsAError ?? error.dnsAAAAError ?? error))"
        case is ChannelError: "the relay closed the connection"
        default: "\(error)"
        }
    }

    /// An operating-system error as its own words (`Connection refused`), anything else as it describes itself.
    private static func reason(_ error: any Error) -> String {
        guard let error = error as? IOError else { return "\(error)" }
        return String(cString: strerror(error.errnoCode))
    }
}

extension SMTPRelay {
    /// A host name (not an IP address): what TLS's server name and certificate check use.
    var hostIsName: Bool { !host.contains(":") && !host.allSatisfy({ $0.isNumber || $0 == "." }) }
}
