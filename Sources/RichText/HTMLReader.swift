// SPDX-License-Identifier: Apache-2.0
/// Reads clipboard HTML (Chromium, Firefox, LibreOffice, Qt) into an `AttributedDocument`.
///
/// Input: UTF-8 with or without the `<meta charset>` prefix, UTF-16 with a BOM or by Qt's rule (exactly one of the
/// first two bytes is zero), a trailing NUL, a Windows `Version:0.9 StartHTML:` header, fragments or full documents.
/// Understood: entities, inline styles (`font-weight font-style text-decoration color background-color font-size
/// font-family text-align margin-* text-indent vertical-align display:none`) and the tags `b i u s strong em a p
/// div br h1–h6 ul ol li table tr td th img font span sup sub pre code`. `data:` images become attachments;
/// unknown tags are ignored with their text kept. Never throws.
public enum HTMLReader {
    /// Elements nested deeper than this keep their text but add no formatting (bounds the work per tag).
    public static let maximumDepth = 512

    /// Reads HTML; `codePages` decodes a legacy `<meta charset>` RichText has no table for (Shift_JIS, GBK …).
    public static func read(_ bytes: [UInt8], codePages: any CodePageDecoder = BuiltInCodePages()) -> ReadResult {
        let text = decode(bytes, codePages: codePages)
        var parser = HTMLParser(input: Array(text.utf8))
        parser.run()
        return parser.finish()
    }

    /// Decodes clipboard HTML bytes to a string (see the type's contract).
    public static func decode(_ bytes: [UInt8], codePages: any CodePageDecoder = BuiltInCodePages()) -> String {
        var slice = bytes[...]
        if slice.starts(with: [0xFF, 0xFE]) { return TextDecoding.decodeUTF16(slice.dropFirst(2), littleEndian: true) }
        if slice.starts(with: [0xFE, 0xFF]) { return TextDecoding.decodeUTF16(slice.dropFirst(2), littleEndian: false) }
        if slice.count >= 2 && (slice[slice.startIndex] == 0) != (slice[slice.startIndex + 1] == 0) {
            return TextDecoding.decodeUTF16(slice, littleEndian: slice[slice.startIndex + 1] == 0)
        }
        if slice.starts(with: [0xEF, 0xBB, 0xBF]) { slice = slice.dropFirst(3) }
        while slice.last == 0 { slice = slice.dropLast() }
        if slice.starts(with: Array("Version:".utf8)), let start = windowsFragmentStart(slice) {
            slice = slice[start...]
        }
        if let charset = declaredCharset(slice), let codePage = legacyCodePage(charset) {
            return CodePage(codePage, decoder: codePages).decode(Array(slice))
        }
        return String(decoding: slice, as: UTF8.self)
    }

    /// The `StartHTML:` offset of a CF_HTML clipboard header, if valid.
    static func windowsFragmentStart(_ slice: ArraySlice<UInt8>) -> Int? {
        let header = String(decoding: slice.prefix(400), as: UTF8.self)
        guard let range = header.firstRange(of: "StartHTML:") else { return nil }
        let digits = header[range.upperBound...].prefix { $0.isNumber }
        guard let offset = Int(digits), offset >= 0, offset < slice.count else { return nil }
        return slice.startIndex + offset
    }

    /// The charset named by a `<meta>` in the first 1024 bytes, lowercased.
    static func declaredCharset(_ slice: ArraySlice<UInt8>) -> String? {
        let head = String(decoding: slice.prefix(1024), as: UTF8.self).lowercased()
        guard let range = head.firstRange(of: "charset=") else { return nil }
        var name = head[range.upperBound...].drop { $0 == "\"" || $0 == "'" || $0 == " " }
        name = name.prefix { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" || $0 == ":" }
        return name.isEmpty ? nil : String(name)
    }

    /// The code page of a non-UTF-8 charset label, or nil for UTF-8 and unknown labels.
    static func legacyCodePage(_ charset: String) -> Int? {
        switch charset {
        case "windows-1252", "iso-8859-1", "latin1", "us-ascii", "ascii", "cp1252": return 1252
        case "shift_jis", "shift-jis", "sjis", "windows-31j", "cp932": return 932
        case "gb2312", "gbk", "cp936": return 936
        case "big5", "cp950": return 950
        case "euc-kr", "ks_c_5601-1987", "cp949": return 949
        case "koi8-r": return 20866
        default:
            if charset.hasPrefix("windows-"), let n = Int(charset.dropFirst(8)), (1250...1258).contains(n) { return n }
            return nil
        }
    }
}

private struct HTMLElement {
    var name: String
    var char: CharacterAttributes
    var alignment: TextAlignment?
    var leftIndent: Double?, rightIndent: Double?, firstLineIndent: Double?, spaceBefore: Double?, spaceAfter: Double?
    var headingLevel: Int?
    var list: ListMembership?
    var cell: TableCell?
    var preserveWhitespace = false
    var dropsContent = false
    /// Word's `mso-list: l0 level2 lfo1` on a paragraph: list item of list `lfo` at level 2 − 1.
    var msoList: (id: Int, level: Int)?
    /// Word's `mso-list: Ignore` span: the list marker Word rendered, not text.
    var isListMarker = false
    var isList = false
    var isTable = false
    /// Paragraph count when the element opened, to give an empty `<p></p>` its paragraph.
    var paragraphsAtOpen = 0
}

private struct ListState {
    var id: Int
    var kind: ListKind
    var counter: Int
}

private struct TableState {
    var id: Int
    var row = -1
    var column = -1
}

private struct HTMLParser {
    let input: [UInt8]
    var position = 0
    var stack: [HTMLElement] = []
    var lists: [ListState] = []
    var tables: [TableState] = []
    var listCount = 0
    var tableCount = 0
    var imageCount = 0

    var paragraphs: [Paragraph] = []
    var runs: [TextRun] = []
    var runBytes: [UInt8] = []
    var runAttributes = CharacterAttributes()
    /// Bumped whenever the element stack changes, so text need not compare attributes byte by byte.
    var stackVersion = 1
    var runVersion = 0
    var lastWasSpace = true
    var warnings: [String] = []
    var styleCache: [String: [(String, String)]] = [:]
    var depthWarned = false
    /// How many elements of each name are open, so a stray end tag costs one lookup.
    var openCounts: [String: Int] = [:]
    var familyCache: [String: String?] = [:]
    /// The marker text of the current Word list paragraph (its `mso-list: Ignore` span).
    var listMarker = String.UnicodeScalarView()

    static let voidElements: Set<String> = [
        "br", "img", "hr", "meta", "link", "input", "col", "area", "base", "wbr", "source", "embed", "param", "track",
    ]
    static let blockElements: Set<String> = [
        "p", "div", "h1", "h2", "h3", "h4", "h5", "h6", "ul", "ol", "li", "table", "tr", "td", "th", "thead", "tbody",
        "tfoot", "caption", "blockquote", "pre", "section", "article", "header", "footer", "nav", "aside", "main",
        "figure", "figcaption", "hr", "address", "dl", "dt", "dd", "center", "form", "fieldset", "details", "summary",
        "body", "html", "title", "head",
    ]
    static let rawTextElements: Set<String> = ["script", "style", "title", "template", "textarea", "xmp"]
    /// Elements that should not be open when another of these starts (implied end tags).
    static let autoClose: [String: Set<String>] = [
        "p": ["p"], "li": ["li"], "td": ["td", "th"], "th": ["td", "th"], "tr": ["tr", "td", "th"],
        "dt": ["dt", "dd"], "dd": ["dt", "dd"],
    ]
    /// Elements that stop the search for an implied end tag.
    static let scopeBarriers: Set<String> = ["ul", "ol", "table", "body", "html"]

    init(input: [UInt8]) {
        self.input = input
        stack.append(HTMLElement(name: "#root", char: CharacterAttributes()))
    }

    var top: HTMLElement { stack[stack.count - 1] }

    mutating func warn(_ message: String) {
        if warnings.count < 50 && !warnings.contains(message) { warnings.append(message) }
    }

    // MARK: - Tokenizer

    mutating func run() {
        let end = input.count
        while position < end {
            if input[position] == 0x3C {  // <
                tag()
            } else {
                let start = position
                while position < end && input[position] != 0x3C { position += 1 }
                text(input[start..<position])
            }
        }
    }

    @inline(__always) static func isNameByte(_ b: UInt8) -> Bool {
        (b >= 0x61 && b <= 0x7A) || (b >= 0x41 && b <= 0x5A) || (b >= 0x30 && b <= 0x39) || b == 0x2D || b == 0x3A || b == 0x5F
    }

    mutating func tag() {
        let end = input.count
        let start = position
        position += 1
        guard position < end else { text(input[start..<end]); return }
        let b = input[position]
        if b == 0x21 {  // <!
            if input[position...].starts(with: Array("!--".utf8)) {
                position = find(Array("-->".utf8), from: position + 3).map { $0 + 3 } ?? end
            } else {
                position = find([0x3E], from: position).map { $0 + 1 } ?? end
            }
            return
        }
        if b == 0x3F {  // <?
            position = find([0x3E], from: position).map { $0 + 1 } ?? end
            return
        }
        var closing = false
        if b == 0x2F {
            closing = true
            position += 1
        }
        let nameStart = position
        while position < end && HTMLParser.isNameByte(input[position]) { position += 1 }
        guard position > nameStart, (input[nameStart] | 0x20) >= 0x61, (input[nameStart] | 0x20) <= 0x7A else {
            if closing {  // `</ junk>` is a bogus comment
                position = find([0x3E], from: position).map { $0 + 1 } ?? end
            } else {
                position = start + 1
                text(input[start..<position])
            }
            return
        }
        let name = String(decoding: input[nameStart..<position], as: UTF8.self).lowercased()
        var attributes: [String: String] = [:]
        var selfClosing = false
        while position < end {
            let c = input[position]
            if c == 0x3E { position += 1; break }
            if c == 0x2F { selfClosing = true; position += 1; continue }
            if c <= 0x20 { position += 1; continue }
            let attributeStart = position
            while position < end, input[position] > 0x20, input[position] != 0x3D, input[position] != 0x3E,
                input[position] != 0x2F
            {
                position += 1
            }
            if position == attributeStart { position += 1; continue }
            let attributeName = String(decoding: input[attributeStart..<position], as: UTF8.self).lowercased()
            while position < end, input[position] <= 0x20 { position += 1 }
            var value = ""
            if position < end, input[position] == 0x3D {
                position += 1
                while position < end, input[position] <= 0x20 { position += 1 }
                if position < end, input[position] == 0x22 || input[position] == 0x27 {
                    let quote = input[position]
                    let valueStart = position + 1
                    let valueEnd = find([quote], from: valueStart) ?? end
                    value = HTMLParser.decodeEntities(input[valueStart..<valueEnd])
                    position = min(valueEnd + 1, end)
                } else {
                    let valueStart = position
                    while position < end, input[position] > 0x20, input[position] != 0x3E { position += 1 }
                    value = HTMLParser.decodeEntities(input[valueStart..<position])
                }
            }
            selfClosing = false
            if attributes[attributeName] == nil { attributes[attributeName] = value }
        }
        if closing {
            endTag(name)
        } else {
            startTag(name, attributes)
            if HTMLParser.rawTextElements.contains(name) && !selfClosing {
                let closer = Array("</\(name)".utf8)
                position = findCaseInsensitive(closer, from: position) ?? end
            } else if selfClosing && !HTMLParser.voidElements.contains(name) {
                endTag(name)
            }
        }
    }

    func find(_ needle: [UInt8], from: Int) -> Int? {
        guard !needle.isEmpty, from <= input.count - needle.count else { return nil }
        var index = from
        let last = input.count - needle.count
        while index <= last {
            if input[index] == needle[0] {
                var match = true
                for k in 1..<needle.count where input[index + k] != needle[k] {
                    match = false
                    break
                }
                if match { return index }
            }
            index += 1
        }
        return nil
    }

    func findCaseInsensitive(_ needle: [UInt8], from: Int) -> Int? {
        guard from <= input.count - needle.count else { return nil }
        var index = from
        while index <= input.count - needle.count {
            var match = true
            for k in 0..<needle.count where (input[index + k] | 0x20) != (needle[k] | 0x20) {
                match = false
                break
            }
            if match { return index }
            index += 1
        }
        return nil
    }

    // MARK: - Text

    mutating func text(_ raw: ArraySlice<UInt8>) {
        if top.dropsContent { return }
        if top.isListMarker {
            let symbolFont = top.char.fontFamily.flatMap { SymbolFont.forFont(name: $0, charset: nil) }
            for scalar in HTMLParser.decodeEntities(raw).unicodeScalars where listMarker.count < 32 {
                if scalar == " " || scalar == "\u{00A0}" || scalar == "\n" || scalar == "\r" || scalar == "\t" { continue }
                // Word writes Symbol and Wingdings bullets as the font's byte (Symbol `·` is •).
                listMarker.append(symbolFont?.remap(scalar) ?? scalar)
            }
            return
        }
        let preserve = top.preserveWhitespace
        var decoded: [UInt8] = []
        if raw.contains(0x26) {
            decoded = Array(HTMLParser.decodeEntities(raw).utf8)
        } else {
            decoded = Array(raw)
        }
        if preserve {
            let onlyWhitespace = decoded.allSatisfy { $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }
            if onlyWhitespace && decoded.contains(0x0A) && runs.isEmpty && runBytes.isEmpty { return }
            var index = 0
            while index < decoded.count {
                let c = decoded[index]
                if c == 0x0D && index + 1 < decoded.count && decoded[index + 1] == 0x0A { index += 1; continue }
                if c == 0x0A || c == 0x0D {
                    commitParagraph()
                } else {
                    appendByte(c)
                }
                index += 1
            }
            return
        }
        for c in decoded {
            if c == 0x20 || c == 0x09 || c == 0x0A || c == 0x0D || c == 0x0C {
                if !lastWasSpace {
                    appendByte(0x20)
                    lastWasSpace = true
                }
            } else {
                appendByte(c)
                lastWasSpace = false
            }
        }
    }

    @inline(__always)
    mutating func appendByte(_ c: UInt8) {
        if runVersion != stackVersion {
            runVersion = stackVersion
            let current = stack[stack.count - 1].char
            if runAttributes != current {
                flushRun()
                runAttributes = current
            }
        }
        runBytes.append(c)
    }

    mutating func appendScalar(_ scalar: Unicode.Scalar) {
        for c in String(scalar).utf8 { appendByte(c) }
        lastWasSpace = false
    }

    mutating func flushRun() {
        guard !runBytes.isEmpty else { return }
        runs.append(TextRun(String(decoding: runBytes, as: UTF8.self), runAttributes))
        runBytes.removeAll(keepingCapacity: true)
    }

    static func decodeEntities(_ raw: ArraySlice<UInt8>) -> String {
        if !raw.contains(0x26) { return String(decoding: raw, as: UTF8.self) }
        var out = String.UnicodeScalarView()
        var bytes: [UInt8] = []
        var index = raw.startIndex
        func flush() {
            if !bytes.isEmpty {
                out.append(contentsOf: String(decoding: bytes, as: UTF8.self).unicodeScalars)
                bytes.removeAll()
            }
        }
        while index < raw.endIndex {
            let c = raw[index]
            guard c == 0x26 else {
                bytes.append(c)
                index += 1
                continue
            }
            var end = index + 1
            while end < raw.endIndex, end - index < 34, raw[end] != 0x3B, HTMLParser.isNameByte(raw[end]) || raw[end] == 0x23 { end += 1 }
            let body = String(decoding: raw[(index + 1)..<end], as: UTF8.self)
            let terminated = end < raw.endIndex && raw[end] == 0x3B
            var scalar: Unicode.Scalar?
            if body.hasPrefix("#x") || body.hasPrefix("#X") {
                if let v = UInt32(body.dropFirst(2), radix: 16) { scalar = HTMLEntities.numeric(v) }
                else if body.count > 2 { scalar = "\u{FFFD}" }
            } else if body.hasPrefix("#") {
                if let v = UInt32(body.dropFirst()) { scalar = HTMLEntities.numeric(v) }
                else if body.count > 1 { scalar = "\u{FFFD}" }
            } else if terminated || ["amp", "lt", "gt", "quot", "nbsp"].contains(body) {
                scalar = HTMLEntities.table[body]
            }
            if let scalar {
                flush()
                out.append(scalar)
                index = terminated ? end + 1 : end
            } else {
                bytes.append(c)
                index += 1
            }
        }
        flush()
        return String(out)
    }

    // MARK: - Paragraphs

    mutating func commitParagraph(force: Bool = false) {
        flushRun()
        // Trailing collapsible space and one trailing <br> do not show.
        if !top.preserveWhitespace, var last = runs.last, last.attributes.attachment == nil {
            while last.text.hasSuffix(" ") { last.text.removeLast() }
            runs[runs.count - 1] = last
            if last.text.isEmpty { runs.removeLast() }
        }
        if var last = runs.last, last.text.hasSuffix("\u{2028}") {
            last.text.unicodeScalars.removeLast()
            runs[runs.count - 1] = last
            if last.text.isEmpty { runs.removeLast() }
            if runs.isEmpty {  // `<div><br></div>`: an empty line
                paragraphs.append(Paragraph(runs: [], attributes: paragraphAttributes()))
                lastWasSpace = true
                return
            }
        }
        if runs.isEmpty && !force { return }
        paragraphs.append(Paragraph(runs: runs, attributes: paragraphAttributes()))
        runs = []
        lastWasSpace = true
        listMarker = String.UnicodeScalarView()
    }

    func paragraphAttributes() -> ParagraphAttributes {
        var a = ParagraphAttributes()
        if let mso = stack.last(where: { $0.msoList != nil })?.msoList {
            let marker = String(listMarker)
            a.list = ListMembership(id: mso.id, level: mso.level, kind: ListKind(marker: marker), marker: marker)
        }
        var alignment: TextAlignment?
        for element in stack.reversed() {
            if alignment == nil { alignment = element.alignment }
            if a.headingLevel == nil { a.headingLevel = element.headingLevel }
            if a.list == nil, a.tableCell == nil { a.list = element.list }
            if a.tableCell == nil, a.list == nil || element.cell == nil { a.tableCell = element.cell }
        }
        for element in stack.reversed() where element.leftIndent != nil || element.rightIndent != nil
            || element.firstLineIndent != nil || element.spaceBefore != nil || element.spaceAfter != nil
        {
            a.leftIndent = element.leftIndent ?? 0
            a.rightIndent = element.rightIndent ?? 0
            a.firstLineIndent = element.firstLineIndent ?? 0
            a.spaceBefore = element.spaceBefore ?? 0
            a.spaceAfter = element.spaceAfter ?? 0
            break
        }
        a.alignment = alignment ?? .natural
        if let list = a.list, a.leftIndent == 0, a.firstLineIndent == 0 {
            // As RTF lists are written (and browsers indent them): 36 pt per level, marker hanging 18 pt.
            a.leftIndent = Double(36 * (list.level + 1))
            a.firstLineIndent = -18
        }
        return a
    }

    // MARK: - Elements

    mutating func startTag(_ name: String, _ attributes: [String: String]) {
        if let closes = HTMLParser.autoClose[name] {
            for index in stride(from: stack.count - 1, to: 0, by: -1) {
                let open = stack[index].name
                if closes.contains(open) {
                    endTag(open)
                    break
                }
                if HTMLParser.scopeBarriers.contains(open) || (name == "li" && (open == "ul" || open == "ol")) { break }
            }
        }
        let isBlock = HTMLParser.blockElements.contains(name)
        if isBlock { commitParagraph() }
        switch name {
        case "br":
            appendScalar("\u{2028}")
            return
        case "img":
            image(attributes)
            return
        case "hr":
            return
        default: break
        }
        if HTMLParser.voidElements.contains(name) { return }
        if stack.count > HTMLReader.maximumDepth {
            if !depthWarned {
                depthWarned = true
                warn("elements nested deeper than \(HTMLReader.maximumDepth); inner formatting ignored")
            }
            return
        }

        var element = HTMLElement(name: name, char: top.char)
        element.preserveWhitespace = top.preserveWhitespace
        element.dropsContent = top.dropsContent
        element.isListMarker = top.isListMarker
        element.paragraphsAtOpen = paragraphs.count
        var c = element.char
        switch name {
        case "b", "strong": c.bold = true
        case "i", "em", "cite", "var", "dfn": c.italic = true
        case "u", "ins": c.underline = .single
        case "s", "strike", "del": c.strikethrough = .single
        case "sup": c.baseline = .superscript
        case "sub": c.baseline = .subscript
        case "code", "tt", "kbd", "samp": c.fontFamily = "Courier"
        case "pre":
            c.fontFamily = "Courier"
            element.preserveWhitespace = true
        case "mark": c.backgroundColor = RGBColor(red: 255, green: 255, blue: 0)
        case "a":
            if let href = attributes["href"], !href.isEmpty {
                c.link = Link(url: href, title: attributes["title"].flatMap { $0.isEmpty ? nil : $0 })
            }
        case "font":
            if let color = attributes["color"].flatMap(CSS.color) { c.foregroundColor = color }
            if let face = attributes["face"] { c.fontFamily = CSS.firstFamily(face) }
            if let size = attributes["size"].flatMap({ Int($0) }) {
                c.fontSize = [7.5, 10, 12, 13.5, 18, 24, 36][max(1, min(size, 7)) - 1]
            }
        case "h1", "h2", "h3", "h4", "h5", "h6":
            element.headingLevel = Int(String(name.last!))
        case "ul", "ol":
            element.isList = true
            var kind = ListKind.bullet
            if name == "ol" {
                switch attributes["type"] {
                case "a": kind = .lowerAlpha
                case "A": kind = .upperAlpha
                case "i": kind = .lowerRoman
                case "I": kind = .upperRoman
                default: kind = .decimal
                }
            }
            let id: Int
            if let outer = lists.first {
                id = outer.id
            } else {
                listCount += 1
                id = listCount
            }
            let start = attributes["start"].flatMap { Int($0) } ?? 1
            lists.append(ListState(id: id, kind: kind, counter: start - 1))
        case "li":
            if lists.isEmpty {
                listCount += 1
                lists.append(ListState(id: listCount, kind: .bullet, counter: 0))
                element.isList = true
            }
            var state = lists[lists.count - 1]
            if let value = attributes["value"].flatMap({ Int($0) }) { state.counter = value } else { state.counter += 1 }
            lists[lists.count - 1] = state
            let level = lists.count - 1
            // Browsers draw nested bullets as disc, circle, square.
            let marker = state.kind == .bullet ? ["•", "◦", "▪"][min(level, 2)] : state.kind.marker(number: state.counter)
            element.list = ListMembership(id: state.id, level: level, kind: state.kind, marker: marker)
        case "table":
            element.isTable = true
            tableCount += 1
            tables.append(TableState(id: tableCount))
        case "tr":
            if !tables.isEmpty {
                tables[tables.count - 1].row += 1
                tables[tables.count - 1].column = -1
            }
        case "td", "th":
            if tables.isEmpty {
                tableCount += 1
                tables.append(TableState(id: tableCount))
                element.isTable = true
            }
            var t = tables[tables.count - 1]
            t.row = max(t.row, 0)
            t.column += 1
            let columnSpan = max(1, min(attributes["colspan"].flatMap { Int($0) } ?? 1, 1000))
            let rowSpan = max(1, min(attributes["rowspan"].flatMap { Int($0) } ?? 1, 65534))
            element.cell = TableCell(
                table: t.id, row: t.row, column: t.column, isHeader: name == "th", columnSpan: columnSpan, rowSpan: rowSpan)
            t.column += columnSpan - 1
            tables[tables.count - 1] = t
        case "head", "script", "style", "title", "template", "noscript", "textarea", "xmp", "object":
            element.dropsContent = true
        case "center":
            element.alignment = .center
        default: break
        }
        // Footnote and endnote text is not body text: LibreOffice's `<div id="sdfootnote1">` and Word's
        // `mso-element: footnote-list` blocks (the anchors stay, as in the RTF reader).
        if name == "div", let id = attributes["id"]?.lowercased(), id.hasPrefix("sdfootnote") || id.hasPrefix("sdendnote") {
            element.dropsContent = true
        }
        if let align = attributes["align"] { element.alignment = CSS.alignment(align) ?? element.alignment }
        if let style = attributes["style"] { applyStyle(style, to: &c, element: &element) }
        element.char = c
        stack.append(element)
        openCounts[name, default: 0] += 1
        stackVersion &+= 1
    }

    /// Applies a `style` attribute, parsing each distinct style string once (clipboard HTML repeats them).
    mutating func applyStyle(_ style: String, to c: inout CharacterAttributes, element: inout HTMLElement) {
        let declarations: [(String, String)]
        if let cached = styleCache[style] {
            declarations = cached
        } else {
            declarations = CSS.declarations(style)
            if styleCache.count < 4096 { styleCache[style] = declarations }
        }
        CSS.apply(declarations, to: &c, element: &element)
        for (property, value) in declarations where property == "font-family" {
            if let cached = familyCache[value] {
                c.fontFamily = cached
            } else {
                let family = CSS.firstFamily(value)
                if familyCache.count < 4096 { familyCache[value] = family }
                c.fontFamily = family
            }
        }
    }

    mutating func endTag(_ name: String) {
        guard openCounts[name, default: 0] > 0, let index = stack.lastIndex(where: { $0.name == name }), index > 0 else { return }
        if HTMLParser.blockElements.contains(name) || stack[index...].contains(where: { HTMLParser.blockElements.contains($0.name) }) {
            let element = stack[index]
            let wantsParagraph = ["p", "h1", "h2", "h3", "h4", "h5", "h6", "li", "td", "th", "pre", "div"].contains(name)
            let force = wantsParagraph && paragraphs.count == element.paragraphsAtOpen && !element.dropsContent
            // Commit with the whole stack in place: the text belongs to the innermost open elements.
            commitParagraph(force: force && (name != "div" || !runs.isEmpty || !runBytes.isEmpty))
        }
        for element in stack[index...].reversed() {
            openCounts[element.name, default: 1] -= 1
            if element.isList && !lists.isEmpty { lists.removeLast() }
            if element.isTable && !tables.isEmpty { tables.removeLast() }
        }
        stack.removeSubrange(index...)
        stackVersion &+= 1
    }

    mutating func image(_ attributes: [String: String]) {
        guard !top.dropsContent else { return }
        guard let src = attributes["src"], src.hasPrefix("data:"), let comma = src.firstIndex(of: ",") else {
            warn("dropped an image that is not a data: URI")
            return
        }
        let header = src[src.index(src.startIndex, offsetBy: 5)..<comma]
        let payload = src[src.index(after: comma)...]
        let parts = header.split(separator: ";")
        let mime = parts.first.map { String($0).lowercased() } ?? "application/octet-stream"
        let data: [UInt8]?
        if parts.contains("base64") {
            data = Base64.decode(Array(payload.utf8))
        } else {
            data = HTMLParser.percentDecoded(Array(payload.utf8))
        }
        guard let data, !data.isEmpty else {
            warn("dropped an image with an invalid data: URI")
            return
        }
        imageCount += 1
        var fileName = "image\(imageCount).\(Attachment.fileExtension(forMIMEType: mime))"
        if let alt = attributes["alt"], alt.contains("."), !alt.contains("/"), alt.count < 256 { fileName = alt }
        var width = attributes["width"].flatMap { CSS.length($0 + "px") }
        var height = attributes["height"].flatMap { CSS.length($0 + "px") }
        if let style = attributes["style"] {
            for (property, value) in CSS.declarations(style) {
                if property == "width" { width = CSS.length(value) ?? width }
                if property == "height" { height = CSS.length(value) ?? height }
            }
        }
        flushRun()
        runVersion = 0
        var a = top.char
        a.attachment = Attachment(fileName: fileName, mimeType: mime, bytes: data, width: width, height: height)
        runs.append(TextRun("\u{FFFC}", a))
        lastWasSpace = false
    }

    /// `%hh` escapes decoded; a malformed escape is kept as written.
    static func percentDecoded(_ bytes: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var index = 0
        func hex(_ b: UInt8) -> UInt8? {
            switch b {
            case 0x30...0x39: return b - 0x30
            case 0x41...0x46: return b - 0x41 + 10
            case 0x61...0x66: return b - 0x61 + 10
            default: return nil
            }
        }
        while index < bytes.count {
            if bytes[index] == 0x25, index + 2 < bytes.count, let high = hex(bytes[index + 1]), let low = hex(bytes[index + 2]) {
                out.append(high << 4 | low)
                index += 3
            } else {
                out.append(bytes[index])
                index += 1
            }
        }
        return out
    }

    mutating func finish() -> ReadResult {
        commitParagraph()
        return ReadResult(document: AttributedDocument(paragraphs: paragraphs, endsWithParagraphBreak: true), warnings: warnings)
    }
}

/// The small part of CSS that clipboard HTML uses for character and paragraph formatting.
private enum CSS {
    static func declarations(_ style: String) -> [(String, String)] {
        style.split(separator: ";").compactMap { declaration in
            guard let colon = declaration.firstIndex(of: ":") else { return nil }
            let property = trimmed(declaration[..<colon]).lowercased()
            var value = trimmed(declaration[declaration.index(after: colon)...])
            if value.hasSuffix("important"), let bang = value.lastIndex(of: "!") { value = trimmed(value[..<bang]) }
            return (property, String(value))
        }
    }

    static func trimmed(_ s: Substring) -> Substring {
        var s = s
        while let first = s.first, first == " " || first == "\t" || first == "\n" || first == "\r" { s = s.dropFirst() }
        while let last = s.last, last == " " || last == "\t" || last == "\n" || last == "\r" { s = s.dropLast() }
        return s
    }

    static func apply(_ declarations: [(String, String)], to c: inout CharacterAttributes, element: inout HTMLElement) {
        var decorationStyle: String?
        var thick = false
        var words = false
        for (property, value) in declarations {
            let lower = value.lowercased()
            switch property {
            case "font-weight":
                if lower == "bold" || lower == "bolder" { c.bold = true }
                else if lower == "normal" || lower == "lighter" { c.bold = false }
                else if let weight = Int(lower) { c.bold = weight >= 600 }
            case "font-style":
                c.italic = lower == "italic" || lower == "oblique"
            case "text-decoration", "text-decoration-line":
                if lower.contains("underline") { c.underline = .single }
                if lower.contains("line-through") { c.strikethrough = .single }
                for word in ["double", "dotted", "dashed", "wavy"] where lower.contains(word) { decorationStyle = word }
            case "text-decoration-style": decorationStyle = lower
            case "text-decoration-thickness": thick = true
            case "text-decoration-skip": words = lower.contains("spaces")
            case "color": if let color = color(lower) { c.foregroundColor = color }
            case "background-color", "background":
                if lower == "transparent" || lower == "none" { c.backgroundColor = nil }
                else if let color = color(lower.split(separator: " ").first.map(String.init) ?? lower) { c.backgroundColor = color }
            case "font-size": if let size = fontSize(lower, parent: c.fontSize ?? 12) { c.fontSize = size }
            case "font-family": break  // resolved by the parser with a cache
            case "vertical-align":
                if lower == "super" { c.baseline = .superscript }
                else if lower == "sub" { c.baseline = .subscript }
                else if lower == "baseline" { c.baseline = .normal }
            case "display": if lower == "none" { element.dropsContent = true }
            case "visibility": if lower == "hidden" { c.hidden = true }
            case "text-align": element.alignment = alignment(lower) ?? element.alignment
            case "margin-left": element.leftIndent = length(lower)
            case "margin-right": element.rightIndent = length(lower)
            case "text-indent": element.firstLineIndent = length(lower)
            case "margin-top": element.spaceBefore = length(lower)
            case "margin-bottom": element.spaceAfter = length(lower)
            case "white-space": element.preserveWhitespace = lower.hasPrefix("pre") || lower == "break-spaces"
            case "mso-element":
                if lower.hasPrefix("footnote") || lower.hasPrefix("endnote") || lower.hasPrefix("comment") {
                    element.dropsContent = true
                }
            case "mso-list":
                if lower == "ignore" {
                    element.isListMarker = true
                } else if let level = lower.split(separator: " ").first(where: { $0.hasPrefix("level") }).flatMap({ Int($0.dropFirst(5)) }) {
                    let id = lower.split(separator: " ").first(where: { $0.hasPrefix("lfo") }).flatMap { Int($0.dropFirst(3)) } ?? 1
                    element.msoList = (id: 1000 + max(0, min(id, 100_000)), level: max(0, min(level - 1, 8)))
                }
            default: break
            }
        }
        if c.underline != .none {
            if thick { c.underline = .thick }
            if words { c.underline = .words }
            switch decorationStyle {
            case "double": c.underline = .double
            case "dotted": c.underline = .dotted
            case "dashed": c.underline = .dashed
            case "wavy": c.underline = .wave
            default: break
            }
        } else if c.strikethrough != .none, decorationStyle == "double" {
            c.strikethrough = .double
        }
        if element.name == "s" || element.name == "strike" || element.name == "del", decorationStyle == "double" {
            c.strikethrough = .double
            if c.underline == .double && !declarations.contains(where: { $0.1.lowercased().contains("underline") }) { c.underline = .none }
        }
    }

    static func alignment(_ value: String) -> TextAlignment? {
        switch value.lowercased() {
        case "left", "start": return .left
        case "center", "middle": return .center
        case "right", "end": return .right
        case "justify": return .justified
        default: return nil
        }
    }

    /// A CSS length in points (pt, px, em relative to 12 pt, in, cm, mm); nil for others and for lengths beyond
    /// ±10⁶ pt (no page is that large; it keeps infinities and overflows out of the model).
    static func length(_ value: String) -> Double? {
        guard let points = unboundedLength(value), points.isFinite, abs(points) <= 1e6 else { return nil }
        return points
    }

    static func unboundedLength(_ value: String) -> Double? {
        let v = trimmed(value[...]).lowercased()
        func number(_ suffix: String) -> Double? { v.hasSuffix(suffix) ? Double(v.dropLast(suffix.count)) : nil }
        if let n = number("pt") { return n }
        if let n = number("px") { return n * 0.75 }
        if let n = number("rem") { return n * 12 }
        if let n = number("em") { return n * 12 }
        if let n = number("in") { return n * 72 }
        if let n = number("cm") { return n * 72 / 2.54 }
        if let n = number("mm") { return n * 72 / 25.4 }
        if v == "0" { return 0 }
        return nil
    }

    static func fontSize(_ value: String, parent: Double) -> Double? {
        switch value {
        case "xx-small": return 7
        case "x-small": return 7.5
        case "small": return 10
        case "medium": return 12
        case "large": return 13.5
        case "x-large": return 18
        case "xx-large": return 24
        case "xxx-large": return 36
        default: break
        }
        var size: Double?
        if value.hasSuffix("%"), let n = Double(value.dropLast()) {
            size = parent * n / 100
        } else if value.hasSuffix("em"), !value.hasSuffix("rem"), let n = Double(value.dropLast(2)) {
            size = parent * n
        } else {
            size = length(value)
        }
        // Relative sizes compound through nesting: keep every size a font can have.
        guard let size, size > 0, size < 10000 else { return nil }
        return size
    }

    static func firstFamily(_ value: String) -> String? {
        guard let first = value.split(separator: ",").first else { return nil }
        var name = String(trimmed(first))
        if name.count >= 2, let q = name.first, q == "'" || q == "\"", name.last == q {
            name = String(name.dropFirst().dropLast())
            if name.contains("\\") {
                var unescaped = ""
                var escaping = false
                for c in name {
                    if c == "\\" && !escaping { escaping = true; continue }
                    escaping = false
                    unescaped.append(c)
                }
                name = unescaped
            }
        }
        return name.isEmpty ? nil : name
    }

    static let named: [String: RGBColor] = [
        "black": RGBColor(red: 0, green: 0, blue: 0), "white": RGBColor(red: 255, green: 255, blue: 255),
        "red": RGBColor(red: 255, green: 0, blue: 0), "lime": RGBColor(red: 0, green: 255, blue: 0),
        "green": RGBColor(red: 0, green: 128, blue: 0), "blue": RGBColor(red: 0, green: 0, blue: 255),
        "yellow": RGBColor(red: 255, green: 255, blue: 0), "cyan": RGBColor(red: 0, green: 255, blue: 255),
        "aqua": RGBColor(red: 0, green: 255, blue: 255), "magenta": RGBColor(red: 255, green: 0, blue: 255),
        "fuchsia": RGBColor(red: 255, green: 0, blue: 255), "gray": RGBColor(red: 128, green: 128, blue: 128),
        "grey": RGBColor(red: 128, green: 128, blue: 128), "silver": RGBColor(red: 192, green: 192, blue: 192),
        "maroon": RGBColor(red: 128, green: 0, blue: 0), "olive": RGBColor(red: 128, green: 128, blue: 0),
        "navy": RGBColor(red: 0, green: 0, blue: 128), "purple": RGBColor(red: 128, green: 0, blue: 128),
        "teal": RGBColor(red: 0, green: 128, blue: 128), "orange": RGBColor(red: 255, green: 165, blue: 0),
    ]

    static func color(_ value: String) -> RGBColor? {
        let v = trimmed(value[...]).lowercased()
        if v.hasPrefix("#") {
            let hex = Array(v.dropFirst())
            func h(_ c: Character) -> UInt8? { c.hexDigitValue.map(UInt8.init) }
            if hex.count == 6, let r1 = h(hex[0]), let r2 = h(hex[1]), let g1 = h(hex[2]), let g2 = h(hex[3]),
                let b1 = h(hex[4]), let b2 = h(hex[5])
            {
                return RGBColor(red: r1 << 4 | r2, green: g1 << 4 | g2, blue: b1 << 4 | b2)
            }
            if hex.count == 3, let r = h(hex[0]), let g = h(hex[1]), let b = h(hex[2]) {
                return RGBColor(red: r * 17, green: g * 17, blue: b * 17)
            }
            return nil
        }
        if v.hasPrefix("rgb"), let open = v.firstIndex(of: "("), let close = v.firstIndex(of: ")"), open < close {
            let parts = v[v.index(after: open)..<close].split(whereSeparator: { $0 == "," || $0 == " " || $0 == "/" })
            guard parts.count >= 3 else { return nil }
            if parts.count >= 4, let alpha = Double(parts[3]), alpha == 0 { return nil }
            func component(_ s: Substring) -> UInt8? {
                if s.hasSuffix("%"), let p = Double(s.dropLast()) { return UInt8(max(0, min(255, (p * 2.55).rounded()))) }
                return Double(s).map { UInt8(max(0, min(255, $0.rounded()))) }
            }
            guard let r = component(parts[0]), let g = component(parts[1]), let b = component(parts[2]) else { return nil }
            return RGBColor(red: r, green: g, blue: b)
        }
        return named[v]
    }
}
