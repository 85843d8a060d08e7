import LinkDomainCore
import LinkDomainStorage
import Logging

/// What can be done to short links, whoever asks: the link API (`/v1/shortLinks`) and the console
/// both call these, so a change made either way is the same change, with the same audit line.
struct ShortLinkOperations: Sendable {
    let store: any LinkStore
    let admin: any LinkAdminStore
    /// This replica's cache, which forgets a changed link at once (other replicas within a second).
    let cache: CachedLinkStore?
    let clock: any WallClock

    static let collisionsPerLength = 3

    /// Stores the link under its chosen suffix, or a fresh one, trying again on a collision; never
    /// overwriting (a chosen suffix that is taken is refused).
    func create(_ parsed: ShortLinkRequest, actor: String, logger: Logger) async throws(ShortLinkAPIError) -> String {
        let now = clock.nowMilliseconds()
        for attempt in 0..<(Self.collisionsPerLength * 8) {
            let suffix: String
            switch parsed.suffix {
            case .chosen(let chosen): suffix = chosen
            case .generated(.unguessable): suffix = SuffixGenerator.unguessable()
            case .generated(.short): suffix = SuffixGenerator.short(length: 4 + attempt / Self.collisionsPerLength)
            }
            do {
                try await store.insertShortLink(ShortLinkRecord(suffix: suffix, longLinkQuery: parsed.longLinkQuery, createdAt: now, origin: .api))
                AuditLog.record(actor: actor, action: "shortLink.create", object: suffix, logger: logger)
                return suffix
            } catch .duplicate {
                if case .chosen = parsed.suffix { throw .alreadyExists("the suffix \(suffix) is taken: choose another") }
                continue
            } catch {
                logger.error("short link not stored", metadata: ["error": .string("\(error)")])
                throw .unavailable
            }
        }
        throw .unavailable
    }

    /// Points the link at another long link; its suffix, clicks and state stay. Every replica
    /// answers the new target at its next look, as after a disable.
    func update(suffix: String, longLinkQuery: String, actor: String, logger: Logger) async throws(ShortLinkAPIError) {
        let changed = try await reading(logger) { () async throws(StoreError) in
            try await admin.updateShortLink(suffix: suffix, longLinkQuery: longLinkQuery, at: clock.nowMilliseconds())
        }
        guard changed else { throw .notFound("no such short link") }
        cache?.forget([suffix])
        AuditLog.record(actor: actor, action: "shortLink.update", object: suffix, logger: logger)
    }

    func list(_ query: ShortLinkQuery, logger: Logger) async throws(ShortLinkAPIError) -> [ShortLinkListing] {
        try await reading(logger) { () async throws(StoreError) in try await admin.shortLinks(query) }
    }

    func listing(suffix: String, logger: Logger) async throws(ShortLinkAPIError) -> ShortLinkListing {
        guard let found = try await reading(logger, { () async throws(StoreError) in try await admin.shortLinkListing(suffix: suffix) }) else {
            throw .notFound("no such short link")
        }
        return found
    }

    func setDisabled(_ disabled: Bool, suffix: String, actor: String, logger: Logger) async throws(ShortLinkAPIError) {
        let changed = try await reading(logger) { () async throws(StoreError) in
            try await admin.setShortLinkDisabled(suffix: suffix, disabled: disabled, at: clock.nowMilliseconds())
        }
        guard changed else { throw .notFound("no such short link") }
        cache?.forget([suffix])
        AuditLog.record(actor: actor, action: disabled ? "shortLink.disable" : "shortLink.enable", object: suffix, logger: logger)
    }

    func delete(suffix: String, actor: String, logger: Logger) async throws(ShortLinkAPIError) {
        let deleted = try await reading(logger) { () async throws(StoreError) in try await admin.deleteShortLink(suffix: suffix, at: clock.nowMilliseconds()) }
        guard deleted else { throw .notFound("no such short link") }
        cache?.forget([suffix])
        AuditLog.record(actor: actor, action: "shortLink.delete", object: suffix, logger: logger)
    }

    private func reading<T>(_ logger: Logger, _ work: () async throws(StoreError) -> T) async throws(ShortLinkAPIError) -> T {
        do {
            return try await work()
        } catch {
            logger.error("short links not read", metadata: ["error": .string("\(error)")])
            throw .unavailable
        }
    }
}
