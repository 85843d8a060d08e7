import AsyncHTTPClient
import Foundation
import LinkDomainCore
import LinkDomainStorage
import Logging
import ServiceLifecycle

/// Keeps the served certificate issued and fresh, with no one watching: installs what any
/// replica stored, orders (under the shared lease, so replicas order once) when none is served or
/// two thirds of its lifetime have passed, retries failures with backoff while the old
/// certificate stays, and looks at the store again every ``lookSeconds``.
struct CertificateRenewer: Service {
    let settings: ACMESettings
    let store: any ACMEStore
    let certificates: CertificateStore
    let responses: ChallengeResponses
    let status: RenewalStatus
    let metrics: LinkMetrics
    let clock: any WallClock
    /// Ordering starts once the public port listens: the CA's check may come at once.
    let listening: ListeningSignal
    let logger: Logger
    /// How often the store is read for a certificate another replica ordered.
    var lookSeconds: Int64 = 30
    /// How long a replica may hold the ordering lease (an order's waits are bounded well below it).
    var leaseSeconds: Int64 = 900
    /// This replica, as the lease names it.
    let holder = UUID().uuidString

    var namesKey: String { IssuedCertificate.key(settings.names) }

    func run() async throws {
        await cancelWhenGracefulShutdown { await listening.wait() }
        let http = ACMEClient.makeHTTPClient(trustedCertificatesPath: settings.trustedCertificatesPath)
        while !Task.isCancelled, !Task.isShuttingDownGracefully {
            // A stop does not wait for an order's polls: the order ends, the lease is given up.
            let wait = await cancelWhenGracefulShutdown { await step(http: http) }
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: .seconds(wait)) }
        }
        try? await http.shutdown()
    }

    /// One look: install what is stored, order when due; the seconds until the next look.
    func step(http: HTTPClient) async -> Int64 {
        await installStored()
        let now = clock.nowSeconds
        if let served = certificates.served {
            let renewAt = RenewalSchedule.renewalTime(notBefore: served.notBefore, notAfter: served.notAfter)
            if now < renewAt { return max(1, min(lookSeconds, renewAt &- now)) }
        }
        let nextAttempt = status.current.nextAttemptAt
        if now < nextAttempt { return max(1, min(lookSeconds, nextAttempt &- now)) }
        let leased: Bool
        do {
            leased = try await store.takeACMELease(holder: holder, now: now, until: now &+ leaseSeconds)
        } catch {
            logger.warning("ACME: the ordering lease could not be read", metadata: ["error": .string("\(error)")])
            return 5
        }
        // Another replica is ordering, or waiting to try again: its certificate will be in the store.
        guard leased else { return 2 }
        let wait = await orderUnderLease(http: http)
        if status.current.failures > 0, !Task.isCancelled {
            // The backoff is every replica's: the lease is kept until the next attempt, so that
            // replicas do not each try again at once (a CA counts failed validations per name).
            _ = try? await store.takeACMELease(holder: holder, now: clock.nowSeconds, until: status.current.nextAttemptAt)
        } else {
            // Given up even when a stop cancelled the order: the next replica need not wait for it to expire.
            await Task { [store, holder] in try? await store.releaseACMELease(holder: holder) }.value
        }
        return wait
    }

    /// Orders, unless the certificate another replica just stored is fresh; the seconds until the next look.
    private func orderUnderLease(http: HTTPClient) async -> Int64 {
        // It may have finished just before the lease was free.
        if await installStored(), let served = certificates.served,
            clock.nowSeconds < RenewalSchedule.renewalTime(notBefore: served.notBefore, notAfter: served.notAfter)
        {
            return 1
        }
        do {
            let issued = try await order(http: http)
            do {
                try await store.saveIssuedCertificate(issued)
            } catch {
                logger.error("ACME: the issued certificate could not be stored; it is served by this replica only", metadata: ["error": .string("\(error)")])
            }
            try install(issued)
            status.succeeded()
            metrics.acmeOrder(issued: true)
            return 1
        } catch {
            if Task.isCancelled { return 0 }
            let failure = error as? ACMEError ?? .orderFailed(String(describing: error).prefix(200).description)
            status.failed(failure, now: clock.nowSeconds)
            metrics.acmeOrder(issued: false)
            logger.error(
                "ACME: the certificate was not issued; the current one stays in use",
                metadata: [
                    "names": .string(settings.names.joined(separator: ",")), "error": .string(failure.description),
                    "retryInSeconds": .stringConvertible(max(0, status.current.nextAttemptAt &- clock.nowSeconds)),
                ])
            return max(1, status.current.nextAttemptAt &- clock.nowSeconds)
        }
    }

    /// Installs the stored certificate when it is newer than the one served; whether it did.
    @discardableResult
    func installStored() async -> Bool {
        guard let stored = try? await store.issuedCertificate(names: namesKey) else { return false }
        if let served = certificates.served, served.notAfter >= stored.notAfter { return false }
        do {
            try install(stored)
            return true
        } catch {
            logger.error("ACME: the stored certificate could not be used", metadata: ["error": .string("\(error)")])
            return false
        }
    }

    private func install(_ issued: IssuedCertificate) throws {
        try certificates.install(issued)
        logger.notice(
            "TLS certificate installed",
            metadata: ["names": .string(issued.names), "notAfter": .string("\(Date(timeIntervalSince1970: TimeInterval(issued.notAfter)))")])
    }

    /// The stored key's account, or nil when the CA does not know it (a CA reset, as Pebble's at each start).
    private func existingAccount(_ client: ACMEClient) async throws(ACMEError) -> String? {
        do {
            return try await client.register(email: nil, existingOnly: true)
        } catch {
            if case .problem(let problem) = error, problem.type == "urn:ietf:params:acme:error:accountDoesNotExist" { return nil }
            throw error
        }
    }

    /// The account (kept per directory; newAccount finds it again for a known key, and makes it
    /// anew, bound again if configured, when the CA no longer knows it), then the order.
    private func order(http: HTTPClient) async throws -> IssuedCertificate {
        let stored = try await store.acmeAccount(directoryURL: settings.directoryURL)
        let key = try stored.map { try ACMEAccountKey(pem: $0.keyPEM) } ?? ACMEAccountKey()
        let client = ACMEClient(directoryURL: settings.directoryURL, key: key, http: http)
        var accountURL = stored == nil ? nil : try await existingAccount(client)
        if accountURL == nil { accountURL = try await client.register(email: settings.email, externalAccount: settings.externalAccount) }
        guard let accountURL else { throw ACMEError.malformedAnswer("no account") }
        if stored?.accountURL != accountURL {
            try await store.saveACMEAccount(ACMEAccountRecord(directoryURL: settings.directoryURL, keyPEM: key.pem, accountURL: accountURL))
        }
        return try await ACMEOrder(client: client, key: key, names: settings.names, challenge: settings.challenge, responses: responses, logger: logger)
            .run()
    }
}
