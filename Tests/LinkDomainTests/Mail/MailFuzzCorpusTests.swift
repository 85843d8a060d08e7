import Foundation
import Testing

@testable import LinkDomain
@testable import LinkDomainCore
@testable import LinkDomainStorage
import LinkDomainExercises

@Suite("The mail fuzzer's corpus")
struct MailFuzzCorpusTests {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("FuzzCorpus")

    @Test("every kept input goes through the mail exercise without a crash or a broken promise")
    func replay() throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: Self.directory.path).sorted()
        #expect(names.count >= 5)
        for name in names {
            let bytes = Array(try Data(contentsOf: Self.directory.appendingPathComponent(name)))
            #expect(MailExercise.run(bytes) == nil, "\(name)")
        }
    }
}
