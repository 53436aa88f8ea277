// SPDX-License-Identifier: Apache-2.0
/// Writes 7-bit RTF that Word, LibreOffice, pandoc and this package's reader read back.
///
/// `{\rtf1\ansi\ansicpg1252\deff0\uc1`, a braced font table, a colour table with an empty first entry, one
/// `\pard` per paragraph, one group per run, `HYPERLINK` fields, tables as `\trowd … \cell … \row`.
/// Characters outside ASCII are `\'hh` when cp1252 has them, else `\uN?` (surrogate pairs beyond the BMP).
/// Attachments: PNG/JPEG as `\pict` (plain RTF), or `\NeXTGraphic` references (`.nextGraphic`, for RTFD).
public enum RTFWriter {
    public enum AttachmentStyle: Sendable {
        /// Embed PNG and JPEG as `{\*\shppict{\pict …}}`; drop other attachments with a warning.
        case picture
        /// Reference attachments by file name as Cocoa does inside RTFD.
        case nextGraphic
    }

    public static func write(_ document: AttributedDocument, attachments: AttachmentStyle = .picture) -> ConversionOutput {
        var builder = RTFBuilder(style: attachments)
        builder.write(document)
        return ConversionOutput(bytes: builder.out, warnings: builder.warnings)
    }
}

private struct RTFBuilder {
    let style: RTFWriter.AttachmentStyle
    var out: [UInt8] = []
    var warnings: [String] = []
    var fonts: [String: Int] = [:]
    var colors: [RGBColor: Int] = [:]

    init(style: RTFWriter.AttachmentStyle) {
        self.style = style
        out.reserveCapacity(4096)
    }

    mutating func emit(_ s: String) { out.append(contentsOf: s.utf8) }

    mutating func write(_ document: AttributedDocument) {
        var fontNames: [String] = []
        var colorList: [RGBColor] = []
        for paragraph in document.paragraphs {
            for run in paragraph.runs {
                if let f = run.attributes.fontFamily, fonts[f] == nil {
                    fonts[f] = fontNames.count
                    fontNames.append(f)
                }
                for c in [run.attributes.foregroundColor, run.attributes.backgroundColor] {
                    if let c, colors[c] == nil {
                        colorList.append(c)
                        colors[c] = colorList.count
                    }
                }
            }
        }
        emit("{\\rtf1\\ansi\\ansicpg1252\\deff0\\uc1\n{\\fonttbl")
        if fontNames.isEmpty { fontNames = [] }
        for (index, name) in fontNames.enumerated() {
            emit("{\\f\(index)\\fnil\\fcharset0 ")
            text(name, inFontTable: true)
            emit(";}")
        }
        emit("}\n{\\colortbl;")
        for c in colorList { emit("\\red\(c.red)\\green\(c.green)\\blue\(c.blue);") }
        emit("}\n")
        styleSheet(document)
        listTable(document)
        for block in document.blocks {
            switch block {
            case .paragraph(let paragraph, let isLast):
                paragraphStart(paragraph.attributes, inTable: false)
                runs(paragraph.runs)
                emit(isLast && !document.endsWithParagraphBreak ? "\n" : "\\par\n")
            case .table(let table, _):
                self.table(table)
            }
        }
        emit("}\n")
    }

    /// `\\trowd … \\cell … \\row` rows on a grid of 2 inch columns. A merged cell is written as Word does: its first
    /// grid cell `\\clmgf`/`\\clvmgf`, the cells it covers `\\clmrg`/`\\clvmrg` and empty.
    mutating func table(_ table: TableBlock) {
        var coveredFromAbove: [Int: Int] = [:]  // grid column → rows still covered by a cell above
        var spanOfCover: [Int: Int] = [:]  // grid column → column span of that cell
        for (rowIndex, row) in table.rows.enumerated() {
            // Lay the row's cells on the grid around the columns covered by cells of earlier rows.
            var slots: [(cell: [Paragraph]?, merge: String, columnSpan: Int)] = []
            var column = 0
            var cells = row[...]
            while !cells.isEmpty || coveredFromAbove[column] != nil {
                if let rows = coveredFromAbove[column], rows > 0 {
                    let span = spanOfCover[column] ?? 1  // ≥ 1: stored from a clamped column span
                    slots.append((nil, "\\clvmrg", 1))
                    for _ in 1..<span { slots.append((nil, "\\clvmrg\\clmrg", 1)) }
                    coveredFromAbove[column] = rows - 1 == 0 ? nil : rows - 1
                    column += span
                    continue
                }
                guard let cell = cells.popFirst() else { break }
                let position = cell.first?.attributes.tableCell
                let columnSpan = max(1, min(position?.columnSpan ?? 1, 63))
                let rowSpan = max(1, min(position?.rowSpan ?? 1, 1000))
                var merge = columnSpan > 1 ? "\\clmgf" : ""
                if rowSpan > 1 {
                    merge = "\\clvmgf" + merge
                    coveredFromAbove[column] = rowSpan - 1
                    spanOfCover[column] = columnSpan
                }
                slots.append((cell, merge, columnSpan))
                for _ in 1..<columnSpan { slots.append((nil, rowSpan > 1 ? "\\clvmgf\\clmrg" : "\\clmrg", 1)) }
                column += columnSpan
            }
            emit("\\trowd")
            if table.headerRows[rowIndex] { emit("\\trhdr") }
            for (index, slot) in slots.enumerated() { emit("\(slot.merge)\\cellx\((index + 1) * 2880)") }
            emit("\n")
            for slot in slots {
                guard let cell = slot.cell else {
                    emit("\\pard\\plain\\intbl \\cell\n")
                    continue
                }
                for (index, paragraph) in cell.enumerated() {
                    paragraphStart(paragraph.attributes, inTable: true)
                    runs(paragraph.runs)
                    emit(index == cell.count - 1 ? "\\cell\n" : "\\par\n")
                }
            }
            emit("\\row\n")
        }
        emit("\\pard\n")
    }

    /// Paragraph styles `heading 1`…`heading 6` for the levels the document uses: LibreOffice and Word know a
    /// heading by its style (`\\s1`), the outline level alone leaves it a body paragraph.
    mutating func styleSheet(_ document: AttributedDocument) {
        let levels = Set(document.paragraphs.compactMap(\.attributes.headingLevel).map { max(1, min($0, 6)) })
        guard !levels.isEmpty else { return }
        emit("{\\stylesheet{\\s0 Normal;}")
        for level in levels.sorted() {
            emit("{\\s\(level)\\outlinelevel\(level - 1)\\sbasedon0\\snext0 heading \(level);}")
        }
        emit("}\n")
    }

    /// Word's list table, so that Word, LibreOffice and pandoc know each list's numbering (`\\lsN` = list N).
    mutating func listTable(_ document: AttributedDocument) {
        var kinds: [Int: [Int: ListKind]] = [:]
        var bullets: [Int: [Int: String]] = [:]
        var starts: [Int: [Int: Int]] = [:]
        var order: [Int] = []
        for paragraph in document.paragraphs {
            guard let list = paragraph.attributes.list, list.id > 0 else { continue }
            if kinds[list.id] == nil { order.append(list.id) }
            if kinds[list.id, default: [:]][list.level] == nil {
                kinds[list.id, default: [:]][list.level] = list.kind
                if list.kind == .bullet { bullets[list.id, default: [:]][list.level] = list.marker }
                if let number = list.markerNumber { starts[list.id, default: [:]][list.level] = number }
            }
        }
        guard !order.isEmpty else { return }
        emit("{\\*\\listtable")
        for id in order {
            emit("{\\list\\listtemplateid\(id)\\listhybrid")
            for level in 0..<9 {
                let kind = kinds[id]?[level] ?? .bullet
                let nfc = kind.wordNumberFormat
                emit("{\\listlevel\\levelnfc\(nfc)\\levelnfcn\(nfc)\\leveljc0\\levelstartat\(starts[id]?[level] ?? 1)\\levelfollow0")
                if kind == .bullet {
                    // The level's own bullet (one character, as Word's template allows), else •.
                    // As `\\uN ?` (a `\\'hh` would be read in the level's font, often Symbol).
                    let bullet = bullets[id]?[level]?.unicodeScalars.first.flatMap { $0.value <= 0xFFFF && $0.value >= 0x20 ? $0 : nil } ?? "\u{2022}"
                    emit("{\\leveltext\\'01")
                    if bullet.value < 0x80 { text(String(bullet), inFontTable: false) } else { unicodeUnit(Int(bullet.value)) }
                    emit(";}{\\levelnumbers;}")
                } else {
                    emit("{\\leveltext\\'02\\'0\(level).;}{\\levelnumbers\\'01;}")
                }
                emit("\\fi-360\\li\((level + 1) * 720)}")
            }
            emit("\\listid\(id)}")
        }
        emit("}\n{\\*\\listoverridetable")
        for id in order { emit("{\\listoverride\\listid\(id)\\listoverridecount0\\ls\(id)}") }
        emit("}\n")
    }

    mutating func paragraphStart(_ a: ParagraphAttributes, inTable: Bool) {
        emit("\\pard\\plain")
        if inTable { emit("\\intbl") }
        switch a.alignment {
        case .natural: break
        case .left: emit("\\ql")
        case .center: emit("\\qc")
        case .right: emit("\\qr")
        case .justified: emit("\\qj")
        }
        func twips(_ pt: Double) -> Int { (pt * 20).clampedInt }
        if a.leftIndent != 0 { emit("\\li\(twips(a.leftIndent))") }
        if a.rightIndent != 0 { emit("\\ri\(twips(a.rightIndent))") }
        if a.firstLineIndent != 0 { emit("\\fi\(twips(a.firstLineIndent))") }
        if a.spaceBefore != 0 { emit("\\sb\(twips(a.spaceBefore))") }
        if a.spaceAfter != 0 { emit("\\sa\(twips(a.spaceAfter))") }
        if let level = a.headingLevel {
            let clamped = max(1, min(level, 6))
            emit("\\s\(clamped)\\outlinelevel\(clamped - 1)")
        }
        if let list = a.list {
            if a.leftIndent == 0 && a.firstLineIndent == 0 { emit("\\fi-360\\li\((list.level + 1) * 720)") }
            emit("\\ls\(list.id)\\ilvl\(list.level){\\listtext ")
            text(list.marker, inFontTable: false)
            emit("\\tab}")
        } else {
            emit(" ")
        }
    }

    mutating func runs(_ runs: [TextRun]) {
        var index = 0
        while index < runs.count {
            guard let link = runs[index].attributes.link else {
                run(runs[index])
                index += 1
                continue
            }
            emit("{\\field{\\*\\fldinst{HYPERLINK \"")
            // A quote cannot be escaped in a way every reader accepts (LibreOffice keeps the backslash), so
            // URLs carry it percent-encoded as browsers do.
            fieldArgument(link.url.split(separator: "\"", omittingEmptySubsequences: false).joined(separator: "%22"))
            emit("\"")
            if let title = link.title {
                emit(" \\\\o \"")
                fieldArgument(title)
                emit("\"")
            }
            emit("}}{\\fldrslt ")
            while index < runs.count, runs[index].attributes.link == link {
                run(runs[index])
                index += 1
            }
            emit("}}")
        }
    }

    /// Field arguments escape `\` and `"` with a backslash (so `\\\\` in RTF), then RTF-escape the rest.
    mutating func fieldArgument(_ s: String) {
        var escaped = ""
        for c in s.unicodeScalars {
            if c == "\\" || c == "\"" { escaped += "\\" }
            escaped.unicodeScalars.append(c)
        }
        text(escaped, inFontTable: false)
    }

    mutating func run(_ run: TextRun) {
        let a = run.attributes
        emit("{")
        let start = out.count
        if let f = a.fontFamily, let index = fonts[f] { emit("\\f\(index)") }
        if let size = a.fontSize { emit("\\fs\((size * 2).clampedInt)") }
        if a.bold || a.italic || a.fontSize != nil, RTFBuilder.hasComplexScript(run.text) {
            // Word and LibreOffice take Hebrew, Arabic, Indic and Thai text's bold, italic and size from the
            // associated properties of a right-to-left run.
            emit("\\rtlch")
            if a.bold { emit("\\ab") }
            if a.italic { emit("\\ai") }
            if let size = a.fontSize { emit("\\afs\((size * 2).clampedInt)") }
            emit("\\ltrch")
        }
        if a.bold { emit("\\b") }
        if a.italic { emit("\\i") }
        switch a.underline {
        case .none: break
        case .single: emit("\\ul")
        case .double: emit("\\uldb")
        case .thick: emit("\\ulth")
        case .dotted: emit("\\uld")
        case .dashed: emit("\\uldash")
        case .wave: emit("\\ulwave")
        case .words: emit("\\ulw")
        }
        switch a.strikethrough {
        case .none: break
        case .single: emit("\\strike")
        case .double: emit("\\striked1")
        }
        if let c = a.foregroundColor, let index = colors[c] { emit("\\cf\(index)") }
        if let c = a.backgroundColor, let index = colors[c] { emit("\\cb\(index)\\highlight\(index)") }
        switch a.baseline {
        case .normal: break
        case .superscript: emit("\\super")
        case .subscript: emit("\\sub")
        }
        if a.hidden { emit("\\v") }
        if out.count > start { emit(" ") }
        if let attachment = a.attachment {
            self.attachment(attachment)
        } else {
            text(run.text, inFontTable: false)
        }
        emit("}")
    }

    mutating func attachment(_ attachment: Attachment) {
        switch style {
        case .nextGraphic:
            emit("{{\\NeXTGraphic ")
            text(attachment.fileName, inFontTable: false)
            emit(" \\width\(((attachment.width ?? 0) * 20).clampedInt) \\height\(((attachment.height ?? 0) * 20).clampedInt)")
            emit(" \\appleattachmentpadding0 \\appleembedtype0 \\appleaqc\n}\\'ac}")
        case .picture:
            let kind: String
            switch attachment.mimeType {
            case "image/png": kind = "\\pngblip"
            case "image/jpeg": kind = "\\jpegblip"
            default:
                warnings.append("dropped attachment \(attachment.fileName): RTF embeds only PNG and JPEG pictures")
                return
            }
            emit("{\\*\\shppict{\\pict\(kind)")
            if let w = attachment.width { emit("\\picwgoal\((w * 20).clampedInt)") }
            if let h = attachment.height { emit("\\pichgoal\((h * 20).clampedInt)") }
            emit("\n")
            let digits = Array("0123456789abcdef".utf8)
            for (index, byte) in attachment.bytes.enumerated() {
                out.append(digits[Int(byte >> 4)])
                out.append(digits[Int(byte & 15)])
                if index % 64 == 63 { out.append(0x0A) }
            }
            emit("}}")
        }
    }

    /// Whether text holds a character of a complex script. By UTF-8 lead byte first: those scripts' leads are
    /// 0xD6–0xE1 (U+0590–U+1FFF) and 0xEF (presentation forms), so Latin and CJK text is one cheap pass.
    static func hasComplexScript(_ text: String) -> Bool {
        guard text.utf8.contains(where: { ($0 >= 0xD6 && $0 <= 0xE1) || $0 == 0xEF }) else { return false }
        return text.unicodeScalars.contains { $0.value >= 0x0590 && ScriptClass.of($0) == .complex }
    }

    /// Escapes text: `\ { }` escaped, TAB `\tab`, U+2028 `\line`, cp1252 as `\'hh`, the rest `\uN?`.
    mutating func text(_ s: String, inFontTable: Bool) {
        let hex = Array("0123456789abcdef".utf8)
        for scalar in s.unicodeScalars {
            let v = scalar.value
            switch v {
            case 0x5C, 0x7B, 0x7D:
                out.append(0x5C)
                out.append(UInt8(v))
            case 0x09: emit("\\tab ")
            case 0x2028: emit("\\line ")
            case 0x0C: emit("\\page ")
            case 0xA0: emit("\\~")
            case 0xAD: emit("\\-")
            case 0x2011: emit("\\_")
            case 0x0A, 0x0D: emit("\\line ")
            case 0x20..<0x7F: out.append(UInt8(v))
            case 0..<0x20, 0x7F: break
            default:
                if let byte = Windows1252.byte(for: scalar), byte >= 0x80 {
                    out.append(contentsOf: [0x5C, 0x27, hex[Int(byte >> 4)], hex[Int(byte & 15)]])
                } else if v > 0xFFFF {
                    let offset = v - 0x10000
                    unicodeUnit(Int(0xD800 + (offset >> 10)))
                    unicodeUnit(Int(0xDC00 + (offset & 0x3FF)))
                } else {
                    unicodeUnit(Int(v))
                }
            }
        }
    }

    mutating func unicodeUnit(_ unit: Int) {
        emit("\\u\(unit > 32767 ? unit - 65536 : unit)?")
    }
}
