// SPDX-License-Identifier: Apache-2.0
extension PasteboardContent {
    /// The files the content holds, in the best form it has: GNOME's list, else the URI list with KDE's
    /// cut marker (`ConversionTable.plan` of `x-special/gnome-copied-files`). Nil when it holds no files or
    /// they do not parse.
    public func fileList(using table: ConversionTable = .standard) -> FileList? {
        guard let plan = table.plan(producing: .gnomeCopiedFiles, from: types), let source = data(for: plan.source) else { return nil }
        var services = ConversionServices()
        for companion in plan.companions { services.companions[companion] = data(for: companion) }
        guard let copied = try? plan.run(source, services: services) else { return nil }
        return try? FileList(copiedFiles: copied.data)
    }

    /// A one-line summary for history listings and pickers, at most about `limit` characters: the files
    /// ("3 files: a.txt, b.txt, …", though file managers offer the paths as text too), else the start of
    /// the text (an application that renders a selection as a picture beside its text still copied text),
    /// else an image ("image/png 1920×1080" from its header, any format: a browser's image copy carries HTML, not text), else the start
    /// of the rich text rendered as text (`richTextStart`), else the first type in brackets. Never a control
    /// character (`OneLine`).
    public func preview(limit: Int = 80, table: ConversionTable = .standard) -> String {
        if let files = fileList(using: table) {
            let count = files.uris.count
            let head = files.action == .cut ? "\(count) \(count == 1 ? "file" : "files") cut: " : "\(count) \(count == 1 ? "file" : "files"): "
            return OneLine.make(head + files.names.joined(separator: ", "), limit: limit)
        }
        if let text = plainTextStart(limit * 4, using: table) {
            return OneLine.make(String(decoding: text, as: UTF8.self), limit: limit)
        }
        if let image = imageSummary(using: table) {
            return "\(image.type) \(image.width)×\(image.height)"
        }
        if let image = types.first(where: { $0.rawValue.hasPrefix("image/") }) {
            // A picture whose header does not read: its type and size.
            return OneLine.make("\(image), \(data(for: image)?.count ?? 0) bytes", limit: limit)
        }
        if let text = richTextStart(using: table) {
            return OneLine.make(String(decoding: text.prefix(limit * 4), as: UTF8.self), limit: limit)
        }
        return types.first.map { OneLine.make("[\($0)]", limit: limit) } ?? ""
    }

    /// How much of a rich-text representation a preview reads at most: its start, which the RTF and HTML readers
    /// take as a document cut short. First `previewFirstBytes` (a browser's or LibreOffice's HTML fragment, most
    /// RTF: under 2 ms), and only when that shows no text this much (the tens of KiB of styles Word and Outlook
    /// write before an HTML body: about 8 ms), whatever the size of the copy. The daemon makes a preview on its
    /// loop at each change it keeps.
    public static let previewSourceBytes = 64 * 1024
    static let previewFirstBytes = 4 * 1024

    /// The first `count` bytes of the content's plain text as UTF-8 (`plainText`): of text that needs no conversion only
    /// those are read (a large copy kept in its file is not read whole for its preview), else all of it is converted.
    func plainTextStart(_ count: Int, using table: ConversionTable) -> [UInt8]? {
        let text = types.filter { table.family(of: $0) == .plainText }
        guard let plan = table.plan(producing: .utf8String, from: text), !plan.needsCallerThread else { return nil }
        if plan.steps.isEmpty, let representation = items.lazy.compactMap({ $0.representation(for: plan.source) }).first {
            guard let source = representation.source else { return Array(representation.data.prefix(count)) }
            return try? source.read(0..<min(count, source.count))
        }
        return plainText(using: table).map { Array($0.prefix(count)) }
    }

    /// The start of the content's rich text as plain text, for a preview of a copy with no plain text (an HTML or
    /// RTF file copied by type, a Mac's RTFD): RTF and HTML rendered from their start (`previewSourceBytes`),
    /// flat RTFD only when it is no larger (its parts are not in reading order); trailing line breaks dropped.
    /// Nil when none shows any text.
    func richTextStart(using table: ConversionTable) -> [UInt8]? {
        for type in types {
            guard let row = table.row(of: type), row.family == .richText, let data = data(for: type),
                  let plan = table.plan(producing: .utf8String, from: [type]), !plan.needsCallerThread else { continue }
            let lengths: [Int]
            switch row.format {
            case .rtf, .html: lengths = data.count > Self.previewFirstBytes ? [Self.previewFirstBytes, Self.previewSourceBytes] : [data.count]
            case .flatRTFD where data.count <= Self.previewSourceBytes: lengths = [data.count]
            default: continue
            }
            for length in lengths {
                guard let text = try? plan.run(Array(data.prefix(length)), services: ConversionServices()).data,
                      let last = text.lastIndex(where: { $0 > 0x20 }) else { continue }
                return Array(text[...last])  // without the last paragraph's line break
            }
        }
        return nil
    }
}

/// Text made fit for one line of a listing or a menu: line breaks, tabs and other control characters
/// (C0, DEL, C1, the Unicode line and paragraph separators, the bidirectional overrides and isolates that
/// could make a line read as another) become spaces, and the text is cut at `limit` characters with "…".
public enum OneLine {
    public static func make(_ text: String, limit: Int) -> String {
        // ASCII within the limit, by bytes: each byte is a Character but CR LF, which is one (one space), and the
        // unsafe ones are its controls (building it Character by Character cost ~17,000 instructions a line).
        if text.utf8.count <= limit, text.utf8.allSatisfy({ $0 < 0x80 }) { return asciiLine(text.utf8) }
        var out = ""
        var count = 0
        for character in text {
            if count >= limit { return out + "…" }
            out.append(isUnsafe(character) ? " " : character)
            count += 1
        }
        return out
    }

    private static func asciiLine(_ text: String.UTF8View) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(text.count)
        var index = text.startIndex
        while index != text.endIndex {
            let byte = text[index]
            index = text.index(after: index)
            if byte == UInt8(ascii: "\r"), index != text.endIndex, text[index] == UInt8(ascii: "\n") { index = text.index(after: index) }
            out.append(byte < 0x20 || byte == 0x7F ? UInt8(ascii: " ") : byte)
        }
        return String(decoding: out, as: UTF8.self)
    }

    public static func isUnsafe(_ character: Character) -> Bool {
        character.unicodeScalars.contains { scalar in
            switch scalar.value {
            case 0x00...0x1F, 0x7F...0x9F, 0x2028, 0x2029, 0x202A...0x202E, 0x2066...0x2069, 0x200E, 0x200F, 0x061C: true
            default: false
            }
        }
    }
}

extension StringProtocol {
    /// The text without the characters at either end for which `isTrimmed` holds.
    func trimmed(where isTrimmed: (Character) -> Bool) -> String {
        var s = self[...]
        while let c = s.first, isTrimmed(c) { s = s.dropFirst() }
        while let c = s.last, isTrimmed(c) { s = s.dropLast() }
        return String(s)
    }
}
