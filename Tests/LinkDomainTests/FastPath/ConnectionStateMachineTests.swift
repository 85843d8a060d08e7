import Testing

@testable import LinkDomain
@testable import LinkDomainCore
@testable import LinkDomainStorage

@Suite("The fast path's connection state, without a channel")
struct ConnectionStateMachineTests {
    typealias Machine = ConnectionStateMachine

    @Test("a request answered here: its head and body are dropped, the answer written at its end")
    func answered() {
        var machine = Machine()
        #expect(machine.head { true } == .drop)
        #expect(machine.isReadingRequest)
        #expect(machine.body() == .drop)
        #expect(machine.end() == .write)
        #expect(machine.passedOn == 0 && !machine.isReadingRequest)
    }

    @Test("a request for the router passes through whole, and counts until its response ends")
    func passedOn() {
        var machine = Machine()
        #expect(machine.head { false } == .forward)
        #expect(machine.body() == .forward)
        #expect(machine.end() == .forward)
        #expect(machine.passedOn == 1)
        #expect(machine.responseEnded() == nil)
        #expect(machine.passedOn == 0)
    }

    @Test("while the router holds a request, later ones go to it too: answers never overtake")
    func pipelined() {
        var machine = Machine()
        _ = machine.head { false }
        _ = machine.end()
        var asked = false
        #expect(
            machine.head {
                asked = true; return true
            } == .forward)
        #expect(!asked, "the fast path is not even asked while a response is outstanding")
        _ = machine.end()
        machine.responseEnded()
        machine.responseEnded()
        #expect(machine.head { true } == .drop)
        #expect(machine.end() == .write)
    }

    @Test("a request the byte reader tried and passed on: counted once, and its decoded head is not tried again")
    func triedFromBytes() {
        var machine = Machine()
        machine.passedOnFromBytes()
        #expect(machine.passedOn == 1)
        var asked = false
        #expect(
            machine.head {
                asked = true; return true
            } == .forward)
        #expect(!asked && machine.passedOn == 1, "one request, one count")
        #expect(machine.end() == .forward)
        machine.responseEnded()
        // The next request, decoded without the byte reader (after bytes it was unsure of), is tried here.
        #expect(machine.head { true } == .drop)
        #expect(machine.end() == .write)
        #expect(machine.passedOn == 0)
    }

    @Test("an Upgrade or CONNECT on an idle connection: refused at once, the connection closing, nothing after it read")
    func refusedAtOnce() {
        var machine = Machine()
        #expect(machine.refuse() == .writeRefusalAndClose)
        #expect(machine.isClosing)
        #expect(machine.body() == .drop)
        #expect(machine.end() == .drop)
        #expect(machine.head { true } == .drop, "nothing after the refusal is served")
        #expect(machine.refuse() == .drop)
    }

    @Test("a refusal behind requests the router holds waits for their responses: answers keep their order")
    func refusalWaitsItsTurn() {
        var machine = Machine()
        _ = machine.head { false }
        _ = machine.end()
        _ = machine.head { false }
        _ = machine.end()
        #expect(machine.refuse() == .drop)
        #expect(machine.responseEnded() == nil)
        #expect(machine.responseEnded() == .writeRefusalAndClose)
        #expect(machine.responseEnded() == nil, "written once")
    }

    @Test("a refused head the byte reader passed on is not left counted")
    func refusalFromBytes() {
        var machine = Machine()
        machine.passedOnFromBytes()
        #expect(machine.refuse() == .writeRefusalAndClose)
        #expect(machine.passedOn == 0)
    }
}
