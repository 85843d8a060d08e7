import NIOCore
import Testing

@testable import LinkDomain

@Suite("When the idle clock ends a connection")
struct IdleClockTests {
    static let timeout = TimeAmount.seconds(30)

    static func ledger() -> ConnectionLedger {
        let ledger = ConnectionLedger()
        ledger.timeout = timeout
        ledger.lastActivity = .uptimeNanoseconds(1_000_000_000)
        return ledger
    }

    static let beforeTheTimeout = NIODeadline.uptimeNanoseconds(1_000_000_000) + timeout - .seconds(1)
    static let afterTheTimeout = NIODeadline.uptimeNanoseconds(1_000_000_000) + timeout + .seconds(1)

    @Test("an idle connection ends one timeout after its last activity")
    func idle() {
        let ledger = Self.ledger()
        #expect(!ledger.isExpired(at: Self.beforeTheTimeout))
        #expect(ledger.isExpired(at: Self.afterTheTimeout))
    }

    @Test("a request with the router keeps its connection, unless a close waits for what was written")
    func heldClose() {
        let ledger = Self.ledger()
        ledger.requests.passedOnFromBytes()
        #expect(!ledger.isExpired(at: Self.afterTheTimeout), "the router's work was cut off")
        ledger.closeHeld = true
        #expect(!ledger.isExpired(at: Self.beforeTheTimeout))
        #expect(ledger.isExpired(at: Self.afterTheTimeout), "a close held for a client that reads nothing never ends")
    }

    @Test("output refused for a whole timeout ends the connection, even with a request with the router")
    func stalled() {
        let ledger = Self.ledger()
        ledger.requests.passedOnFromBytes()
        ledger.unwritableSince = .uptimeNanoseconds(1_000_000_000)
        #expect(ledger.isExpired(at: Self.afterTheTimeout))
    }
}
