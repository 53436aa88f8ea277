// SPDX-License-Identifier: Apache-2.0
import SystemSupport

/// UIPasteboard's and NSPasteboard's typed accessors, as most Apple code uses them, on top of `items`,
/// `data(forType:)` and `setItems(_:)`. URLs are Strings (the library stays free of Foundation). An empty
/// pasteboard is not an error here: its `string` is nil, its `strings` empty, its `has…` false.
extension Pasteboard {
    // MARK: - Reading

    /// The text of the content (UIPasteboard's `string`): plain text as offered, or converted from what is
    /// (the text of HTML or RTF); nil when nothing offered is or converts to text.
    public var string: String? {
        get throws(PasteboardError) {
            do { return try data(forType: .utf8PlainText).map { String(decoding: $0, as: UTF8.self) } } catch .empty { return nil }
        }
    }

    /// The text of each item that has text or converts to it, in item order (UIPasteboard's `strings`).
    public var strings: [String] {
        get throws(PasteboardError) {
            try everyItem { (item: PasteboardItem) throws(PasteboardError) -> [String] in
                try data(forType: .utf8PlainText, in: item).map { [String(decoding: $0, as: UTF8.self)] } ?? []
            }
        }
    }

    /// The first URL of the content (UIPasteboard's `url`): from `text/uri-list` (a file manager's files
    /// convert to one), else the plain text when it is one URL and nothing else (`URLText.singleURL`).
    public var url: String? {
        get throws(PasteboardError) { try urls.first }
    }

    /// Every URL of the content, item by item (UIPasteboard's `urls`): each item's URI list (as `files()`
    /// reads one: `.badReply` when it is not a valid list), or its text when that is one URL.
    public var urls: [String] {
        get throws(PasteboardError) {
            try everyItem { (item: PasteboardItem) throws(PasteboardError) -> [String] in
                if let list = try data(forType: .uriList, in: item) {
                    do { return try FileList(uriList: list).uris } catch {
                        throw .badReply("the URI list on \(name) is not a valid list: \(error)")
                    }
                }
                guard let text = try data(forType: .utf8PlainText, in: item), text.count <= URLText.maximumLength,
                      let url = URLText.singleURL(in: String(decoding: text, as: UTF8.self)) else { return [] }
                return [url]
            }
        }
    }

    /// Whether the content offers text, or something that converts to it. Reads TARGETS only, never content.
    public var hasStrings: Bool {
        get throws(PasteboardError) { try offersAny([.utf8PlainText]) }
    }

    /// Whether the content offers a URI list, or files that convert to one. Reads TARGETS only: plain text
    /// that happens to be a URL is not seen without reading it (`url` reads it).
    public var hasURLs: Bool {
        get throws(PasteboardError) { try offersAny([.uriList]) }
    }

    /// Whether the content offers a picture of a type pasteboard reads. Reads TARGETS only.
    public var hasImages: Bool {
        get throws(PasteboardError) { try offersAny(table.members(of: .image)) }
    }

    /// The content's picture as `type` (`.png` by default; any picture type of the conversion table): as
    /// offered, or converted from the picture that is (UIPasteboard's `image`, as bytes). Nil when it offers none.
    public func image(as type: PasteboardType = .png) throws(PasteboardError) -> [UInt8]? {
        guard table.family(of: type) == .image else {
            throw .refused("\(type) is not a picture type (\(table.members(of: .image).map(\.rawValue).joined(separator: ", ")))")
        }
        do { return try data(forType: type) } catch .empty { return nil }
    }

    /// The first of `types` the content offers or converts to (NSPasteboard's `availableType(from:)`), nil
    /// when none. Reads TARGETS only.
    public func availableType(from wanted: [PasteboardType]) throws(PasteboardError) -> PasteboardType? {
        let offered: [PasteboardType]
        do { offered = try types } catch .empty { return nil }
        return wanted.first { table.plan(producing: $0, from: offered) != nil }
    }

    /// The indexes of the items that offer any of `types`, their own or listed for them as derived
    /// (UIPasteboard's `itemSet(withPasteboardTypes:)`), for `data(forType:inItemSet:)`.
    public func itemSet(withTypes wanted: [PasteboardType]) throws(PasteboardError) -> [Int] {
        let all: [PasteboardItem]
        do { all = try items } catch .empty { return [] }
        return all.indices.filter { !Set(table.advertisedTypes(for: all[$0].types)).isDisjoint(with: wanted) }
    }

    // MARK: - Writing

    /// Replaces the content with `text` as one item (UIPasteboard's `string =`): one change; returns the count.
    @discardableResult
    public func setString(_ text: String) throws(PasteboardError) -> UInt64 {
        try setItems([Self.textItem(text)])
    }

    /// Replaces the content with one item per string: one change for all of them.
    @discardableResult
    public func setStrings(_ texts: [String]) throws(PasteboardError) -> UInt64 {
        guard !texts.isEmpty else { return try clear() }
        return try setItems(texts.map(Self.textItem))
    }

    /// Replaces the content with `url` (UIPasteboard's `url =`): a `text/uri-list` and the URL as text, one
    /// item, one change. Throws `.refused` for text that is not one URL (`URLText.singleURL`).
    @discardableResult
    public func setURL(_ url: String) throws(PasteboardError) -> UInt64 {
        guard let valid = URLText.singleURL(in: url) else { throw .refused("'\(OneLine.make(url, limit: 200))' is not a URL") }
        return try setItems([Self.item([(.uriList, Array((valid + "\r\n").utf8)), (.utf8PlainText, Array(valid.utf8))])])
    }

    /// Replaces the content with the picture `bytes`, offered as `type` (nil: the type its magic bytes say).
    /// pasteboardd serves it as every other picture type too. Throws `.refused` for bytes that are no
    /// picture, or that another type than `type` names.
    @discardableResult
    public func setImage(_ bytes: [UInt8], type: PasteboardType? = nil) throws(PasteboardError) -> UInt64 {
        guard let sniffed = PasteboardType.imageType(of: bytes) else {
            throw .refused("the bytes are not a PNG, JPEG, GIF, BMP, TIFF or WebP picture")
        }
        if let type, table.row(of: type)?.format != table.row(of: sniffed)?.format {
            throw .refused("the bytes are a \(sniffed) picture, not \(type)")
        }
        return try setItems([Self.item([(type ?? sniffed, bytes)])])
    }

    // MARK: - Named pasteboards

    /// A new named pasteboard with a name no other has (UIPasteboard's `withUniqueName()`), served by
    /// pasteboardd from now on; `remove()` it when done.
    public static func withUniqueName(environment: [String: String] = Environment.all) throws(PasteboardError) -> Pasteboard {
        var generator = SystemRandomNumberGenerator()
        let suffix = (0..<4).map { _ in String(UInt32.random(in: 0...UInt32.max, using: &generator), radix: 16) }.joined(separator: "-")
        return try Pasteboard(name: "_PASTEBOARD_UNIQUE_" + suffix, create: true, environment: environment)
    }

    /// Stops pasteboardd serving this named pasteboard and forgets it (UIPasteboard's `remove(withName:)`):
    /// its watchers are told `removed`. CLIPBOARD, PRIMARY and SECONDARY cannot be removed.
    public func remove() throws(PasteboardError) {
        try PasteboardDaemon(environment: environment).removePasteboard(name)
    }

    // MARK: - Plumbing

    private static func textItem(_ text: String) -> PasteboardItem {
        item([(.utf8PlainText, Array(text.utf8))])
    }

    /// An item of representations that are valid by construction.
    private static func item(_ pairs: [(type: PasteboardType, data: [UInt8])]) -> PasteboardItem {
        do { return try PasteboardItem(pairs) } catch { preconditionFailure("a typed accessor made an invalid item: \(error)") }
    }

    /// Whether any of `wanted` is offered or converts from what is (TARGETS only); false when empty.
    private func offersAny(_ wanted: [PasteboardType]) throws(PasteboardError) -> Bool {
        do { return try contains(types: wanted) } catch .empty { return false }
    }

    /// `body` over every item, results joined in order; an empty pasteboard has none.
    private func everyItem<T>(_ body: (PasteboardItem) throws(PasteboardError) -> [T]) throws(PasteboardError) -> [T] {
        let all: [PasteboardItem]
        do { all = try items } catch .empty { return [] }
        var result: [T] = []
        for item in all { result += try body(item) }
        return result
    }
}
