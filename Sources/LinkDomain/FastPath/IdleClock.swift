import LinkDomainCore
import LinkDomainStorage
import NIOCore
import NIOPosix

/// The idle timeouts of one event loop's connections, checked by one timer.
///
/// A timer per connection (scheduled when it opens, cancelled when it closes) cost a heap entry,
/// a task and a promise per connection, more than answering a click (BENCHMARKS.md, "A new
/// connection per request"). Here a connection's ledger joins its loop's list (an append) and
/// leaves it (a swap with the last), and one timer, running only while the list is not empty,
/// looks at every ledger each ``interval``. A connection is closed up to ``interval`` after its
/// timeout, and an idle server runs no timer at all. The ticks are also what tells the background
/// work that the server is serving someone (``ServerActivity``).
final class IdleClock {
    /// How often the ledgers are looked at, while there are any.
    static let interval = TimeAmount.milliseconds(250)

    let eventLoop: any EventLoop
    private var watched: [ConnectionLedger] = []
    private var isTicking = false

    private init(eventLoop: any EventLoop) {
        self.eventLoop = eventLoop
    }

    /// The clock of the event loop running now. One thread runs one `SelectableEventLoop`; a
    /// thread that runs several loops (embedded ones, in tests) gets a clock of its own per ledger.
    static func current(for eventLoop: any EventLoop) -> IdleClock {
        if let clock = clocks.currentValue, clock.eventLoop === eventLoop { return clock }
        let clock = IdleClock(eventLoop: eventLoop)
        if clocks.currentValue == nil, MultiThreadedEventLoopGroup.currentEventLoop === eventLoop { clocks.currentValue = clock }
        return clock
    }

    private static let clocks = ThreadSpecificVariable<IdleClock>()

    func watch(_ ledger: ConnectionLedger) {
        ledger.slot = watched.count
        watched.append(ledger)
        if !isTicking {
            ServerActivity.shared.mark()
            tick()
        }
    }

    func stopWatching(_ ledger: ConnectionLedger) {
        let slot = ledger.slot
        guard slot >= 0, slot < watched.count, watched[slot] === ledger else { return }
        let last = watched.removeLast()
        if slot < watched.count {
            watched[slot] = last
            last.slot = slot
        }
        ledger.slot = -1
    }

    private func tick() {
        isTicking = true
        eventLoop.assumeIsolated().scheduleTask(in: Self.interval) { [self] in
            let now = NIODeadline.now()
            // Closing a connection takes its ledger off the list: first find them, then close.
            for ledger in watched.filter({ $0.isExpired(at: now) }) { ledger.expire() }
            isTicking = false
            if !watched.isEmpty {
                ServerActivity.shared.mark()
                tick()
            }
        }
    }
}

/// Only ever used on its event loop's thread (``IdleClock/current(for:)`` keeps one per thread).
extension IdleClock: @unchecked Sendable {}

extension ConnectionLedger {
    /// Starts the idle timeout's clock, once: later calls (a second handler joining) change nothing.
    func watch(_ channel: any Channel, timeout: TimeAmount) {
        guard clock == nil else { return }
        self.channel = channel
        self.timeout = timeout
        let clock = IdleClock.current(for: channel.eventLoop)
        self.clock = clock
        clock.watch(self)
    }

    func stopWatching() {
        clock?.stopWatching(self)
        clock = nil
        channel = nil
    }

    func writabilityChanged(isWritable: Bool) {
        unwritableSince = isWritable ? nil : (unwritableSince ?? .now())
    }

    /// Whether the connection has held its place too long at `now`.
    func isExpired(at now: NIODeadline) -> Bool {
        if let since = unwritableSince, now >= since + timeout {
            // Output stalled for a whole timeout: a client that never reads its answers.
            return true
        }
        // While the router works on a request, its backend timeouts bound the wait; an HTTP/2
        // stream has a clock of its own. A close waiting for what was written waits one timeout.
        if (passedOn > 0 && !requests.isReadingRequest || openStreams > 0) && !closeHeld { return false }
        return now >= lastActivity + timeout
    }

    fileprivate func expire() {
        let channel = self.channel
        stopWatching()
        expired = true
        channel?.close(promise: nil)
    }
}
