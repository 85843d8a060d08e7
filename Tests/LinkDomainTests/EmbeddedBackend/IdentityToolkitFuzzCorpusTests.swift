import Foundation
import Testing

@testable import LinkDomain
@testable import LinkDomainCore
@testable import LinkDomainStorage
import LinkDomainExercises

@Suite("The Identity Toolkit fuzzer's corpus")
struct IdentityToolkitFuzzCorpusTests {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("FuzzCorpus")

    @Test("every kept input runs through the decoder and the operations without a trap")
    func replay() async throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: Self.directory.path).sorted()
        #expect(names.count >= 20)
        let exercise = try await IdentityToolkitExercise()
        for name in names {
            await exercise.run(Array(try Data(contentsOf: Self.directory.appendingPathComponent(name))))
        }
    }

    @Test("the inputs that stopped the process are refused with the right errors")
    func formerCrashes() throws {
        // `a=b&=`: a pair with an empty name was an index out of range.
        let form = try RequestBodyDecoder.decode(Array("a=b&=&=x&c".utf8), contentType: "application/x-www-form-urlencoded")
        #expect(form.fields == ["a": .string("b"), "c": .string("")])
        #expect(throws: IdentityToolkitError(.invalidValidSince)) {
            try RequestBody(["validSince": .string("9223372036854775807")]).decode(UpdateAccountRequest.self)
                .validSince.within(AccountService.validSinceRange, else: IdentityToolkitError(.invalidValidSince))
        }
        #expect(throws: IdentityToolkitError(.invalidJSON, detail: "the request body nests deeper than 8 levels")) {
            try RequestBodyDecoder.decode(
                Array((String(repeating: "[", count: 5000) + String(repeating: "]", count: 5000)).utf8),
                contentType: "application/json")
        }
    }
}
