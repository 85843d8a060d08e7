import LinkDomainCore
import LinkDomainStorage
import Logging
import ServiceLifecycle

/// Forgets, in this replica's cache, the short links any replica disabled, enabled or deleted:
/// reads the store's list of changes every `interval`, so no replica serves a deleted link for
/// longer than that. While the server is quiet (``ServerActivity``) it reads nothing, and the
/// cache keeps nothing.
struct ShortLinkChangeWatcher: Service {
    let store: any LinkAdminStore
    let cache: CachedLinkStore
    var interval = Duration.seconds(1)
    var activity = ServerActivity.shared
    let logger: Logger

    /// Changes are read again this far back: PostgreSQL may commit a change after one numbered
    /// later, and forgetting a link twice costs nothing.
    static let overlap: Int64 = 64

    func run() async throws {
        var seen: Int64 = (try? await store.latestShortLinkChange()) ?? 0
        while !Task.isCancelled, !Task.isShuttingDownGracefully {
            if activity.isQuiet {
                // Nothing is watched while the server is quiet, so nothing may stay cached: the
                // cache starts empty, and keeps nothing, until the watch resumes.
                cache.pause()
                await cancelWhenGracefulShutdown { await activity.waitUntilActive() }
                seen = (try? await store.latestShortLinkChange()) ?? seen
                cache.resume()
            }
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: interval) }
            seen = await forgetChanges(after: seen)
        }
    }

    /// Forgets the links changed after `seen` (less the overlap); the latest change read.
    func forgetChanges(after seen: Int64) async -> Int64 {
        do {
            let changes = try await store.shortLinkChanges(after: max(0, seen - Self.overlap), limit: 10_000)
            if !changes.isEmpty { cache.forget(changes.map(\.suffix)) }
            return max(seen, changes.last?.sequence ?? seen)
        } catch {
            // The database probe reports the outage; the next round reads what this one missed.
            logger.debug("short link changes not read", metadata: ["error": .string("\(error)")])
            return seen
        }
    }
}
