// SPDX-License-Identifier: Apache-2.0
import XCTest

@testable import RichText

final class HTMLReaderTests: XCTestCase {
    func read(_ html: String) -> AttributedDocument { HTMLReader.read(bytes(html)).document }

    func testChromiumClipboardWithMetaPrefixAndTrailingNUL() throws {
        let html = #"<meta http-equiv="content-type" content="text/html; charset=utf-8"><span style="color: rgb(32, 33, 36); font-family: arial, sans-serif; font-size: 14px; font-weight: 700;">Bold</span> and <a href="https://e.x/?a=1&amp;b=2" title="t">link</a>"#
        let document = HTMLReader.read(bytes(html) + [0]).document
        XCTAssertEqual(document.string, "Bold and link\n")
        let r = runs(document)
        XCTAssertEqual(r.map(\.text), ["Bold", " and ", "link"])
        XCTAssertEqual(r[0].attributes.bold, true)
        XCTAssertEqual(r[0].attributes.fontFamily, "arial")
        XCTAssertEqual(r[0].attributes.fontSize, 10.5)
        XCTAssertEqual(r[0].attributes.foregroundColor, RGBColor(red: 32, green: 33, blue: 36))
        XCTAssertEqual(r[2].attributes.link, Link(url: "https://e.x/?a=1&b=2", title: "t"))
    }

    func testUTF16WithBOMAndByQtZeroByteRule() {
        let text = "<p>café 😀 <b>x</b></p>"
        let le = Array(text.utf16).flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
        let be = Array(text.utf16).flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
        XCTAssertEqual(HTMLReader.read([0xFF, 0xFE] + le).document.string, "café 😀 x\n")
        XCTAssertEqual(HTMLReader.read([0xFE, 0xFF] + be).document.string, "café 😀 x\n")
        XCTAssertEqual(HTMLReader.read(le + [0, 0]).document.string, "café 😀 x\n")  // Firefox: UTF-16LE, no mark
        XCTAssertEqual(HTMLReader.read(be).document.string, "café 😀 x\n")
    }

    func testLegacyCharsetFromMeta() {
        let html: [UInt8] = bytes("<meta charset=\"shift_jis\"><p>") + [0x82, 0xA0, 0x95, 0x5C] + bytes("</p>")
        XCTAssertEqual(HTMLReader.read(html, codePages: systemCodePages).document.string, "あ表\n")
        XCTAssertEqual(HTMLReader.read(html).document.string, "\u{FFFD}\u{FFFD}\n", "without a system decoder, double-byte text is U+FFFD")
    }

    func testEntities() {
        XCTAssertEqual(read("&amp;&lt;&gt;&quot;&#39;&#x1F600;&#128;&eacute;&bogus; &amp x&nbsp;y").string, "&<>\"'😀€é&bogus; & x\u{00A0}y\n")
    }

    func testWhitespaceCollapsesOutsidePre() {
        let document = read("<p>  a \n  b  </p>\n\n<pre>  x\n y</pre>")
        XCTAssertEqual(document.paragraphs.map(\.text), ["a b", "  x", " y"])
    }

    func testBlocksHeadingsAndBreaks() {
        let document = read("<h2 style='text-align:center'>T</h2><div>one<br>two</div><div><br></div><p>three<br></p><p></p>")
        XCTAssertEqual(document.paragraphs.map(\.text), ["T", "one\u{2028}two", "", "three", ""])
        XCTAssertEqual(document.paragraphs[0].attributes.headingLevel, 2)
        XCTAssertEqual(document.paragraphs[0].attributes.alignment, .center)
    }

    func testListsNestedAndNumbered() {
        let document = read("<ul><li>a<ol start=3><li>b<li>c</ol></li><li>d</ul><ol type=i><li>x<li>y</ol>")
        let lists = document.paragraphs.compactMap(\.attributes.list)
        XCTAssertEqual(document.paragraphs.map(\.text), ["a", "b", "c", "d", "x", "y"])
        XCTAssertEqual(lists.map(\.marker), ["•", "3.", "4.", "•", "i.", "ii."])
        XCTAssertEqual(lists.map(\.level), [0, 1, 1, 0, 0, 0])
        XCTAssertEqual(lists.map(\.id), [1, 1, 1, 1, 2, 2])
        XCTAssertEqual(String(decoding: PlainTextWriter.write(document), as: UTF8.self), "• a\n    3. b\n    4. c\n• d\ni. x\nii. y\n")
    }

    func testTableWithImplicitEnds() {
        let document = read("<table><tr><th>h1<th>h2<tr><td>a<td><p>b</p><p>c</p></table>after")
        XCTAssertEqual(document.paragraphs.map(\.text), ["h1", "h2", "a", "b", "c", "after"])
        let cells = document.paragraphs.compactMap(\.attributes.tableCell)
        XCTAssertEqual(cells.map(\.row), [0, 0, 1, 1, 1])
        XCTAssertEqual(cells.map(\.column), [0, 1, 0, 1, 1])
        XCTAssertEqual(cells.map(\.isHeader), [true, true, false, false, false])
        XCTAssertEqual(String(decoding: PlainTextWriter.write(document), as: UTF8.self), "h1\th2\na\tb c\nafter\n")
    }

    func testInlineStylesAndTags() {
        let html = #"<b>b</b><strong style="font-weight:normal">n</strong><i>i</i><em>e</em><u>u</u><s>s</s><del>d</del><sup>p</sup><sub>q</sub><span style="text-decoration: underline line-through; background-color:#ff0; font-size: 18pt; font-family: 'Times New Roman', serif">x</span><font color="red" face="Courier" size="5">f</font><span style="font-style: italic; font-weight: 600">z</span>"#
        // A plain "|" between elements keeps equal neighbours (i, em) in separate runs.
        let separated = html.replacingOccurrences(of: "><", with: ">|<")
        let r = runs(read(separated)).map { TextRun($0.text.replacingOccurrences(of: "|", with: ""), $0.attributes) }
            .filter { !$0.text.isEmpty }
        XCTAssertEqual(r.map(\.text), ["b", "n", "i", "e", "u", "s", "d", "p", "q", "x", "f", "z"])
        XCTAssertEqual(r.map(\.attributes.bold), [true, false, false, false, false, false, false, false, false, false, false, true])
        XCTAssertEqual(r[2].attributes.italic, true)
        XCTAssertEqual(r[3].attributes.italic, true)
        XCTAssertEqual(r[4].attributes.underline, .single)
        XCTAssertEqual(r[5].attributes.strikethrough, .single)
        XCTAssertEqual(r[6].attributes.strikethrough, .single)
        XCTAssertEqual(r[7].attributes.baseline, .superscript)
        XCTAssertEqual(r[8].attributes.baseline, .subscript)
        XCTAssertEqual(r[9].attributes.underline, .single)
        XCTAssertEqual(r[9].attributes.strikethrough, .single)
        XCTAssertEqual(r[9].attributes.backgroundColor, RGBColor(red: 255, green: 255, blue: 0))
        XCTAssertEqual(r[9].attributes.fontSize, 18)
        XCTAssertEqual(r[9].attributes.fontFamily, "Times New Roman")
        XCTAssertEqual(r[10].attributes.foregroundColor, RGBColor(red: 255, green: 0, blue: 0))
        XCTAssertEqual(r[10].attributes.fontFamily, "Courier")
        XCTAssertEqual(r[10].attributes.fontSize, 18)
        XCTAssertEqual(r[11].attributes.italic, true)
    }

    func testDataURIImageAndExternalImage() throws {
        let document = HTMLReader.read(bytes(#"a<img src="data:image/png;base64,iVBORw0KGgo=" width="40" height="20">b<img src="https://x/y.png">"#))
        XCTAssertEqual(document.document.string, "a\u{FFFC}b\n")
        let image = try XCTUnwrap(document.document.attachments.first)
        XCTAssertEqual(image.bytes, [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        XCTAssertEqual(image.mimeType, "image/png")
        XCTAssertEqual(image.fileName, "image1.png")
        XCTAssertEqual(image.width, 30)
        XCTAssertEqual(document.warnings.count, 1)
    }

    func testPercentEncodedDataURI() {
        let document = HTMLReader.read(bytes(#"<img src="data:image/svg+xml,%3Csvg%2F%3E" alt="logo.svg">"#)).document
        XCTAssertEqual(document.attachments.first?.bytes, bytes("<svg/>"))
        XCTAssertEqual(document.attachments.first?.fileName, "logo.svg")
        XCTAssertEqual(document.attachments.first?.mimeType, "image/svg+xml")
    }

    func testScriptStyleHeadAndUnknownTagsAndComments() {
        let document = read("<html><head><title>T</title><style>p{color:red}</style><script>if (a<b) x()</script></head><body><custom-tag>kept</custom-tag><!-- gone --><x y='>'>z</x><p style='display:none'>hidden</p></body></html>")
        XCTAssertEqual(document.string, "keptz\n")
    }

    func testWindowsClipboardHeader() {
        let body = "<html><body><!--StartFragment--><b>x</b><!--EndFragment--></body></html>"
        let header = "Version:0.9\r\nStartHTML:0000000105\r\nEndHTML:0000000178\r\nStartFragment:0000000141\r\nEndFragment:0000000158\r\n"
        XCTAssertEqual(header.utf8.count, 105)
        XCTAssertEqual(read(header + body).string, "x\n")
    }

    func testDeepNestingAndManyStrayEndTagsStayLinear() {
        let html = String(repeating: "<b><span>", count: 50_000) + "deep" + String(repeating: "</i>", count: 100_000)
        let start = Date()
        let result = HTMLReader.read(bytes(html))
        XCTAssertEqual(result.document.string, "deep\n")
        XCTAssertEqual(runs(result.document).first?.attributes.bold, true)
        XCTAssertLessThan(Date().timeIntervalSince(start), 10)
    }

    func testMalformedNeverLosesText() {
        XCTAssertEqual(read("<p><b>unclosed <i>tags</p></b> tail < 3 and <").string, "unclosed tags\ntail < 3 and <\n")
    }

    /// Found by the HTML fuzzer (round 4): a huge CSS length reached the HTML writer's number formatting, which
    /// trapped converting it to Int. Lengths are now bounded where they are read and clamped where they are written.
    func testHugeLengthsAndSizesNeitherTrapNorReachTheModel() throws {
        let html = #"<p style="margin-top: 1e300pt; margin-left: -1e300px; text-indent: 1e308in">a</p>"#
            + #"<p style="font-size: 1e300%"><span style="font-size: 1e300em">b</span></p>"#
            + #"<img width="1e400" height="99999999999999999999" src="data:image/png;base64,iVBORw0KGgo=">"#
        let document = HTMLReader.read(bytes(html)).document
        XCTAssertEqual(document.paragraphs.first?.attributes.spaceBefore, 0)
        XCTAssertEqual(document.paragraphs.first?.attributes.leftIndent, 0)
        XCTAssertNil(runs(document).first { $0.text == "b" }?.attributes.fontSize)
        XCTAssertNil(document.attachments.first?.width)
        for format in [DocumentFormat.rtf, .html, .txt, .rtfd] {
            _ = try RichTextConverter.convert(bytes(html), from: .html, to: format)
        }
        // Writers clamp what a model built in code may hold.
        let extreme = AttributedDocument(paragraphs: [
            Paragraph(
                runs: [TextRun("x", CharacterAttributes(fontSize: .infinity))],
                attributes: ParagraphAttributes(leftIndent: 1e300, spaceAfter: -.infinity)),
        ])
        XCTAssertTrue(String(decoding: HTMLWriter.write(extreme).bytes, as: UTF8.self).contains("margin-left: 1000000000pt"))
        XCTAssertTrue(String(decoding: RTFWriter.write(extreme).bytes, as: UTF8.self).contains("\\li1000000000"))
    }
}
