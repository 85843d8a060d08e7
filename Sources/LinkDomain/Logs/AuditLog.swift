import LinkDomainCore
import LinkDomainStorage
import Logging

/// One line per change an operator makes (the console, or the link and mail APIs): who, what,
/// which object. Never a password, key, code, link or whole address: `object` is an ID.
enum AuditLog {
    static func record(actor: String, action: String, object: String, logger: Logger) {
        logger.notice("audit", metadata: ["actor": .string(actor), "action": .string(action), "object": .string(object)])
    }
}
