import Testing

@testable import LinkDomainCore

@Suite("Counted words: CLDR plural categories, plural messages, durations as the mails say them")
struct PluralTests {
    @Test("each language's categories for the counts a mail meets")
    func categories() {
        let russian = [1, 2, 4, 5, 11, 12, 14, 21, 22, 25, 111, 112, 121].map { Languages.pluralCategory($0, language: "ru") }
        #expect(russian == [.one, .few, .few, .many, .many, .many, .many, .one, .few, .many, .many, .many, .one])
        #expect([0, 1, 2].map { Languages.pluralCategory($0, language: "en") } == [.other, .one, .other])
        #expect([0, 1, 2].map { Languages.pluralCategory($0, language: "pt") } == [.one, .one, .other])
        #expect([0, 1, 2, 1_000_000].map { Languages.pluralCategory($0, language: "pt-PT") } == [.other, .one, .other, .many])
        #expect([1, 7].map { Languages.pluralCategory($0, language: "vi") } == [.other, .other])
        #expect(Languages.pluralCategory(Int.min, language: "ru") == .many, "no trap on any number")
        let arabic = [0, 1, 2, 3, 10, 11, 99, 100, 102, 111].map { Languages.pluralCategory($0, language: "ar") }
        #expect(arabic == [.zero, .one, .two, .few, .few, .many, .many, .other, .other, .many])
        #expect([1, 2, 5, 12, 22, 25].map { Languages.pluralCategory($0, language: "pl") } == [.one, .few, .many, .many, .few, .many])
        #expect([1, 2, 5, 10, 11, 21].map { Languages.pluralCategory($0, language: "lt") } == [.one, .few, .few, .other, .other, .one])
        #expect([0, 1, 2, 11, 21].map { Languages.pluralCategory($0, language: "lv") } == [.zero, .one, .other, .zero, .one])
        #expect([1, 2, 19, 20, 101].map { Languages.pluralCategory($0, language: "ro") } == [.one, .few, .few, .other, .few])
        #expect([1, 2, 3, 5, 101].map { Languages.pluralCategory($0, language: "sl") } == [.one, .two, .few, .other, .one])
        #expect([1, 4, 6, 9, 10].map { Languages.pluralCategory($0, language: "fil") } == [.one, .other, .other, .other, .one])
        #expect([0, 1, 2].map { Languages.pluralCategory($0, language: "fr") } == [.one, .one, .other])
        #expect([1, 2, 3].map { Languages.pluralCategory($0, language: "he") } == [.one, .two, .other])
        #expect([1, 3, 5].map { Languages.pluralCategory($0, language: "cs") } == [.one, .few, .other])
    }

    @Test("a plural message picks its form, fills # and keeps the words around it")
    func message() throws {
        let hours = try PluralMessage("истекает через {count, plural, one {# час} few {# часа} many {# часов} other {# часа}}.")
        #expect(hours.text(1, language: "ru") == "истекает через 1 час.")
        #expect(hours.text(3, language: "ru") == "истекает через 3 часа.")
        #expect(hours.text(6, language: "ru") == "истекает через 6 часов.")
        let exact = try PluralMessage("in {count, plural, =1 {an hour} other {# hours}}")
        #expect(exact.text(1, language: "en") == "in an hour" && exact.text(2, language: "en") == "in 2 hours")
        #expect(try PluralMessage("no count here").text(5, language: "en") == "no count here")
    }

    @Test(
        "a malformed plural message is refused when loaded, never at a mail",
        arguments: [
            "{count, plural, one {# hour}}", "{count, plural, other {# hours}", "{count, plural, seven {#} other {#}}",
            "{count, plural, other # hours}", "{count, plural, other {# {nested} hours}}",
        ])
    func malformed(text: String) {
        #expect(throws: PluralMessage.Problem.self) { try PluralMessage(text) }
    }

    @Test("a lifetime in the largest unit that divides it, never more than the truth")
    func durations() {
        #expect(SpokenDuration(seconds: 3600) == SpokenDuration(count: 1, unit: .hours))
        #expect(SpokenDuration(seconds: 259_200) == SpokenDuration(count: 3, unit: .days))
        #expect(SpokenDuration(seconds: 5400) == SpokenDuration(count: 90, unit: .minutes))
        #expect(SpokenDuration(seconds: 119) == SpokenDuration(count: 1, unit: .minutes))
        #expect(SpokenDuration(seconds: 59) == nil)
    }
}

@Suite("The accent colour in both schemes, readable")
struct AccentColorTests {
    @Test(
        "every brand colour reads on its scheme's cards and under its button text",
        arguments: ["#0b57d0", "#aa3300", "#ffcc00", "#000000", "#ffffff", "#1a7f37", "#7c3aed"])
    func contrast(hex: String) throws {
        let colors = try #require(AccentColors(hex))
        let light = try #require(AccentColors.RGB(hex: colors.light))
        let dark = try #require(AccentColors.RGB(hex: colors.dark))
        #expect(light.contrast(with: AccentColors.white) >= 4.5, "light \(colors.light)")
        #expect(dark.contrast(with: AccentColors.darkCard) >= 4.5, "dark \(colors.dark)")
        #expect(dark.contrast(with: try #require(AccentColors.RGB(hex: AccentColors.darkButtonText))) >= 4.5)
    }

    @Test("a readable brand colour is kept as configured in the light scheme, and tinted, not replaced, in the dark one")
    func kept() throws {
        let colors = try #require(AccentColors("#aa3300"))
        #expect(colors.light == "#aa3300")
        #expect(colors.dark != "#aa3300" && colors.dark.hasPrefix("#") && colors.stylesheet.contains("--accent: \(colors.dark)"))
        let dark = try #require(AccentColors.RGB(hex: colors.dark))
        #expect(dark.red > dark.blue, "still the brand's hue")
        #expect(AccentColors("red") == nil)
    }
}
