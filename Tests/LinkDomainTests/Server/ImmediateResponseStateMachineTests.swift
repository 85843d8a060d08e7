import Testing

@testable import LinkDomain

@Suite("The event-loop fast path's decisions, without a channel")
struct ImmediateResponseStateMachineTests {
    typealias Machine = ImmediateResponseStateMachine<String>

    static func describe(_ action: Machine.Action) -> String {
        switch action {
        case .forward: "forward"
        case .drop: "drop"
        case .write(let answer): "write \(answer)"
        case .writeAndClose(let answer): "write \(answer) and close"
        }
    }

    @Test("a request answered here: its head and body are dropped, the answer written at its end")
    func answered() {
        var machine = Machine()
        #expect(Self.describe(machine.head { "A" }) == "drop")
        #expect(Self.describe(machine.body()) == "drop")
        #expect(Self.describe(machine.end()) == "write A")
        #expect(machine.passedOn == 0)
    }

    @Test("a request for the router passes through whole")
    func passedOn() {
        var machine = Machine()
        #expect(Self.describe(machine.head { nil }) == "forward")
        #expect(Self.describe(machine.body()) == "forward")
        #expect(Self.describe(machine.end()) == "forward")
        #expect(machine.passedOn == 1)
    }

    @Test("while the router holds a request, later ones go to it too: answers never overtake")
    func pipelined() {
        var machine = Machine()
        _ = machine.head { nil }
        _ = machine.end()
        var asked = false
        #expect(Self.describe(machine.head { asked = true; return "B" }) == "forward")
        #expect(!asked, "the fast path is not even asked while a response is outstanding")
        _ = machine.end()
        machine.responseEnded()
        machine.responseEnded()
        #expect(Self.describe(machine.head { "C" }) == "drop")
        #expect(Self.describe(machine.end()) == "write C")
    }

    @Test("an Upgrade or CONNECT on an idle connection: refused at once, the connection closing, nothing after it read")
    func refusedAtOnce() {
        var machine = Machine()
        #expect(Self.describe(machine.refuse("R")) == "write R and close")
        #expect(machine.isClosing)
        #expect(Self.describe(machine.body()) == "drop")
        #expect(Self.describe(machine.end()) == "drop")
        #expect(Self.describe(machine.head { "A" }) == "drop", "nothing after the refusal is served")
        #expect(Self.describe(machine.refuse("again")) == "drop")
    }

    @Test("a refusal behind requests the router holds waits for their responses: answers keep their order")
    func refusalWaitsItsTurn() {
        var machine = Machine()
        _ = machine.head { nil }
        _ = machine.end()
        _ = machine.head { nil }
        _ = machine.end()
        #expect(Self.describe(machine.refuse("R")) == "drop")
        #expect(machine.responseEnded() == nil)
        #expect(machine.responseEnded().map(Self.describe) == "write R and close")
        #expect(machine.responseEnded() == nil, "written once")
    }
}
