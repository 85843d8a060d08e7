import Foundation
import Testing

@testable import LinkDomainCore

@Suite("Placeholders filled over UTF-8 bytes")
struct TextSubstitutionTests {
    @Test(
        "fills as Foundation's replacingOccurrences does: every occurrence, at either end, side by side, none, around any script",
        arguments: [
            ("Open {app}", "{app}", "Ada's app"),
            ("{app}", "{app}", ""),
            ("{app}{app} and {app}", "{app}", "x"),
            ("no placeholder here", "{app}", "x"),
            ("", "{app}", "x"),
            ("{ap", "{app}", "x"),
            ("افتح \u{2068}{app}\u{2069} الآن", "{app}", "تطبيقي"),
            ("Öffne {app} – jetzt 🎉 {app}", "{app}", "App ☕️"),
            ("{email} owns {email}", "{email}", "{email}"),
            ("# minutes", "#", "90"),
            ("{{app}}", "{app}", "x"),
        ])
    func likeFoundation(text: String, placeholder: String, value: String) {
        #expect(text.substituting(placeholder, with: value) == text.replacingOccurrences(of: placeholder, with: value))
    }

    @Test("an empty placeholder leaves the text as it is")
    func emptyPlaceholder() {
        #expect("Open {app}".substituting("", with: "x") == "Open {app}")
        #expect("Open {app}".substituting([]) == "Open {app}")
    }

    @Test("several placeholders in one pass: a value put in is not searched again, whatever the order")
    func onePass() {
        let text = "{email} <{support}> {app}"
        let fills = [("{email}", "{support}@evil.example"), ("{support}", "help@example.com"), ("{app}", "{email}")]
        #expect(text.substituting(fills) == "{support}@evil.example <help@example.com> {email}")
        #expect(text.substituting(fills.reversed()) == "{support}@evil.example <help@example.com> {email}")
    }

    @Test("unlike Foundation's default search, a placeholder followed by a combining mark is filled too")
    func combiningMark() {
        #expect("# #\u{FE0F}\u{20E3}".substituting("#", with: "5") == "5 5\u{FE0F}\u{20E3}")
        #expect("{app}\u{301}".substituting("{app}", with: "x") == "x\u{301}")
    }

    @Test("every built-in page, mail and console text fills each of its placeholders as Foundation does")
    func builtInTexts() throws {
        var checked = 0
        for (path, file) in PageAssets.builtInFiles where path.hasSuffix(".json") && path.contains("locales/") {
            let table = try JSONDecoder().decode([String: String].self, from: Data(file.utf8))
            for text in table.values {
                for match in text.matches(of: /\{[A-Za-z]+\}|#/) {
                    let placeholder = String(match.output)
                    let value = "«\(placeholder.dropFirst())» ünïcødé"
                    #expect(text.substituting(placeholder, with: value) == text.replacingOccurrences(of: placeholder, with: value), "\(path)")
                    checked += 1
                }
            }
        }
        #expect(checked > 1_000)
    }
}
