import Hummingbird
import LinkDomainCore
import Logging
import NIOCore

/// `server.httpPort`: the plain HTTP port beside the TLS one. It answers ACME's http-01
/// challenges while an order is open and sends every other request to the same path on
/// `https://` (308, so a form's method and body survive); nothing else is served in plain text.
enum PlainPortListener {
    static let challengePrefix = "/.well-known/acme-challenge/"

    /// What a request on the plain port gets.
    enum Answer: Equatable {
        case keyAuthorization(String)
        case notFound
        case redirect(String)
    }

    /// Decides from the request target and `Host`: a challenge's token, or where on `https://` the request goes.
    /// `hosts` are the names this server has a certificate for; any other `Host` is sent to `publicBaseURL`'s.
    static func answer(
        target: String, host: String?, hosts: Set<String>, publicBaseURL: String, keyAuthorization: (String) async -> String?
    ) async -> Answer {
        let path = target.hasPrefix("/") && target.utf8.count <= 8192 ? target : "/"
        if path.hasPrefix(challengePrefix) {
            let token = String(path.dropFirst(challengePrefix.count))
            guard ACMEWire.isWellFormedToken(token), let answer = await keyAuthorization(token) else { return .notFound }
            return .keyAuthorization(answer)
        }
        let base = WebAddress(publicBaseURL)
        let asked = host.map { $0.split(separator: ":", maxSplits: 1).first.map(String.init)?.lowercased() ?? "" }
        let chosen = asked.flatMap { hosts.contains($0) ? $0 : nil } ?? base?.host ?? "localhost"
        let port = base?.port.map { $0 == 443 ? "" : ":\($0)" } ?? ""
        return .redirect("https://\(chosen)\(port)\(path)")
    }

    static func application(
        configuration: LinkDomainConfiguration, port: Int, responses: ChallengeResponses?, logger: Logger
    ) -> some ApplicationProtocol {
        let hosts = Set((configuration.server.acme?.names ?? []) + configuration.serviceHosts)
        let publicBaseURL = configuration.publicBaseURL
        let responder = CallbackResponder<BasicRequestContext> { request, _ in
            let answer = await answer(
                target: request.head.path ?? "/", host: request.head.authority, hosts: hosts, publicBaseURL: publicBaseURL,
                keyAuthorization: { await responses?.keyAuthorization(token: $0) })
            switch answer {
            case .keyAuthorization(let text):
                return Response(
                    status: .ok, headers: [.contentType: "text/plain", .cacheControl: "no-store"], body: .init(byteBuffer: ByteBuffer(string: text)))
            case .notFound:
                return Response(
                    status: .notFound, headers: [.contentType: "text/plain", .cacheControl: "no-store"],
                    body: .init(byteBuffer: ByteBuffer(string: "not found\n")))
            case .redirect(let location):
                return Response(status: .permanentRedirect, headers: [.location: location, .contentLength: "0"])
            }
        }
        return Application(
            responder: responder, configuration: .init(address: .hostname(configuration.server.host, port: port), serverName: nil),
            logger: logger)
    }
}
