import LinkDomainCore
import LinkDomainStorage
import NIOCore

/// What the fast path does with each part of each request on a connection, decided without a
/// channel (tested alone, in the style of async-http-client's connection state machines), and the
/// connection's one count of requests with the router.
///
/// A request is answered on the event loop only when no earlier request is still with the router
/// (its response would otherwise overtake theirs); its answer is written when its end arrives,
/// and its body, if any, is dropped. Every handler of the connection reads this one count:
/// ``RawRequestHandler`` before answering from bytes, ``ImmediateResponseHandler`` before
/// answering a decoded head, ``ConnectionTimeoutHandler`` before closing an idle connection.
struct ConnectionStateMachine {
    enum Action: Equatable {
        /// Pass the part on to the router.
        case forward
        /// Nothing to do: the part belongs to a request answered here.
        case drop
        /// Write the answer to the request just read now.
        case write
        /// Write the refusal now and close the connection after it; read nothing more.
        case writeRefusalAndClose
    }

    /// Requests passed on to the router whose responses have not ended.
    private(set) var passedOn = 0
    /// Heads ``RawRequestHandler`` tried to answer, counted and passed on to the decoder: the
    /// decoded head is the router's without being tried again.
    private var headsTriedFromBytes = 0
    /// The request being read is answered here, when its end arrives.
    private var answerPending = false
    /// Between a decoded request's head and its end.
    private(set) var isReadingRequest = false
    /// A request this connection will not serve (an Upgrade or a CONNECT) arrived: the connection
    /// ends with its refusal, and nothing after it is read.
    private(set) var isClosing = false
    /// That refusal waits for the responses to requests passed on before it.
    private var refusalWaiting = false

    init() {}

    /// ``RawRequestHandler`` passes a whole request's bytes on after trying to answer them.
    mutating func passedOnFromBytes() {
        passedOn += 1
        headsTriedFromBytes += 1
    }

    /// A decoded request head: `answer` is asked only when the request may be answered here, and
    /// says whether it is.
    mutating func head(answer: () -> Bool) -> Action {
        isReadingRequest = true
        if isClosing { return .drop }
        if headsTriedFromBytes > 0 {
            headsTriedFromBytes -= 1
            return .forward
        }
        if passedOn == 0, answer() {
            answerPending = true
            return .drop
        }
        passedOn += 1
        return .forward
    }

    mutating func body() -> Action {
        answerPending || isClosing ? .drop : .forward
    }

    mutating func end() -> Action {
        isReadingRequest = false
        if isClosing { return .drop }
        guard answerPending else { return .forward }
        answerPending = false
        return .write
    }

    /// A request head this server refuses to serve, with the connection it came on: the refusal
    /// is written once every earlier response has been (answers keep their order), and then the
    /// connection closes. The head's body, and everything after it, is dropped.
    mutating func refuse() -> Action {
        isReadingRequest = true
        guard !isClosing else { return .drop }
        isClosing = true
        answerPending = false
        if headsTriedFromBytes > 0 {
            // Counted when its bytes were passed on, but never the router's.
            headsTriedFromBytes -= 1
            passedOn = max(0, passedOn - 1)
        }
        if passedOn == 0 { return .writeRefusalAndClose }
        refusalWaiting = true
        return .drop
    }

    /// The router finished a response to a request passed on: a refusal waiting for it is due.
    @discardableResult
    mutating func responseEnded() -> Action? {
        passedOn = max(0, passedOn - 1)
        guard passedOn == 0, refusalWaiting else { return nil }
        refusalWaiting = false
        return .writeRefusalAndClose
    }
}

/// What the handlers of one connection share, on its event loop.
final class ConnectionLedger {
    var requests = ConnectionStateMachine()
    /// When the connection last did something (a request read, an answer written).
    var lastActivity = NIODeadline.now()
    /// The idle clock watching the connection (``watch(_:timeout:)``), its place in the clock's
    /// list, the connection it closes and after how long.
    var clock: IdleClock?
    var slot = -1
    var channel: (any Channel)?
    var timeout = TimeAmount.zero
    /// An HTTP/2 connection's streams open now (each its own requests and clock).
    var openStreams = 0
    /// Since when the connection has taken no more output, if it is refusing it now.
    var unwritableSince: NIODeadline?
    /// The idle clock closed the connection: its close drops what the client did not read.
    var expired = false
    /// A close waits for what was written: no request still with the router (one the close
    /// leaves unanswered, after a `Connection: close`) keeps the idle clock from ending the wait.
    var closeHeld = false

    init() {}

    /// Requests passed on to the router whose responses have not ended.
    var passedOn: Int { requests.passedOn }

    /// A response to a request passed on ended.
    @discardableResult
    func responseEnded() -> ConnectionStateMachine.Action? {
        lastActivity = .now()
        return requests.responseEnded()
    }
}
