/// Placeholders filled in translated text (`{app}`, `{email}`, `#`).
extension String {
    /// This text with every occurrence of `placeholder` replaced by `value`.
    package func substituting(_ placeholder: String, with value: String) -> String {
        substituting([(placeholder, value)])
    }

    /// This text with every placeholder of `fills` replaced by its value, in one pass: a value put
    /// in is never searched again, so an address that holds `{support}` reads as it was written
    /// (filling one placeholder after another would fill that one too).
    ///
    /// Matched byte for byte in UTF-8. Foundation's `replacingOccurrences` copied the text to
    /// UTF-16 and back on each call: a third of a landing page's cost (BENCHMARKS.md, "The first
    /// page a phone sees"). A byte match only ever starts on a character's first byte (UTF-8
    /// never repeats a lead byte inside a sequence), so it finds what a scalar-by-scalar search
    /// finds. Unlike Foundation's default search, it also fills a placeholder followed by a
    /// combining mark (`#` in `#️⃣`), which no built-in text has.
    package func substituting(_ fills: [(placeholder: String, value: String)]) -> String {
        let needles = fills.compactMap { fill in fill.placeholder.isEmpty ? nil : (bytes: Array(fill.placeholder.utf8), value: fill.value) }
        guard !needles.isEmpty else { return self }
        let text = Array(utf8)
        var output: [UInt8] = []
        var copied = 0
        var index = 0
        while index < text.count {
            let byte = text[index]
            let match = needles.first { needle in
                needle.bytes[0] == byte && text.count - index >= needle.bytes.count
                    && text[index..<index + needle.bytes.count].elementsEqual(needle.bytes)
            }
            guard let match else {
                index += 1
                continue
            }
            if output.isEmpty { output.reserveCapacity(text.count + match.value.utf8.count) }
            output.append(contentsOf: text[copied..<index])
            output.append(contentsOf: match.value.utf8)
            index += match.bytes.count
            copied = index
        }
        guard copied > 0 else { return self }
        output.append(contentsOf: text[copied...])
        return String(decoding: output, as: UTF8.self)
    }
}
