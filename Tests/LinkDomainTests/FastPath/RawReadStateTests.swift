import NIOCore
import Testing

@testable import LinkDomain
@testable import LinkDomainCore
@testable import LinkDomainStorage

@Suite("How the byte reader reads a connection, without a channel")
struct RawReadStateTests {
    @Test("reading starts once; a read that answered everything asks again from here, one that passed something on through the pipeline")
    func nextRead() {
        var state = RawReadState()
        let first = state.start(), second = state.start()
        #expect(first && !second)
        #expect(state.readComplete() == .here)
        state.passedOn()
        #expect(state.readComplete() == .throughPipeline)
        #expect(state.readComplete() == .here, "once per read")
    }

    @Test("bytes kept (an incomplete head) come first when more arrive")
    func kept() {
        var state = RawReadState()
        var first = ByteBuffer(string: "GET / HT")
        state.prepend(&first)
        #expect(first == ByteBuffer(string: "GET / HT"), "nothing kept yet")
        state.keep(first)
        var more = ByteBuffer(string: "TP/1.1\r\n\r\n")
        state.prepend(&more)
        #expect(more == ByteBuffer(string: "GET / HTTP/1.1\r\n\r\n"))
        #expect(state.unread == nil)
    }

    @Test("once unsure, the decoder reads the rest, and what passes on makes the next read go through the pipeline")
    func passThrough() {
        var state = RawReadState()
        state.passThroughFromNowOn()
        #expect(state.isPassingThrough)
        state.passedOn()
        #expect(state.readComplete() == .throughPipeline)
    }

    @Test("while the connection takes no output, reads wait; once it drains, the waiting bytes and the held read are due")
    func backPressure() {
        var state = RawReadState()
        let readsNow = state.readRequested(isWritable: true)
        let readsBlocked = state.readRequested(isWritable: false)
        #expect(readsNow && !readsBlocked)
        state.keep(ByteBuffer(string: "GET /a HTTP/1.1\r\n\r\n"))
        let (waiting, read) = state.becameWritable()
        #expect(waiting == ByteBuffer(string: "GET /a HTTP/1.1\r\n\r\n") && read)
        let again = state.becameWritable()
        #expect(again.waiting == nil && !again.read, "each is due once")
    }

    @Test("a closed connection keeps nothing")
    func closed() {
        var state = RawReadState()
        state.keep(ByteBuffer(string: "GET"))
        state.closed()
        #expect(state.unread == nil)
    }

    @Test("the input's end closes at once unless requests wait for the connection to drain; then once they are handled")
    func inputEnds() {
        var nothingKept = RawReadState()
        let closesAtOnce = nothingKept.endOfInput(isWritable: false)
        #expect(closesAtOnce)
        var state = RawReadState()
        state.keep(ByteBuffer(string: "GET / HTTP/1.1\r\n\r\n"))
        let closesWithRequestsWaiting = state.endOfInput(isWritable: false)
        #expect(!closesWithRequestsWaiting, "requests wait for the connection to drain")
        let closesStillWaiting = state.endOfInputIsDue(isWritable: false)
        #expect(!closesStillWaiting)
        _ = state.becameWritable()
        let closesDrained = state.endOfInputIsDue(isWritable: true), closesAgain = state.endOfInputIsDue(isWritable: true)
        #expect(closesDrained && !closesAgain, "once")
    }
}
