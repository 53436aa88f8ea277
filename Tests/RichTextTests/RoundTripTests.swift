// SPDX-License-Identifier: Apache-2.0
import XCTest

@testable import RichText

/// model → format → model keeps every attribute the format can carry.
final class RoundTripTests: XCTestCase {
    static let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 1, 2, 3]
    static let red = RGBColor(red: 200, green: 10, blue: 20)
    static let yellow = RGBColor(red: 255, green: 240, blue: 0)

    /// A document using every character and paragraph attribute of the model.
    static func everything(includeHidden: Bool) -> AttributedDocument {
        var runs: [TextRun] = [
            TextRun("Plain  café 日本 😀\tx\u{2028}y "),
            TextRun("bold", CharacterAttributes(bold: true)),
            TextRun("italic", CharacterAttributes(italic: true)),
            TextRun("big", CharacterAttributes(fontFamily: "Helvetica", fontSize: 14)),
            TextRun("mincho", CharacterAttributes(fontFamily: "ＭＳ 明朝", fontSize: 10.5)),
            TextRun("red", CharacterAttributes(foregroundColor: red)),
            TextRun("marked", CharacterAttributes(backgroundColor: yellow)),
            TextRun("2", CharacterAttributes(baseline: .superscript)),
            TextRun("i", CharacterAttributes(baseline: .subscript)),
            TextRun("strike", CharacterAttributes(strikethrough: .single)),
            TextRun("double strike", CharacterAttributes(strikethrough: .double)),
            TextRun("link & more", CharacterAttributes(underline: .single, link: Link(url: "https://e.x/?a=1&b=2#x\\y", title: "tip \"q\""))),
            TextRun("{braces} \\ back", CharacterAttributes(bold: true, italic: true, link: Link(url: "https://example.org/"))),
        ]
        for style in UnderlineStyle.allCases where style != .none {
            runs.append(TextRun(style.rawValue, CharacterAttributes(underline: style)))
        }
        if includeHidden { runs.append(TextRun("hidden", CharacterAttributes(hidden: true))) }
        runs.append(TextRun(" end"))
        let image = Attachment(fileName: "image1.png", mimeType: "image/png", bytes: png, width: 30, height: 15)
        return AttributedDocument(paragraphs: [
            Paragraph(runs: [TextRun("Title")], attributes: ParagraphAttributes(alignment: .center, headingLevel: 1)),
            Paragraph(runs: runs),
            Paragraph(
                runs: [TextRun("Indented and justified")],
                attributes: ParagraphAttributes(
                    alignment: .justified, firstLineIndent: -18, leftIndent: 36, rightIndent: 18, spaceBefore: 6, spaceAfter: 12)),
            Paragraph(runs: [TextRun("right")], attributes: ParagraphAttributes(alignment: .right)),
            Paragraph(runs: [TextRun("apple")], attributes: ParagraphAttributes(firstLineIndent: -18, leftIndent: 36, list: ListMembership(id: 1, level: 0, kind: .bullet, marker: "•"))),
            Paragraph(runs: [TextRun("pear")], attributes: ParagraphAttributes(firstLineIndent: -18, leftIndent: 72, list: ListMembership(id: 1, level: 1, kind: .bullet, marker: "◦"))),
            Paragraph(runs: [TextRun("plum")], attributes: ParagraphAttributes(firstLineIndent: -18, leftIndent: 36, list: ListMembership(id: 1, level: 0, kind: .bullet, marker: "•"))),
            Paragraph(runs: [TextRun("between")]),
            Paragraph(runs: [TextRun("first")], attributes: ParagraphAttributes(firstLineIndent: -18, leftIndent: 36, list: ListMembership(id: 2, level: 0, kind: .decimal, marker: "1."))),
            Paragraph(runs: [TextRun("second")], attributes: ParagraphAttributes(firstLineIndent: -18, leftIndent: 36, list: ListMembership(id: 2, level: 0, kind: .decimal, marker: "2."))),
            Paragraph(runs: [TextRun("Name")], attributes: ParagraphAttributes(tableCell: TableCell(table: 1, row: 0, column: 0, isHeader: true))),
            Paragraph(runs: [TextRun("Value")], attributes: ParagraphAttributes(tableCell: TableCell(table: 1, row: 0, column: 1, isHeader: true))),
            Paragraph(runs: [TextRun("a", CharacterAttributes(bold: true))], attributes: ParagraphAttributes(tableCell: TableCell(table: 1, row: 1, column: 0))),
            Paragraph(runs: [], attributes: ParagraphAttributes(tableCell: TableCell(table: 1, row: 1, column: 1))),
            Paragraph(runs: [TextRun("picture: "), TextRun("\u{FFFC}", CharacterAttributes(attachment: image))]),
            Paragraph(runs: []),
            Paragraph(runs: [TextRun("last")]),
        ])
    }

    func assertSame(_ actual: AttributedDocument, _ expected: AttributedDocument, file: StaticString = #filePath, line: UInt = #line) {
        let a = actual.normalized(), e = expected.normalized()
        XCTAssertEqual(a.paragraphs.count, e.paragraphs.count, file: file, line: line)
        for (index, (x, y)) in zip(a.paragraphs, e.paragraphs).enumerated() where x != y {
            XCTAssertEqual(x.attributes, y.attributes, "paragraph \(index) attributes", file: file, line: line)
            XCTAssertEqual(x.runs.count, y.runs.count, "paragraph \(index) runs: \(x.runs.map(\.text)) vs \(y.runs.map(\.text))", file: file, line: line)
            for (r, s) in zip(x.runs, y.runs) where r != s {
                XCTAssertEqual(r.text, s.text, "paragraph \(index)", file: file, line: line)
                XCTAssertEqual(r.attributes, s.attributes, "paragraph \(index) run \(r.text.debugDescription)", file: file, line: line)
            }
        }
        XCTAssertEqual(a.endsWithParagraphBreak, e.endsWithParagraphBreak, file: file, line: line)
    }

    func testModelToRTFToModel() {
        let document = Self.everything(includeHidden: true)
        let rtf = RTFWriter.write(document)
        XCTAssertEqual(rtf.warnings, [])
        XCTAssertTrue(rtf.bytes.allSatisfy { $0 < 0x80 }, "RTF output is 7-bit")
        let read = RTFReader.read(rtf.bytes)
        XCTAssertEqual(read.warnings, [])
        assertSame(read.document, document)
    }

    func testModelToHTMLToModel() {
        let document = Self.everything(includeHidden: false)
        let html = HTMLWriter.write(document)
        XCTAssertEqual(html.warnings, [])
        let read = HTMLReader.read(html.bytes)
        assertSame(read.document, document)
    }

    func testModelToRTFDToModel() throws {
        let document = Self.everything(includeHidden: true)
        let rtfd = FlatRTFD.writeDocument(document)
        XCTAssertEqual(rtfd.warnings, [])
        XCTAssertEqual(try FlatRTFD.parse(rtfd.bytes).files.map(\.name), ["TXT.rtf", "image1.png"])
        let read = try FlatRTFD.readDocument(rtfd.bytes)
        assertSame(read.document, document)
    }

    func testQuotesInLinkURLsArePercentEncodedInRTF() {
        let document = AttributedDocument(paragraphs: [Paragraph(runs: [TextRun("q", CharacterAttributes(link: Link(url: "https://e.x/?q=\"a\"")))])])
        let rtf = String(decoding: RTFWriter.write(document).bytes, as: UTF8.self)
        XCTAssertTrue(rtf.contains(#"{\field{\*\fldinst{HYPERLINK "https://e.x/?q=%22a%22"}}{\fldrslt {q}}}"#), rtf)
    }

    func testPlainTextRendersListsAndTables() {
        let text = String(decoding: PlainTextWriter.write(Self.everything(includeHidden: true)), as: UTF8.self)
        XCTAssertTrue(text.hasPrefix("Title\nPlain  café 日本 😀\tx\ny bold"), text)
        XCTAssertFalse(text.contains("hidden"))
        XCTAssertTrue(text.contains("\n• apple\n    ◦ pear\n• plum\nbetween\n1. first\n2. second\nName\tValue\na\t\npicture: \n\nlast\n"), text)
    }

    func testPlainTextRoundTrip() {
        let text = "one\n\ntwo 😀\tthree\nno newline"
        let read = PlainTextReader.read(bytes(text))
        XCTAssertEqual(read.document.paragraphs.count, 4)
        XCTAssertEqual(String(decoding: PlainTextWriter.write(read.document), as: UTF8.self), text)
        XCTAssertEqual(PlainTextReader.read(bytes("a\r\nb\rc\n")).document.string, "a\nb\nc\n")
    }
}
