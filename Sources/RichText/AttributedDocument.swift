// SPDX-License-Identifier: Apache-2.0
/// An `NSAttributedString`-like document: paragraphs of attributed runs.
///
/// Every paragraph except possibly the last ends with a paragraph break (`\n` in plain text).
/// Inside a run, U+2028 is a line break, U+000C a page break, U+0009 a tab and U+FFFC an attachment
/// (whose run carries `CharacterAttributes.attachment`). Lengths are in points (1 pt = 20 twips = 4/3 CSS px).
public struct AttributedDocument: Equatable, Sendable {
    public var paragraphs: [Paragraph]
    /// Whether the last paragraph is followed by a paragraph break.
    public var endsWithParagraphBreak: Bool

    public init(paragraphs: [Paragraph] = [], endsWithParagraphBreak: Bool = true) {
        self.paragraphs = paragraphs
        self.endsWithParagraphBreak = endsWithParagraphBreak
    }

    /// The document's characters, paragraphs separated by `\n` (hidden text included).
    public var string: String {
        var out = ""
        for (index, paragraph) in paragraphs.enumerated() {
            for run in paragraph.runs { out += run.text }
            if index < paragraphs.count - 1 || endsWithParagraphBreak { out += "\n" }
        }
        return out
    }

    /// Every attachment in document order.
    public var attachments: [Attachment] {
        paragraphs.flatMap { $0.runs.compactMap(\.attributes.attachment) }
    }

    /// Merges adjacent runs with equal attributes and removes empty runs; the text is unchanged.
    public func normalized() -> AttributedDocument {
        var copy = self
        for index in copy.paragraphs.indices { copy.paragraphs[index].runs = Paragraph.merge(copy.paragraphs[index].runs) }
        return copy
    }
}

/// A paragraph: runs of text sharing one set of paragraph attributes. The text never contains `\n`.
public struct Paragraph: Equatable, Sendable {
    public var runs: [TextRun]
    public var attributes: ParagraphAttributes

    public init(runs: [TextRun] = [], attributes: ParagraphAttributes = ParagraphAttributes()) {
        self.runs = runs
        self.attributes = attributes
    }

    public var text: String { runs.map(\.text).joined() }

    static func merge(_ runs: [TextRun]) -> [TextRun] {
        var merged: [TextRun] = []
        for run in runs where !run.text.isEmpty {
            if let last = merged.last, last.attributes == run.attributes, last.attributes.attachment == nil {
                merged[merged.count - 1].text += run.text
            } else {
                merged.append(run)
            }
        }
        return merged
    }
}

/// Text sharing one set of character attributes.
public struct TextRun: Equatable, Sendable {
    public var text: String
    public var attributes: CharacterAttributes

    public init(_ text: String, _ attributes: CharacterAttributes = CharacterAttributes()) {
        self.text = text
        self.attributes = attributes
    }
}

/// An sRGB colour, components 0–255.
public struct RGBColor: Hashable, Sendable {
    public var red: UInt8, green: UInt8, blue: UInt8
    public init(red: UInt8, green: UInt8, blue: UInt8) {
        self.red = red
        self.green = green
        self.blue = blue
    }
}

public enum UnderlineStyle: String, Hashable, Sendable, CaseIterable {
    case none, single, double, thick, dotted, dashed, wave, words
}

public enum StrikethroughStyle: String, Hashable, Sendable, CaseIterable {
    case none, single, double
}

public enum BaselinePosition: String, Hashable, Sendable {
    case normal, superscript, `subscript`
}

/// A hyperlink target with an optional tooltip.
public struct Link: Hashable, Sendable {
    public var url: String
    public var title: String?
    public init(url: String, title: String? = nil) {
        self.url = url
        self.title = title
    }
}

/// An embedded file shown as U+FFFC.
public struct Attachment: Hashable, Sendable {
    /// A file name without directories, e.g. `Pasted Graphic.png`.
    public var fileName: String
    /// e.g. `image/png`; `application/octet-stream` when unknown.
    public var mimeType: String
    public var bytes: [UInt8]
    /// Display size in points, when the source gave one.
    public var width: Double?
    public var height: Double?

    public init(fileName: String, mimeType: String, bytes: [UInt8], width: Double? = nil, height: Double? = nil) {
        self.fileName = fileName
        self.mimeType = mimeType
        self.bytes = bytes
        self.width = width
        self.height = height
    }

    /// The MIME type implied by a file name's extension.
    public static func mimeType(forFileName name: String) -> String {
        let ext = name.split(separator: ".").last.map { $0.lowercased() } ?? ""
        switch ext {
        case "png": return "image/png"
        case "jpg", "jpeg": return "image/jpeg"
        case "gif": return "image/gif"
        case "tif", "tiff": return "image/tiff"
        case "pdf": return "application/pdf"
        case "txt": return "text/plain"
        case "rtf": return "text/rtf"
        case "html", "htm": return "text/html"
        default: return "application/octet-stream"
        }
    }

    /// The usual file extension for a MIME type.
    public static func fileExtension(forMIMEType mime: String) -> String {
        switch mime {
        case "image/png": return "png"
        case "image/jpeg": return "jpg"
        case "image/gif": return "gif"
        case "image/tiff": return "tiff"
        case "application/pdf": return "pdf"
        default: return "bin"
        }
    }
}

/// Attributes of characters, like NSAttributedString's font, underline, colour and link attributes.
public struct CharacterAttributes: Hashable, Sendable {
    /// Family or PostScript name as the source gave it (e.g. `Helvetica`, `HiraginoSans-W3`).
    public var fontFamily: String?
    /// Points.
    public var fontSize: Double?
    public var bold = false
    public var italic = false
    public var underline = UnderlineStyle.none
    public var strikethrough = StrikethroughStyle.none
    /// nil means automatic (usually black).
    public var foregroundColor: RGBColor?
    /// nil means none.
    public var backgroundColor: RGBColor?
    public var baseline = BaselinePosition.normal
    public var link: Link?
    /// Hidden text (RTF `\v`): kept in the model and RTF, dropped from plain text and HTML.
    public var hidden = false
    public var attachment: Attachment?

    public init(
        fontFamily: String? = nil, fontSize: Double? = nil, bold: Bool = false, italic: Bool = false,
        underline: UnderlineStyle = .none, strikethrough: StrikethroughStyle = .none,
        foregroundColor: RGBColor? = nil, backgroundColor: RGBColor? = nil, baseline: BaselinePosition = .normal,
        link: Link? = nil, hidden: Bool = false, attachment: Attachment? = nil
    ) {
        self.fontFamily = fontFamily
        self.fontSize = fontSize
        self.bold = bold
        self.italic = italic
        self.underline = underline
        self.strikethrough = strikethrough
        self.foregroundColor = foregroundColor
        self.backgroundColor = backgroundColor
        self.baseline = baseline
        self.link = link
        self.hidden = hidden
        self.attachment = attachment
    }
}

public enum TextAlignment: String, Hashable, Sendable {
    case natural, left, center, right, justified
}

public enum ListKind: String, Hashable, Sendable {
    case bullet, decimal, lowerAlpha, upperAlpha, lowerRoman, upperRoman

    public var isOrdered: Bool { self != .bullet }

    /// The kind a rendered marker shows: `3.` decimal, `iv)` lower roman, `c.` lower alpha, anything else (Word's
    /// `o` and `§` bullets too: letters count only with a `.` or `)` after them) a bullet.
    public init(marker: String) {
        let core = marker.trimmingSuffix { $0 == "." || $0 == ")" }
        if core.isEmpty || (core.count == marker.count && !core.allSatisfy { $0.isASCII && $0.isNumber }) {
            self = .bullet
        } else if core.allSatisfy({ $0.isASCII && $0.isNumber }) {
            self = .decimal
        } else if core.allSatisfy({ "ivxlcdm".contains($0) }) {
            self = .lowerRoman
        } else if core.allSatisfy({ "IVXLCDM".contains($0) }) {
            self = .upperRoman
        } else if core.allSatisfy({ $0.isASCII && $0.isLowercase }) {
            self = .lowerAlpha
        } else if core.allSatisfy({ $0.isASCII && $0.isUppercase }) {
            self = .upperAlpha
        } else {
            self = .bullet
        }
    }

    /// The marker for the item at 1-based `number`, e.g. `•`, `3.`, `c.`, `iv.`.
    public func marker(number: Int) -> String {
        switch self {
        case .bullet: return "•"
        case .decimal: return "\(number)."
        case .lowerAlpha: return ListKind.alpha(number) + "."
        case .upperAlpha: return ListKind.alpha(number).uppercased() + "."
        case .lowerRoman: return ListKind.roman(number) + "."
        case .upperRoman: return ListKind.roman(number).uppercased() + "."
        }
    }

    static func alpha(_ number: Int) -> String {
        var n = max(number, 1)
        var letters: [Character] = []
        while n > 0 {
            n -= 1
            letters.append(Character(Unicode.Scalar(UInt8(97 + n % 26))))
            n /= 26
        }
        return String(letters.reversed())
    }

    static func roman(_ number: Int) -> String {
        guard number > 0, number < 4000 else { return String(number) }
        let table: [(Int, String)] = [
            (1000, "m"), (900, "cm"), (500, "d"), (400, "cd"), (100, "c"), (90, "xc"),
            (50, "l"), (40, "xl"), (10, "x"), (9, "ix"), (5, "v"), (4, "iv"), (1, "i"),
        ]
        var n = number
        var out = ""
        for (value, digits) in table { while n >= value { out += digits; n -= value } }
        return out
    }
}

/// A paragraph's membership in a list.
public struct ListMembership: Hashable, Sendable {
    /// Paragraphs with the same id belong to the same list.
    public var id: Int
    /// Nesting level, 0 = outermost.
    public var level: Int
    public var kind: ListKind
    /// The marker as rendered, e.g. `•` or `2.`.
    public var marker: String

    public init(id: Int, level: Int = 0, kind: ListKind, marker: String) {
        self.id = id
        self.level = level
        self.kind = kind
        self.marker = marker
    }

    /// The number an ordered marker shows (`3.` → 3, `c.` → 3), for writers that state where a list starts.
    var markerNumber: Int? {
        let core = marker.trimmingSuffix { $0 == "." || $0 == ")" }
        switch kind {
        case .decimal: return Int(core)
        case .lowerAlpha, .upperAlpha:
            guard core.count == 1, let v = core.lowercased().unicodeScalars.first?.value else { return nil }
            return Int(v) - 96
        default: return nil
        }
    }
}

/// A paragraph's place in a table. Consecutive paragraphs with the same `table` form one table.
public struct TableCell: Hashable, Sendable {
    public var table: Int
    public var row: Int
    public var column: Int
    public var isHeader: Bool
    /// How many grid columns and rows the cell covers (merged cells); the cells it covers are not in the document.
    public var columnSpan: Int
    public var rowSpan: Int

    public init(table: Int, row: Int, column: Int, isHeader: Bool = false, columnSpan: Int = 1, rowSpan: Int = 1) {
        self.table = table
        self.row = row
        self.column = column
        self.isHeader = isHeader
        self.columnSpan = columnSpan
        self.rowSpan = rowSpan
    }
}

/// Attributes of a whole paragraph, like NSParagraphStyle plus list and table membership.
public struct ParagraphAttributes: Hashable, Sendable {
    public var alignment = TextAlignment.natural
    /// Points, relative to the left indent.
    public var firstLineIndent: Double = 0
    public var leftIndent: Double = 0
    public var rightIndent: Double = 0
    public var spaceBefore: Double = 0
    public var spaceAfter: Double = 0
    /// 1–6, or nil for body text.
    public var headingLevel: Int?
    public var list: ListMembership?
    public var tableCell: TableCell?
    /// Whether the paragraph is text of a floating shape or text box (RTF `\shptxt`, Word 6/95 `\dptxbxtext`)
    /// rather than of the document's running text (its main story). Rich writers show it like any other paragraph,
    /// where the box is anchored; plain text leaves it out, as Word's and LibreOffice's own plain text do, unless
    /// the running text has no text at all (`AttributedDocument.plainTextParagraphs`).
    public var isInTextBox = false

    public init(
        alignment: TextAlignment = .natural, firstLineIndent: Double = 0, leftIndent: Double = 0,
        rightIndent: Double = 0, spaceBefore: Double = 0, spaceAfter: Double = 0, headingLevel: Int? = nil,
        list: ListMembership? = nil, tableCell: TableCell? = nil, isInTextBox: Bool = false
    ) {
        self.alignment = alignment
        self.firstLineIndent = firstLineIndent
        self.leftIndent = leftIndent
        self.rightIndent = rightIndent
        self.spaceBefore = spaceBefore
        self.spaceAfter = spaceAfter
        self.headingLevel = headingLevel
        self.list = list
        self.tableCell = tableCell
        self.isInTextBox = isInTextBox
    }
}
