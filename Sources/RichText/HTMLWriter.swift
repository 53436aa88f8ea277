// SPDX-License-Identifier: Apache-2.0
/// Writes a complete UTF-8 HTML document: `<meta charset="utf-8">`, semantic tags (`p h1–h6 ul ol li table b i
/// u s sup sub a img br`) and inline styles for fonts, sizes, colours, alignment and indents.
///
/// The body is `white-space: pre-wrap` so spaces and tabs survive; block tags are separated by newlines only.
/// Hidden text is dropped; image attachments become `data:` URIs, other attachments are dropped with a warning.
public enum HTMLWriter {
    public static func write(_ document: AttributedDocument) -> ConversionOutput {
        var writer = HTMLBuilder()
        writer.document(document)
        return ConversionOutput(bytes: writer.out, warnings: writer.warnings)
    }
}

private struct HTMLBuilder {
    var out: [UInt8] = []
    var warnings: [String] = []
    /// Open lists, outermost first.
    var lists: [(tag: String, liOpen: Bool)] = []
    var openListID: Int?
    /// `font-family: …` declarations by family, attribute-escaped (computed once per family).
    var fontDeclarations: [String: String] = [:]

    @inline(__always) mutating func emit(_ s: String) { out.append(contentsOf: s.utf8) }

    mutating func document(_ document: AttributedDocument) {
        emit("<!DOCTYPE html>\n<html>\n<head>\n<meta charset=\"utf-8\">\n<title></title>\n</head>\n")
        emit("<body style=\"white-space: pre-wrap\">\n")
        for block in document.blocks {
            switch block {
            case .paragraph(let paragraph, _):
                if let list = paragraph.attributes.list {
                    listItem(paragraph, list)
                } else {
                    closeLists()
                    blockParagraph(paragraph)
                }
            case .table(let table, _):
                closeLists()
                self.table(table)
            }
        }
        closeLists()
        emit("</body>\n</html>\n")
    }

    mutating func blockParagraph(_ paragraph: Paragraph) {
        let tag = paragraph.attributes.headingLevel.map { "h\(min(max($0, 1), 6))" } ?? "p"
        emit("<\(tag)\(paragraphStyle(paragraph.attributes))>")
        inline(paragraph.runs)
        emit("</\(tag)>\n")
    }

    func paragraphStyle(_ a: ParagraphAttributes) -> String {
        var styles: [String] = []
        switch a.alignment {
        case .natural: break
        case .left: styles.append("text-align: left")
        case .center: styles.append("text-align: center")
        case .right: styles.append("text-align: right")
        case .justified: styles.append("text-align: justify")
        }
        if a.leftIndent != 0 { styles.append("margin-left: \(a.leftIndent.compact)pt") }
        if a.rightIndent != 0 { styles.append("margin-right: \(a.rightIndent.compact)pt") }
        if a.firstLineIndent != 0 { styles.append("text-indent: \(a.firstLineIndent.compact)pt") }
        if a.spaceBefore != 0 { styles.append("margin-top: \(a.spaceBefore.compact)pt") }
        if a.spaceAfter != 0 { styles.append("margin-bottom: \(a.spaceAfter.compact)pt") }
        return styles.isEmpty ? "" : " style=\"\(styles.joined(separator: "; "))\""
    }

    // MARK: Lists

    mutating func listItem(_ paragraph: Paragraph, _ list: ListMembership) {
        if openListID != list.id { closeLists() }
        openListID = list.id
        let level = min(list.level, 8)
        while lists.count > level + 1 { closeList() }
        let tag = list.kind.isOrdered ? "ol" : "ul"
        if lists.count == level + 1 && lists[level].tag != tag { closeList() }
        while lists.count < level + 1 {
            let opening = lists.count == level ? tag : "ul"
            var attributes = ""
            if opening == "ol" {
                switch list.kind {
                case .lowerAlpha: attributes += " type=\"a\""
                case .upperAlpha: attributes += " type=\"A\""
                case .lowerRoman: attributes += " type=\"i\""
                case .upperRoman: attributes += " type=\"I\""
                default: break
                }
                if let start = list.markerNumber, start != 1 { attributes += " start=\"\(start)\"" }
            }
            if lists.isEmpty == false && lists[lists.count - 1].liOpen == false {
                emit("<li>")
                lists[lists.count - 1].liOpen = true
            }
            emit("<\(opening)\(attributes)>\n")
            lists.append((opening, false))
        }
        if lists[level].liOpen { emit("</li>\n") }
        lists[level].liOpen = true
        let style = paragraphStyle(ParagraphAttributes(alignment: paragraph.attributes.alignment))
        emit("<li\(style)>")
        if let heading = paragraph.attributes.headingLevel {
            emit("<h\(heading)>")
            inline(paragraph.runs)
            emit("</h\(heading)>")
        } else {
            inline(paragraph.runs)
        }
    }

    mutating func closeList() {
        let last = lists.removeLast()
        if last.liOpen { emit("</li>\n") }
        emit("</\(last.tag)>\n")
    }

    mutating func closeLists() {
        while !lists.isEmpty { closeList() }
        openListID = nil
    }

    // MARK: Tables

    mutating func table(_ table: TableBlock) {
        emit("<table>\n")
        for (rowIndex, row) in table.rows.enumerated() {
            emit("<tr>")
            let cellTag = table.headerRows[rowIndex] ? "th" : "td"
            for cell in row {
                var spans = ""
                if let position = cell.first?.attributes.tableCell {
                    if position.columnSpan > 1 { spans += " colspan=\"\(position.columnSpan)\"" }
                    if position.rowSpan > 1 { spans += " rowspan=\"\(position.rowSpan)\"" }
                }
                emit("<\(cellTag)\(spans)>")
                if cell.count == 1 && cell[0].attributes.headingLevel == nil && cell[0].attributes.list == nil {
                    inline(cell[0].runs)
                } else {
                    for paragraph in cell { blockParagraph(paragraph) }
                }
                emit("</\(cellTag)>")
            }
            emit("</tr>\n")
        }
        emit("</table>\n")
    }

    // MARK: Inline

    mutating func inline(_ runs: [TextRun]) {
        var currentLink: Link?
        for run in runs where !run.attributes.hidden {
            let a = run.attributes
            if a.link != currentLink {
                if currentLink != nil { emit("</a>") }
                if let link = a.link {
                    emit("<a href=\"\(HTMLBuilder.escape(link.url, attribute: true))\"")
                    if let title = link.title { emit(" title=\"\(HTMLBuilder.escape(title, attribute: true))\"") }
                    emit(">")
                }
                currentLink = a.link
            }
            var closers: [String] = []
            var styles: [String] = []
            if let family = a.fontFamily {
                if let declaration = fontDeclarations[family] {
                    styles.append(declaration)
                } else {
                    let declaration = HTMLBuilder.escape("font-family: \(HTMLBuilder.cssFontName(family))", attribute: true)
                    fontDeclarations[family] = declaration
                    styles.append(declaration)
                }
            }
            if let size = a.fontSize { styles.append("font-size: \(size.compact)pt") }
            if let color = a.foregroundColor { styles.append("color: \(HTMLBuilder.hex(color))") }
            if let color = a.backgroundColor { styles.append("background-color: \(HTMLBuilder.hex(color))") }
            if !styles.isEmpty {
                emit("<span style=\"\(styles.joined(separator: "; "))\">")
                closers.append("</span>")
            }
            if a.bold { emit("<b>"); closers.append("</b>") }
            if a.italic { emit("<i>"); closers.append("</i>") }
            switch a.underline {
            case .none: break
            case .single: emit("<u>")
            case .double: emit("<u style=\"text-decoration-style: double\">")
            case .dotted: emit("<u style=\"text-decoration-style: dotted\">")
            case .dashed: emit("<u style=\"text-decoration-style: dashed\">")
            case .wave: emit("<u style=\"text-decoration-style: wavy\">")
            case .thick: emit("<u style=\"text-decoration-thickness: 0.15em\">")
            case .words: emit("<u style=\"text-decoration-skip: spaces\">")
            }
            if a.underline != .none { closers.append("</u>") }
            switch a.strikethrough {
            case .none: break
            case .single: emit("<s>")
            case .double: emit("<s style=\"text-decoration-style: double\">")
            }
            if a.strikethrough != .none { closers.append("</s>") }
            switch a.baseline {
            case .normal: break
            case .superscript: emit("<sup>"); closers.append("</sup>")
            case .subscript: emit("<sub>"); closers.append("</sub>")
            }
            if let attachment = a.attachment {
                image(attachment)
            } else {
                escapeText(run.text)
            }
            for closer in closers.reversed() { emit(closer) }
        }
        if currentLink != nil { emit("</a>") }
    }

    mutating func image(_ attachment: Attachment) {
        guard attachment.mimeType.hasPrefix("image/"), !attachment.bytes.isEmpty else {
            warnings.append("dropped attachment \(attachment.fileName): HTML embeds only images")
            return
        }
        emit("<img src=\"data:\(attachment.mimeType);base64,\(Base64.encode(attachment.bytes))\"")
        emit(" alt=\"\(HTMLBuilder.escape(attachment.fileName, attribute: true))\"")
        var styles: [String] = []
        if let w = attachment.width { styles.append("width: \(w.compact)pt") }
        if let h = attachment.height { styles.append("height: \(h.compact)pt") }
        if !styles.isEmpty { emit(" style=\"\(styles.joined(separator: "; "))\"") }
        emit(">")
    }

    /// Appends text content escaped: `& < >`, NBSP as `&nbsp;`, U+2028 as `<br>`, U+FFFC dropped.
    mutating func escapeText(_ text: String) {
        var text = text
        text.withUTF8 { utf8 in
            var copied = 0
            var index = 0
            let count = utf8.count
            while index < count {
                let b = utf8[index]
                var replacement: StaticString?
                var length = 1
                switch b {
                case 0x26: replacement = "&amp;"
                case 0x3C: replacement = "&lt;"
                case 0x3E: replacement = "&gt;"
                case 0xC2 where index + 1 < count && utf8[index + 1] == 0xA0:
                    replacement = "&nbsp;"
                    length = 2
                case 0xE2 where index + 2 < count && utf8[index + 1] == 0x80 && utf8[index + 2] == 0xA8:
                    replacement = "<br>"
                    length = 3
                case 0xEF where index + 2 < count && utf8[index + 1] == 0xBF && utf8[index + 2] == 0xBC:
                    replacement = ""
                    length = 3
                default: break
                }
                if let replacement {
                    out.append(contentsOf: utf8[copied..<index])
                    replacement.withUTF8Buffer { out.append(contentsOf: $0) }
                    index += length
                    copied = index
                } else {
                    index += 1
                }
            }
            out.append(contentsOf: utf8[copied..<count])
        }
    }

    static func hex(_ c: RGBColor) -> String {
        let digits = Array("0123456789abcdef")
        var s = "#"
        for v in [c.red, c.green, c.blue] {
            s.append(digits[Int(v >> 4)])
            s.append(digits[Int(v & 15)])
        }
        return s
    }

    static func cssFontName(_ name: String) -> String {
        if name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }) { return name }
        return "'" + name.replacing("\\", with: "\\\\").replacing("'", with: "\\'") + "'"
    }

    static func escape(_ text: String, attribute: Bool) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"" where attribute: out += "&quot;"
            case "\u{00A0}": out += "&nbsp;"
            case "\u{2028}" where !attribute: out += "<br>"
            case "\u{FFFC}" where !attribute: break
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}

/// RFC 4648 base64, padded: HTML's `data:` URIs here, OSC 52 in PasteboardCore.
public enum Base64 {
    static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    /// `bytes` encoded, as text.
    public static func encode(_ bytes: [UInt8]) -> String {
        String(decoding: encodedBytes(bytes), as: UTF8.self)
    }

    /// `bytes` encoded, as ASCII bytes.
    public static func encodedBytes(_ bytes: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count + 2) / 3 * 4)
        var index = 0
        while index + 2 < bytes.count {
            let n = UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8 | UInt32(bytes[index + 2])
            out += [alphabet[Int(n >> 18)], alphabet[Int(n >> 12 & 63)], alphabet[Int(n >> 6 & 63)], alphabet[Int(n & 63)]]
            index += 3
        }
        let rest = bytes.count - index
        if rest == 1 {
            let n = UInt32(bytes[index]) << 16
            out += [alphabet[Int(n >> 18)], alphabet[Int(n >> 12 & 63)], 0x3D, 0x3D]
        } else if rest == 2 {
            let n = UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8
            out += [alphabet[Int(n >> 18)], alphabet[Int(n >> 12 & 63)], alphabet[Int(n >> 6 & 63)], 0x3D]
        }
        return out
    }

    /// Decodes base64 (standard or URL alphabet), skipping whitespace; nil on other characters.
    public static func decode<C: Collection>(_ text: C) -> [UInt8]? where C.Element == UInt8 {
        var out: [UInt8] = []
        out.reserveCapacity(text.count * 3 / 4)
        var buffer: UInt32 = 0
        var bits = 0
        for c in text {
            let v: UInt32
            switch c {
            case 0x41...0x5A: v = UInt32(c - 0x41)
            case 0x61...0x7A: v = UInt32(c - 0x61 + 26)
            case 0x30...0x39: v = UInt32(c - 0x30 + 52)
            case 0x2B, 0x2D: v = 62
            case 0x2F, 0x5F: v = 63
            case 0x3D: continue
            case 0x20, 0x09, 0x0A, 0x0D, 0x0C: continue
            default: return nil
            }
            buffer = buffer << 6 | v
            bits += 6
            if bits >= 8 {
                bits -= 8
                out.append(UInt8(buffer >> UInt32(bits) & 0xFF))
            }
        }
        return out
    }
}
