import LinkDomainCore
import LinkDomainStorage
import Mustache

/// Something a template reads by name: a page model, or a part of one (a hidden field).
protocol PageValues: Sendable {
    /// Hands `visitor` each value under the name the templates know it by, always in the same order.
    func visit(_ visitor: inout some PageValueVisitor)
}

/// What reads a model's values: its Mustache view (``PageValueTree``) and its shape (``PageShape``).
protocol PageValueVisitor {
    /// A text; nil is no value at all (its section is skipped).
    mutating func text(_ name: String, _ value: String?)
    mutating func flag(_ name: String, _ value: Bool)
    mutating func number(_ name: String, _ value: Int?)
    mutating func texts(_ name: String, _ values: [String])
    mutating func child(_ name: String, _ value: (some PageValues)?)
    mutating func children(_ name: String, _ values: [some PageValues])
}

/// A model's values as Mustache reads them, by name. Its texts are the model's own, or each
/// replaced by a marker naming its place (``PageStencil``'s sentinels and probes): the n-th text is
/// the n-th non-empty text in the order the model visits them, which ``PageShape`` counts alike.
struct PageValueTree: MustacheParent {
    enum Texts {
        case asIs
        case sentinels
        case probes
    }

    fileprivate(set) var values: [String: Any] = [:]

    init(_ model: some PageValues, texts: Texts = .asIs) {
        var builder = Builder(texts: texts)
        model.visit(&builder)
        self = builder.tree
    }

    private init() {}

    func child(named name: String) -> Any? { values[name] }

    private struct Builder: PageValueVisitor {
        let texts: Texts
        var count = 0
        var tree = PageValueTree()

        init(texts: Texts, count: Int = 0) {
            self.texts = texts
            self.count = count
        }

        mutating func text(_ name: String, _ value: String?) {
            if let value { tree.values[name] = replaced(value) }
        }

        mutating func flag(_ name: String, _ value: Bool) { tree.values[name] = value }

        mutating func number(_ name: String, _ value: Int?) {
            if let value { tree.values[name] = value }
        }

        mutating func texts(_ name: String, _ values: [String]) {
            var replaced: [String] = []
            replaced.reserveCapacity(values.count)
            for value in values { replaced.append(self.replaced(value)) }
            tree.values[name] = replaced
        }

        mutating func child(_ name: String, _ value: (some PageValues)?) {
            if let value { tree.values[name] = nested(value) }
        }

        mutating func children(_ name: String, _ values: [some PageValues]) {
            var trees: [PageValueTree] = []
            trees.reserveCapacity(values.count)
            for value in values { trees.append(nested(value)) }
            tree.values[name] = trees
        }

        private mutating func nested(_ value: some PageValues) -> PageValueTree {
            var builder = Builder(texts: texts, count: count)
            value.visit(&builder)
            count = builder.count
            return builder.tree
        }

        /// An empty text stays empty: it is part of the shape, not a place for a value.
        private mutating func replaced(_ value: String) -> String {
            guard !value.isEmpty, texts != .asIs else { return value }
            defer { count += 1 }
            return texts == .sentinels ? PageStencil.sentinel(count) : PageStencil.probe(count)
        }
    }
}

/// What decides a page's bytes besides its texts: which values are present, empty or absent,
/// flags, numbers and list lengths, written as bytes (each value's tag, then what it holds) in
/// the model's visiting order; and the non-empty texts in that order. Pages of one template,
/// language and shape differ only in their texts.
struct PageShape: PageValueVisitor {
    private(set) var key: [UInt8] = []
    private(set) var texts: [String] = []

    init(_ model: some PageValues) {
        key.reserveCapacity(48)
        texts.reserveCapacity(16)
        model.visit(&self)
    }

    private enum Tag: UInt8 {
        case absent, empty, text, no, yes, number, texts, child, children
    }

    mutating func text(_ name: String, _ value: String?) {
        guard let value else { return key.append(Tag.absent.rawValue) }
        element(value)
    }

    mutating func flag(_ name: String, _ value: Bool) { key.append(value ? Tag.yes.rawValue : Tag.no.rawValue) }

    mutating func number(_ name: String, _ value: Int?) {
        guard let value else { return key.append(Tag.absent.rawValue) }
        key.append(Tag.number.rawValue)
        append(value)
    }

    mutating func texts(_ name: String, _ values: [String]) {
        key.append(Tag.texts.rawValue)
        append(values.count)
        for value in values { element(value) }
    }

    mutating func child(_ name: String, _ value: (some PageValues)?) {
        guard let value else { return key.append(Tag.absent.rawValue) }
        key.append(Tag.child.rawValue)
        value.visit(&self)
    }

    mutating func children(_ name: String, _ values: [some PageValues]) {
        key.append(Tag.children.rawValue)
        append(values.count)
        for value in values { value.visit(&self) }
    }

    private mutating func element(_ value: String) {
        if value.isEmpty {
            key.append(Tag.empty.rawValue)
        } else {
            key.append(Tag.text.rawValue)
            texts.append(value)
        }
    }

    private mutating func append(_ value: Int) {
        for shift in stride(from: 0, to: Int.bitWidth, by: 8) { key.append(UInt8(truncatingIfNeeded: value >> shift)) }
    }
}
