import Testing

@testable import LinkDomain

@Suite("Server activity: background work waits while the server is quiet")
struct ServerActivityTests {
    @Test("an active server does not make anyone wait")
    func activeReturnsAtOnce() async {
        let activity = ServerActivity(quietAfter: .seconds(3600))
        #expect(!activity.isQuiet)
        await activity.waitUntilActive()
    }

    @Test("on a quiet server every waiter resumes at the next mark, and none before it")
    func quietWaitsForTheMark() async {
        // Quiet at once: nothing but a mark ends the wait.
        let activity = ServerActivity(quietAfter: .zero)
        let resumed = Counter()
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<3 {
                group.addTask {
                    await activity.waitUntilActive()
                    await resumed.add()
                }
            }
            // Mark until all three have resumed: a waiter that had not yet begun to wait returns at
            // the mark it sees, one already waiting at the mark that finds it.
            while await resumed.value < 3 {
                activity.mark()
                await Task.yield()
            }
        }
        #expect(await resumed.value == 3)
    }

    @Test("a waiter that is cancelled (the service stopping) returns without a mark")
    func cancellationEndsTheWait() async {
        let activity = ServerActivity(quietAfter: .zero)
        let waiter = Task { await activity.waitUntilActive() }
        waiter.cancel()
        await waiter.value
    }

    @Test("a click counted on a quiet server wakes the flush of the clicks")
    func markIfWaiting() async {
        let activity = ServerActivity(quietAfter: .zero)
        let resumed = Counter()
        async let waited: Void = {
            await activity.waitUntilActive()
            await resumed.add()
        }()
        // Nobody to wake until the waiter has begun to wait; then the mark reaches it.
        while await resumed.value == 0 {
            activity.markIfWaiting()
            await Task.yield()
        }
        await waited
    }
}

private actor Counter {
    private(set) var value = 0
    func add() { value += 1 }
}
