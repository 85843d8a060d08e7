/// What the event-loop fast path does with each part of each request on a connection, decided
/// without a channel (tested alone, in the style of async-http-client's connection state machines).
///
/// A request is answered on the event loop only when no earlier request is still with the router
/// (its response would otherwise overtake theirs); its answer is written when its end arrives,
/// and its body, if any, is dropped.
struct ImmediateResponseStateMachine<Answer> {
    enum Action {
        /// Pass the part on to the router.
        case forward
        /// Nothing to do: the part belongs to a request answered here.
        case drop
        /// Write this answer now.
        case write(Answer)
    }

    /// Requests passed on whose responses are not finished.
    private(set) var passedOn = 0
    /// The answer to the request being read, written when its end arrives.
    private var pending: Answer?

    /// A request head: `answer` is asked only when the request may be answered here.
    mutating func head(answer: () -> Answer?) -> Action {
        if passedOn == 0, let answer = answer() {
            pending = answer
            return .drop
        }
        passedOn += 1
        return .forward
    }

    mutating func body() -> Action {
        pending == nil ? .forward : .drop
    }

    mutating func end() -> Action {
        guard let answer = pending else { return .forward }
        pending = nil
        return .write(answer)
    }

    /// The router finished a response to a request passed on.
    mutating func responseEnded() {
        passedOn -= 1
    }
}
