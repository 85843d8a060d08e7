import Foundation
import Testing

@testable import LinkDomain
@testable import LinkDomainCore
@testable import LinkDomainStorage
import LinkDomainExercises

@Suite("The request-head fuzzer's corpus")
struct RequestHeadFuzzCorpusTests {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("FuzzCorpus")

    @Test("every kept input is read as NIO's decoder reads it, or left to it")
    func replay() throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: Self.directory.path).sorted()
        #expect(names.count >= 6)
        for name in names {
            let bytes = Array(try Data(contentsOf: Self.directory.appendingPathComponent(name)))
            #expect(RequestHeadExercise.run(bytes) == nil, "\(name)")
        }
    }

    @Test("the exercise catches a head NIO's decoder reads differently")
    func catchesDisagreement() throws {
        let bytes = Array("GET /a HTTP/1.1\r\nUser-Agent: x\r\n\r\nGET /b HTTP/1.1\r\n\r\n".utf8)
        guard case .head(let head) = bytes.withUnsafeBytes(RawRequestHead.read) else { throw CancellationError() }
        #expect(RequestHeadExercise.check(head, in: bytes) == nil)
        var wrongTarget = head
        wrongTarget.target = head.target.lowerBound..<(head.target.upperBound + 1)
        #expect(RequestHeadExercise.check(wrongTarget, in: bytes) != nil)
        var tooShort = head
        tooShort.length -= 2
        #expect(RequestHeadExercise.check(tooShort, in: bytes) != nil)
        var tooLong = head
        tooLong.length += 18
        #expect(RequestHeadExercise.check(tooLong, in: bytes) != nil)
        var wrongAgent = head
        wrongAgent.userAgent = head.userAgent.map { $0.lowerBound..<($0.upperBound - 1) }
        #expect(RequestHeadExercise.check(wrongAgent, in: bytes) != nil)
    }
}
