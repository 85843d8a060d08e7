import Foundation
import Testing

@testable import LinkDomain
@testable import LinkDomainCore
@testable import LinkDomainStorage
import LinkDomainCoreExercises
import LinkDomainExercises

@Suite("The fuzzer's corpus")
struct FuzzCorpusTests {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("FuzzCorpus")

    static func inputs() throws -> [(name: String, text: String)] {
        try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted().map { name in
            (name, String(decoding: try Data(contentsOf: directory.appendingPathComponent(name)), as: UTF8.self))
        }
    }

    @Test("every kept input parses and routes without a crash or a refused redirect")
    func replay() throws {
        let inputs = try Self.inputs()
        #expect(inputs.count >= 5)
        for input in inputs {
            #expect(LinkExercise.run(input.text) == nil, "\(input.name)")
        }
    }

    @Test("the exercise does report a redirect the policy refuses")
    func detectsOpenRedirects() {
        #expect(LinkExercise.run("https://x.page.link/?link=https%3A%2F%2Fexample.com%2Fok&ofl=https%3A%2F%2Fevil.example.net%2F&efr=1") == nil)
        // The policy is what the exercise holds redirects to; a host outside it is refused.
        #expect(LinkExercise.policy.allowed("https://evil.example.net/") == nil)
        #expect(LinkExercise.policy.allowed("https://example.com/") != nil)
    }
}
