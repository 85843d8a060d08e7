import LinkDomainCore
import LinkDomainStorage

/// An email action's page answered on the event loop, when the backend has the link's code at
/// hand without waiting (``AuthBackend/checkCodeWithoutWaiting(_:)``: the embedded backend on
/// SQLite) and it is live: the router's answer for a live code (the form, ``ModeFormWriter``; the
/// landing; the sign-in's redirect), after the router's page-check budget. Everything else goes
/// on to the router, which says why: a code that is not live, the form again after a refused
/// password, a client whose page checks are spent, a peer that is a trusted proxy (the client's
/// address is in a field this path does not read).
///
/// A class: the responder that holds it is copied on the event loop's hot paths, where one
/// reference costs one retain and a struct of these fields cost one for each.
final class ImmediateModeForms: Sendable {
    let writer: ModeFormWriter
    let backend: any AuthBackend
    /// The router's page-check budget (`limits.pageChecks*`), shared.
    let pageChecks: RateLimiter
    let trustedProxies: Set<String>
    /// `checkCode`'s `ok`, found once: finding it by its labels cost each check a hash of both.
    let checkMetrics: BackendCallMetrics

    init(writer: ModeFormWriter, backend: any AuthBackend, pageChecks: RateLimiter, trustedProxies: Set<String>, metrics: LinkMetrics) {
        self.writer = writer
        self.backend = backend
        self.pageChecks = pageChecks
        self.trustedProxies = trustedProxies
        checkMetrics = metrics.backendCallMetrics("checkCode", outcome: "ok")
    }

    /// The link's code as the backend has it at hand, when live; nil sends the request on to the
    /// router. The check's token is taken from the client's budget here, before the read, in one
    /// step: an answer that is then not made here gives it back (``passedOn(_:)``), for the
    /// router's own check to take.
    func check(_ link: ActionLink, query: Substring?, peer: String?) -> (info: CodeInfo, client: String, checked: Duration)? {
        guard let peer, !trustedProxies.contains(peer), !(query.map { QueryString.has(FormRefusal.parameter, in: $0) } ?? false) else { return nil }
        // The key the router's budget counts this client by (IPv6 by its /64).
        let client = ClientKey.of(peer)
        guard pageChecks.take(client) == nil else { return nil }
        let start = ContinuousClock.now
        guard let info = backend.checkCodeWithoutWaiting(link.oobCode) else {
            pageChecks.giveBack(client)
            return nil
        }
        return (info, client, start.duration(to: .now))
    }

    /// The answer was made here: the check counts as the backend's.
    func answered(checked: Duration) {
        checkMetrics.record(checked)
    }

    /// The answer is the router's after all: the token ``check(_:query:peer:)`` took goes back.
    func passedOn(_ client: String) {
        pageChecks.giveBack(client)
    }
}
