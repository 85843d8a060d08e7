import LinkDomainCore
import LinkDomainStorage
import Logging
import ServiceLifecycle
import UnixSignals

/// SIGHUP reloads what can be reloaded: the TLS certificate and key, as renewal tools expect
/// (`systemctl reload`, certbot's deploy hook). A failed reload is logged and the current
/// certificate stays. Without TLS the signal is logged and ignored: its default action would end
/// the process, and a `systemctl reload` must never stop a link domain.
struct HangupHandler: Service {
    let certificates: CertificateStore?
    let logger: Logger

    func run() async throws {
        for await _ in await UnixSignalsSequence(trapping: .sighup).cancelOnGracefulShutdown() {
            guard let certificates, let files = certificates.files else {
                logger.notice("SIGHUP: nothing to reload (no TLS certificate files configured)")
                continue
            }
            do {
                try certificates.reload()
                logger.notice("TLS certificate reloaded", metadata: ["certificate": .string(files.certificatePath)])
            } catch {
                logger.error(
                    "TLS certificate not reloaded; the previous one stays in use",
                    metadata: ["certificate": .string(files.certificatePath), "error": .string("\(error)")])
            }
        }
    }
}
