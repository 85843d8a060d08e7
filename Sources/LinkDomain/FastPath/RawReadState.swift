import LinkDomainCore
import LinkDomainStorage
import NIOCore

/// How ``RawRequestHandler`` reads a connection, decided without a channel: what to do with the
/// bytes that arrive, when to ask for the next read and along which way, and when bytes wait.
///
/// Reads: after a read whose requests were all answered on the event loop, the handler asks for
/// the next one straight from its place at the head of the pipeline, before the channel's
/// automatic read would (NIO's asks only when no read is pending), and the pipeline behind it
/// never hears of the read (going through every handler there and back cost more than the
/// answer, BENCHMARKS.md). After a read that passed something on, the automatic read asks
/// through the whole pipeline, so that NIO's async channel can hold the read back while the
/// router is busy. The automatic read stays on: turning it off per connection cost 2,600
/// instructions of NIO's option setting. While the connection cannot take more output, nothing
/// more is read or answered.
struct RawReadState {
    /// Which way to ask for the next read when one completes.
    enum NextRead: Equatable {
        /// Through the whole pipeline: something was passed on to it.
        case throughPipeline
        /// From the head of the pipeline only.
        case here
    }

    /// Bytes read but not yet handled: an incomplete head, or requests waiting for the connection to drain.
    private(set) var unread: ByteBuffer?
    /// The decoder reads everything from here on.
    private(set) var isPassingThrough = false
    /// A read the pipeline asked for while the connection could not take more output.
    private var heldRead = false
    /// Something was passed on since the last read completed.
    private var passedOnSinceRead = false
    private var started = false
    /// An answer that ends the connection was written: nothing more is read or handled.
    private(set) var isClosing = false
    /// The client is done sending while requests it sent wait for the connection to drain: the
    /// end is held back (from the router's half too) until they are handled.
    private var inputEnded = false

    init() {}

    /// The connection is active: whether to ask for the first read (once).
    mutating func start() -> Bool {
        defer { started = true }
        return !started
    }

    /// Bytes arrived while reading requests: those kept from before go first.
    mutating func prepend(_ bytes: inout ByteBuffer) {
        guard var earlier = unread else { return }
        unread = nil
        earlier.writeBuffer(&bytes)
        bytes = earlier
    }

    /// Bytes that cannot be handled yet wait for more bytes, or for the connection to drain.
    mutating func keep(_ bytes: ByteBuffer) {
        unread = bytes
    }

    /// A request's bytes (or, passing through, the rest) went on to the decoder.
    mutating func passedOn() {
        passedOnSinceRead = true
    }

    /// ``RawRequestHead`` was unsure: the decoder reads the connection from here on.
    mutating func passThroughFromNowOn() {
        isPassingThrough = true
    }

    mutating func readComplete() -> NextRead {
        guard passedOnSinceRead else { return .here }
        passedOnSinceRead = false
        return .throughPipeline
    }

    /// The pipeline asks for a read: whether to read now (else it waits for the connection to drain).
    mutating func readRequested(isWritable: Bool) -> Bool {
        if isClosing { return false }
        if !isWritable { heldRead = true }
        return isWritable
    }

    /// The connection is ending: the request just answered said `Connection: close`, or a close
    /// from behind waits for what was written.
    mutating func close() {
        isClosing = true
        unread = nil
    }

    /// The client is done sending: whether the end takes effect now. Not while requests read
    /// wait for the connection to drain: those are handled first (``endOfInputIsDue(isWritable:)``).
    mutating func endOfInput(isWritable: Bool) -> Bool {
        guard unread != nil, !isWritable else { return true }
        inputEnded = true
        return false
    }

    /// After the requests that waited were handled: whether the input's end, held back, takes
    /// effect now (what is left, if the connection drained, is no whole request).
    mutating func endOfInputIsDue(isWritable: Bool) -> Bool {
        guard inputEnded, !isClosing, unread == nil || isWritable else { return false }
        inputEnded = false
        return true
    }

    /// The connection can take output again: the bytes that waited for it, and whether a held read is due.
    mutating func becameWritable() -> (waiting: ByteBuffer?, read: Bool) {
        let waiting = unread
        unread = nil
        defer { heldRead = false }
        return (waiting, heldRead)
    }

    mutating func closed() {
        unread = nil
        isClosing = true
        inputEnded = false
    }
}
