import Logging
import ServiceLifecycle
import UnixSignals

/// Reloads the certificate on SIGHUP, as certificate renewal tools expect (`systemctl reload`,
/// certbot's deploy hook). A failed reload is logged and the current certificate stays.
struct CertificateReloader: Service {
    let store: CertificateStore
    let logger: Logger

    func run() async throws {
        for await _ in await UnixSignalsSequence(trapping: .sighup).cancelOnGracefulShutdown() {
            do {
                try store.reload()
                logger.notice("TLS certificate reloaded", metadata: ["certificate": .string(store.files.certificatePath)])
            } catch {
                logger.error("TLS certificate not reloaded; the previous one stays in use",
                             metadata: ["certificate": .string(store.files.certificatePath), "error": .string("\(error)")])
            }
        }
    }
}
