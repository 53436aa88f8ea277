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
    /// else an image ("image/png 1920×1080" from its header, any format: a browser's image copy carries HTML, not text), else the first
    /// type in brackets. Never a control character (`OneLine`).
    public func preview(limit: Int = 80, table: ConversionTable = .standard) -> String {
        if let files = fileList(using: table) {
            let count = files.uris.count
            let head = files.action == .cut ? "\(count) \(count == 1 ? "file" : "files") cut: " : "\(count) \(count == 1 ? "file" : "files"): "
            return OneLine.make(head + files.names.joined(separator: ", "), limit: limit)
        }
        if let text = plainText(using: table) {
            return OneLine.make(String(decoding: text.prefix(limit * 4), as: UTF8.self), limit: limit)
        }
        if let image = imageSummary(using: table) {
            return "\(image.type) \(image.width)×\(image.height)"
        }
        if let image = types.first(where: { $0.rawValue.hasPrefix("image/") }) {
            // A picture whose header does not read: its type and size.
            return OneLine.make("\(image), \(data(for: image)?.count ?? 0) bytes", limit: limit)
        }
        return types.first.map { OneLine.make("[\($0)]", limit: limit) } ?? ""
    }
}

/// Text made fit for one line of a listing or a menu: line breaks, tabs and other control characters
/// (C0, DEL, C1, the Unicode line and paragraph separators, the bidirectional overrides and isolates that
/// could make a line read as another) become spaces, and the text is cut at `limit` characters with "…".
public enum OneLine {
    public static func make(_ text: String, limit: Int) -> String {
        var out = ""
        var count = 0
        for character in text {
            if count >= limit { return out + "…" }
            out.append(isUnsafe(character) ? " " : character)
            count += 1
        }
        return out
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
