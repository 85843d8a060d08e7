import Foundation
import Hummingbird
import LinkDomainCore
import LinkDomainStorage
import Logging

/// `admin.listen` (docs/design/auth-helper.md, "What a person sees"): a second listener, on
/// loopback or a Unix socket only, serving the embedded backend's API with the Firebase Auth
/// emulator's admin contract (`Authorization: Bearer owner`), so that firebase-admin and the
/// Firebase CLI on the same machine or pod reach a deployment with `FIREBASE_AUTH_EMULATOR_HOST`.
/// The emulator's own powers (listing codes, deleting every account) stay development's.
enum AdminListener {
    static func application(
        _ services: LinkDomainServices, embedded: EmbeddedBackend, address: AdminListenAddress, logger: Logger
    ) -> some ApplicationProtocol {
        let router = Router(context: LinkDomainRequestContext.self, options: .autoGenerateHeadEndpoints)
        router.add(middleware: ResponseFinishingMiddleware<LinkDomainRequestContext>(finisher: LinkDomainApplication.finisher(services)))
        router.add(middleware: ErrorPageMiddleware<LinkDomainRequestContext>(pages: nil))
        // Loopback names only: a page in a browser on this machine cannot reach it under a rebound name.
        router.add(middleware: DevelopmentHostMiddleware<LinkDomainRequestContext>(hosts: DevelopmentHosts(publicHost: "localhost")))
        router.addRoutes(embedded.routes(context: LinkDomainRequestContext.self, ownerIsAdmin: true))
        let bindAddress: BindAddress
        switch address {
        case .tcp(let host, let port):
            bindAddress = .hostname(host, port: port)
        case .unixSocket(let path):
            // A socket left by an earlier run would refuse the bind; anything else at the path is kept.
            if (try? FileManager.default.attributesOfItem(atPath: path)[.type] as? FileAttributeType) == .typeSocket {
                try? FileManager.default.removeItem(atPath: path)
            }
            bindAddress = .unixDomainSocket(path: path)
        }
        return Application(
            router: router, configuration: .init(address: bindAddress, serverName: nil),
            onServerRunning: { _ in
                // Only this service's own user may connect, whatever the process's umask.
                if case .unixSocket(let path) = address { try? FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path) }
            },
            logger: logger)
    }
}
