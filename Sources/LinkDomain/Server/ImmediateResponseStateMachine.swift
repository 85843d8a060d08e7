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
        /// Write this answer now and close the connection after it; read nothing more.
        case writeAndClose(Answer)
    }

    /// Requests passed on whose responses are not finished.
    private(set) var passedOn = 0
    /// The answer to the request being read, written when its end arrives.
    private var pending: Answer?
    /// A request this connection will not serve (an Upgrade or a CONNECT) arrived: the connection
    /// ends with its refusal, and nothing after it is read.
    private(set) var isClosing = false
    /// That refusal, while responses to requests passed on before it are still to come.
    private var refusalWaiting: Answer?

    /// A request head: `answer` is asked only when the request may be answered here.
    mutating func head(answer: () -> Answer?) -> Action {
        if isClosing { return .drop }
        if passedOn == 0, let answer = answer() {
            pending = answer
            return .drop
        }
        passedOn += 1
        return .forward
    }

    mutating func body() -> Action {
        pending == nil && !isClosing ? .forward : .drop
    }

    mutating func end() -> Action {
        if isClosing { return .drop }
        guard let answer = pending else { return .forward }
        pending = nil
        return .write(answer)
    }

    /// A request head this server refuses to serve, with the connection it came on: the refusal
    /// is written once every earlier response has been (answers keep their order), and then the
    /// connection closes. The head's body, and everything after it, is dropped.
    mutating func refuse(_ refusal: Answer) -> Action {
        guard !isClosing else { return .drop }
        isClosing = true
        pending = nil
        if passedOn == 0 { return .writeAndClose(refusal) }
        refusalWaiting = refusal
        return .drop
    }

    /// The router finished a response to a request passed on: a refusal waiting for it is due.
    @discardableResult
    mutating func responseEnded() -> Action? {
        passedOn = max(0, passedOn - 1)
        guard passedOn == 0, let refusal = refusalWaiting else { return nil }
        refusalWaiting = nil
        return .writeAndClose(refusal)
    }
}
