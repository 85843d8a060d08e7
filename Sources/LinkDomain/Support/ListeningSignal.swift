import Synchronization

/// Set once, when the public port listens; what must not start before that waits for it.
public final class ListeningSignal: Sendable {
    private let state = Mutex<(isSet: Bool, waiting: [CheckedContinuation<Void, Never>])>((false, []))

    public init() {}

    func signal() {
        let waiting = state.withLock { state in
            state.isSet = true
            defer { state.waiting = [] }
            return state.waiting
        }
        for continuation in waiting { continuation.resume() }
    }

    func wait() async {
        await withCheckedContinuation { continuation in
            let resumeNow = state.withLock { state in
                if state.isSet { return true }
                state.waiting.append(continuation)
                return false
            }
            if resumeNow { continuation.resume() }
        }
    }
}
