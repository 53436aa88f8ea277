// SPDX-License-Identifier: Apache-2.0
/// Writes a document as UTF-8 plain text.
///
/// The text is the document's running text, as the application that made it would put it on the clipboard:
/// paragraphs of text boxes are left out unless the running text has none (`plainTextParagraphs`).
/// Paragraphs end with `\n`, line breaks (U+2028) become `\n`, list items get their marker indented four spaces
/// per level, table cells are separated by TAB and rows by `\n`. Hidden text and attachments are dropped.
public enum PlainTextWriter {
    public static func write(_ document: AttributedDocument) -> [UInt8] {
        let document = document.plainTextParagraphs
        var out: [UInt8] = []
        for block in document.blocks {
            switch block {
            case .paragraph(let paragraph, let isLast):
                if let list = paragraph.attributes.list {
                    out.append(contentsOf: repeatElement(0x20, count: 4 * list.level))
                    if !list.marker.isEmpty {
                        out.append(contentsOf: list.marker.utf8)
                        out.append(0x20)
                    }
                }
                appendText(of: paragraph, to: &out)
                if !isLast || document.endsWithParagraphBreak { out.append(0x0A) }
            case .table(let table, let isLast):
                for (rowIndex, row) in table.rows.enumerated() {
                    for (cellIndex, cell) in row.enumerated() {
                        if cellIndex > 0 { out.append(0x09) }
                        for (paragraphIndex, paragraph) in cell.enumerated() {
                            if paragraphIndex > 0 { out.append(0x20) }
                            appendText(of: paragraph, to: &out)
                        }
                    }
                    if !(isLast && rowIndex == table.rows.count - 1) || document.endsWithParagraphBreak { out.append(0x0A) }
                }
            }
        }
        return out
    }

    static func appendText(of paragraph: Paragraph, to out: inout [UInt8]) {
        for run in paragraph.runs where !run.attributes.hidden && run.attributes.attachment == nil {
            var text = run.text
            text.withUTF8 { utf8 in
                // U+2028/U+2029 (E2 80 A8/A9) become LF and U+FFFC (EF BF BC) is dropped; the rest is copied.
                var copied = 0
                var index = 0
                let count = utf8.count
                while index < count {
                    let b = utf8[index]
                    if b == 0xE2, index + 2 < count, utf8[index + 1] == 0x80, utf8[index + 2] == 0xA8 || utf8[index + 2] == 0xA9 {
                        out.append(contentsOf: utf8[copied..<index])
                        out.append(0x0A)
                        index += 3
                        copied = index
                    } else if b == 0xEF, index + 2 < count, utf8[index + 1] == 0xBF, utf8[index + 2] == 0xBC {
                        out.append(contentsOf: utf8[copied..<index])
                        index += 3
                        copied = index
                    } else {
                        index += 1
                    }
                }
                out.append(contentsOf: utf8[copied..<count])
            }
        }
    }
}

extension AttributedDocument {
    /// The paragraphs plain text shows: the running text (the main story), without the paragraphs of text boxes
    /// (`ParagraphAttributes.isInTextBox`), as in Word's and LibreOffice's own plain text. When the running text
    /// has no text at all — a copied text box is an empty body and the box — the text boxes' paragraphs instead,
    /// all of them in document order. Each paragraph kept keeps its paragraph break.
    var plainTextParagraphs: AttributedDocument {
        guard paragraphs.contains(where: \.attributes.isInTextBox) else { return self }
        let runningText = paragraphs.indices.filter { !paragraphs[$0].attributes.isInTextBox }
        let kept = runningText.contains { paragraphs[$0].showsText }
            ? runningText : paragraphs.indices.filter { paragraphs[$0].attributes.isInTextBox }
        return AttributedDocument(
            paragraphs: kept.map { paragraphs[$0] },
            endsWithParagraphBreak: endsWithParagraphBreak || kept.last != paragraphs.count - 1)
    }
}

extension Paragraph {
    /// Whether plain text shows a character of this paragraph other than white space (hidden text and
    /// attachments are not shown).
    var showsText: Bool {
        runs.contains { run in
            !run.attributes.hidden && run.attributes.attachment == nil
                && run.text.unicodeScalars.contains { !$0.properties.isWhitespace && $0 != "\u{FFFC}" }
        }
    }
}

/// Reads plain text: UTF-8 (a BOM is dropped), or UTF-16 with a BOM; CRLF and CR count as LF.
/// Every `\n` ends a paragraph; invalid UTF-8 becomes U+FFFD.
public enum PlainTextReader {
    public static func read(_ bytes: [UInt8]) -> ReadResult {
        let text = TextDecoding.decodeUnicodeText(bytes)
        var paragraphs: [Paragraph] = []
        var current = ""
        var previousWasCR = false
        for scalar in text.unicodeScalars {
            if scalar == "\n" && previousWasCR {
                previousWasCR = false
                continue
            }
            previousWasCR = scalar == "\r"
            if scalar == "\n" || scalar == "\r" {
                paragraphs.append(Paragraph(runs: current.isEmpty ? [] : [TextRun(current)]))
                current = ""
            } else {
                current.unicodeScalars.append(scalar)
            }
        }
        var document = AttributedDocument(paragraphs: paragraphs, endsWithParagraphBreak: true)
        if !current.isEmpty {
            document.paragraphs.append(Paragraph(runs: [TextRun(current)]))
            document.endsWithParagraphBreak = false
        }
        return ReadResult(document: document)
    }
}

/// Byte-order and encoding detection shared by the readers (and reusable by the daemon).
public enum TextDecoding {
    /// Decodes UTF-8 or BOM-marked UTF-16/UTF-8 text; invalid sequences become U+FFFD; trailing NULs dropped.
    public static func decodeUnicodeText(_ bytes: [UInt8]) -> String {
        var slice = bytes[...]
        if slice.starts(with: [0xFF, 0xFE]) { return decodeUTF16(slice.dropFirst(2), littleEndian: true) }
        if slice.starts(with: [0xFE, 0xFF]) { return decodeUTF16(slice.dropFirst(2), littleEndian: false) }
        if slice.starts(with: [0xEF, 0xBB, 0xBF]) { slice = slice.dropFirst(3) }
        while slice.last == 0 { slice = slice.dropLast() }
        return String(decoding: slice, as: UTF8.self)
    }

    /// Decodes UTF-16 code units; unpaired surrogates and an odd final byte become U+FFFD; trailing NUL dropped.
    public static func decodeUTF16(_ bytes: ArraySlice<UInt8>, littleEndian: Bool) -> String {
        var units: [UInt16] = []
        units.reserveCapacity(bytes.count / 2)
        var index = bytes.startIndex
        while index + 1 < bytes.endIndex {
            let a = UInt16(bytes[index]), b = UInt16(bytes[index + 1])
            units.append(littleEndian ? a | b << 8 : a << 8 | b)
            index += 2
        }
        while units.last == 0 { units.removeLast() }
        var text = String(decoding: units, as: UTF16.self)
        if index < bytes.endIndex && bytes[index] != 0 { text += "\u{FFFD}" }
        return text
    }
}
