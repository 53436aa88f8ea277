// SPDX-License-Identifier: Apache-2.0
import TestSupport
import XCTest

@testable import RichText

/// What real producers write, read as LibreOffice reads it, and kept through RTF → HTML, RTF → RTFD → RTF and
/// HTML → RTF. The LibreOffice documents are Fixtures/libreoffice/fidelity.*; Word's come from LibreOffice's RTF
/// corpus, read in place (CorpusTests.corpusDirectory).
final class ProducerFidelityTests: XCTestCase {
    static let words: [(text: String, bold: Bool, italic: Bool)] = [
        ("太字です", true, false), ("普通", false, false), ("מודגש", true, false), ("רגיל", false, false),
        ("مائل", false, true), ("मोटा", true, false), ("ตัวหนา", true, false), ("bold", true, false),
    ]

    func run(_ document: AttributedDocument, _ text: String, file: StaticString = #filePath, line: UInt = #line) throws -> TextRun {
        try XCTUnwrap(runs(document).first { $0.text.contains(text) }, "no run with \(text)", file: file, line: line)
    }

    func paragraph(_ document: AttributedDocument, _ text: String, file: StaticString = #filePath, line: UInt = #line) throws -> Paragraph {
        try XCTUnwrap(document.paragraphs.first { $0.text.contains(text) }, "no paragraph with \(text)", file: file, line: line)
    }

    func convert(_ input: [UInt8], _ from: DocumentFormat, _ to: DocumentFormat) throws -> [UInt8] {
        try RichTextConverter.convert(input, from: from, to: to, codePages: systemCodePages).bytes
    }

    func read(_ input: [UInt8], _ format: DocumentFormat) throws -> AttributedDocument {
        try RichTextConverter.read(input, format: format, codePages: systemCodePages).document
    }

    /// The facts of fidelity.rtf that every direction must keep (`pictures`: whether the format carried the PNG).
    /// `nestedBullet`: LibreOffice's RTF gives every bullet level •; its HTML nests lists, which browsers draw ◦.
    func assertFidelityFacts(
        _ document: AttributedDocument, pictures: Bool = true, nestedBullet: String = "•", file: StaticString = #filePath, line: UInt = #line
    ) throws {
        for word in ProducerFidelityTests.words {
            let found = try run(document, word.text, file: file, line: line)
            XCTAssertEqual(found.attributes.bold, word.bold, "bold on \(word.text)", file: file, line: line)
            XCTAssertEqual(found.attributes.italic, word.italic, "italic on \(word.text)", file: file, line: line)
        }
        XCTAssertEqual(try paragraph(document, "Fidelity heading").attributes.headingLevel, 1, file: file, line: line)
        XCTAssertEqual(try paragraph(document, "Second level").attributes.headingLevel, 2, file: file, line: line)
        XCTAssertEqual(try paragraph(document, "Third level").attributes.headingLevel, 3, file: file, line: line)
        XCTAssertNil(try paragraph(document, "End.").attributes.headingLevel, file: file, line: line)
        let items = document.paragraphs.filter { $0.attributes.list != nil }
        XCTAssertEqual(items.map(\.text), ["first bullet", "second bullet", "nested bullet", "one", "two", "three"], file: file, line: line)
        XCTAssertEqual(items.map { $0.attributes.list?.marker }, ["•", "•", nestedBullet, "1.", "2.", "3."], file: file, line: line)
        XCTAssertEqual(items.map { $0.attributes.list?.level }, [0, 0, 1, 0, 0, 0], file: file, line: line)
        let wide = try XCTUnwrap(try paragraph(document, "wide header").attributes.tableCell, file: file, line: line)
        XCTAssertEqual([wide.columnSpan, wide.rowSpan], [2, 1], "wide header spans two columns", file: file, line: line)
        let tall = try XCTUnwrap(try paragraph(document, "tall").attributes.tableCell, file: file, line: line)
        XCTAssertEqual([tall.columnSpan, tall.rowSpan], [1, 2], "tall spans two rows", file: file, line: line)
        let b3 = try XCTUnwrap(try paragraph(document, "B3").attributes.tableCell, file: file, line: line)
        XCTAssertEqual(b3.row, tall.row + 1, file: file, line: line)
        let cells = document.paragraphs.filter { $0.attributes.tableCell != nil }.map(\.text)
        XCTAssertEqual(cells, ["wide header", "C1", "tall", "B2", "C2", "B3", "C3"], "no duplicated or misplaced cell text", file: file, line: line)
        XCTAssertEqual(try paragraph(document, "Footnote here").text, "Footnote here1 and after.", file: file, line: line)
        if pictures {
            XCTAssertEqual(document.attachments.map(\.bytes), [try fixture("red.png")], "the picture's pixels", file: file, line: line)
        }
    }

    // MARK: LibreOffice

    func testLibreOfficeRTFReadsAsLibreOfficeShowsIt() throws {
        let input = try fixture("libreoffice/fidelity.rtf")
        let document = try read(input, .rtf)
        try assertFidelityFacts(document)
        // Its text is LibreOffice's own text export (list labels included), whitespace aside.
        let ours = CorpusTests.normalized(String(decoding: PlainTextWriter.write(document), as: UTF8.self))
        let libreOffice = CorpusTests.normalized(String(decoding: try fixture("libreoffice/fidelity.expected.txt"), as: UTF8.self))
        XCTAssertGreaterThanOrEqual(CorpusTests.similarity(libreOffice, ours), 0.98, ours)
    }

    func testLibreOfficeRTFToHTML() throws {
        let html = String(decoding: try convert(try fixture("libreoffice/fidelity.rtf"), .rtf, .html), as: UTF8.self)
        for needle in ["<b>太字です</b>", "<b>מודגש</b>", "<i>مائل</i>", "<b>मोटा</b>", "<b>ตัวหนา</b>", "<td colspan=\"2\">wide header</td>",
            "<td rowspan=\"2\">tall</td>", "base64," + Base64.encode(try fixture("red.png"))]
        {
            XCTAssertTrue(html.contains(needle), "\(needle) missing from\n\(html)")
        }
        XCTAssertTrue(html.contains("<h1"), html)
        XCTAssertTrue(html.contains("<h3"), html)
        XCTAssertFalse(html.contains("普通</b>"), html)
        // Read back, nested list items take the marker browsers draw for a second level.
        try assertFidelityFacts(try read(Array(html.utf8), .html), nestedBullet: "◦")
    }

    func testLibreOfficeRTFThroughRTFDAndBack() throws {
        let rtfd = try convert(try fixture("libreoffice/fidelity.rtf"), .rtf, .rtfd)
        XCTAssertEqual(try FlatRTFD.parse(rtfd)["image1.png"], try fixture("red.png"))
        let rtf = try convert(rtfd, .rtfd, .rtf)
        try assertFidelityFacts(try read(rtf, .rtf))
        // Complex-script bold goes out as Word and LibreOffice read it: the associated property of an RTL run.
        XCTAssertTrue(String(decoding: rtf, as: UTF8.self).contains("\\rtlch\\ab\\ltrch\\b"))
    }

    func testLibreOfficeHTMLToRTF() throws {
        let html = try fixture("libreoffice/fidelity.html")
        let fromHTML = try read(html, .html)
        XCTAssertTrue(fromHTML.attachments.isEmpty, "LibreOffice's HTML links its picture from a file")
        XCTAssertFalse(fromHTML.string.contains("The note text"), "footnote text is not body text")
        let document = try read(try convert(html, .html, .rtf), .rtf)
        try assertFidelityFacts(document, pictures: false, nestedBullet: "◦")
    }

    /// LibreOffice writes a floating picture as a shape: `{\shp{\*\shpinst …{\sp{\sn pib}{\sv {\pict\pngblip …}}}}}`.
    func testLibreOfficeFloatingPictureInAShape() throws {
        let input = try fixture("libreoffice/floating.rtf")
        let red = try fixture("red.png")
        let document = try read(input, .rtf)
        XCTAssertEqual(document.attachments.map(\.bytes), [red])
        XCTAssertEqual(document.paragraphs.first?.text, "\u{FFFC}Text beside a floating picture.")
        let html = String(decoding: try convert(input, .rtf, .html), as: UTF8.self)
        XCTAssertTrue(html.contains("data:image/png;base64," + Base64.encode(red)), html)
        XCTAssertEqual(try read(try convert(try convert(input, .rtf, .rtfd), .rtfd, .rtf), .rtf).attachments.map(\.bytes), [red])
        XCTAssertEqual(try read(try convert(Array(html.utf8), .html, .rtf), .rtf).attachments.map(\.bytes), [red])
        let expected = CorpusTests.normalized(String(decoding: try fixture("libreoffice/floating.expected.txt"), as: UTF8.self))
        XCTAssertEqual(CorpusTests.normalized(String(decoding: PlainTextWriter.write(document), as: UTF8.self)), expected)
    }

    /// AbiWord 3.0.5's RTF of the same document (from LibreOffice's .odt): AbiWord kept the headings, the footnote
    /// and the picture but not the non-Latin bold, and wrote each list item — the table too — inside `\listtext`
    /// with `\par`, which LibreOffice skips as a marker. We keep that text as paragraphs (without markers).
    func testAbiWordRTF() throws {
        let input = try fixture("abiword/fidelity.rtf")
        let document = try read(input, .rtf)
        XCTAssertEqual(try paragraph(document, "Fidelity heading").attributes.headingLevel, 1)
        XCTAssertEqual(try paragraph(document, "Third level").attributes.headingLevel, 3)
        XCTAssertTrue(try run(document, "bold").attributes.bold)
        XCTAssertFalse(try run(document, "太字です").attributes.bold, "AbiWord dropped it; LibreOffice shows it plain too")
        XCTAssertEqual(document.attachments.map(\.bytes), [try fixture("red.png")])
        let ours = String(decoding: PlainTextWriter.write(document), as: UTF8.self)
        let lines = ours.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        let libreOffice = String(decoding: try fixture("abiword/fidelity.expected.txt"), as: UTF8.self)
            .split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        for line in libreOffice { XCTAssertTrue(lines.contains(line), "\(line) missing from\n\(ours)") }
        for item in ["first bullet", "nested bullet", "three"] { XCTAssertTrue(lines.contains(item), "\(item) missing from\n\(ours)") }
        XCTAssertEqual(document.paragraphs.filter { $0.attributes.tableCell != nil }.map(\.text), ["wide header", "C1", "tall", "B2", "C2", "B3", "C3"])
        XCTAssertEqual(try paragraph(document, "wide header").attributes.tableCell?.columnSpan, 2)
        XCTAssertEqual(try paragraph(document, "tall").attributes.tableCell?.rowSpan, 2)
        let html = String(decoding: try convert(input, .rtf, .html), as: UTF8.self)
        XCTAssertTrue(html.contains("<h2"), html)
    }

    func testPictureThroughHTMLToRTFKeepsItsPixels() throws {
        let document = try read(try convert(try fixture("pandoc/memo.html"), .html, .rtf), .rtf)
        XCTAssertEqual(document.attachments.map(\.bytes), [try fixture("red.png")])
    }

    // MARK: Word (LibreOffice's RTF corpus, read in place)

    func corpusFile(_ name: String) throws -> [UInt8] {
        let url = CorpusTests.corpusDirectory.appendingPathComponent("rtf/\(name).rtf")
        try CorpusTests.requireCorpus(url.path, test: self.name)
        return Array(try Data(contentsOf: url))
    }

    func testWordSymbolBulletsBecomeBullets() throws {
        // Word writes its bullet as U+F0B7 in Symbol (fdo59638, in a list override) or with no font (n823675).
        for name in ["fdo59638", "n823675"] {
            let document = try read(try corpusFile(name), .rtf)
            let markers = document.paragraphs.compactMap(\.attributes.list?.marker)
            XCTAssertFalse(markers.isEmpty, name)
            XCTAssertEqual(Set(markers), ["•"], name)
            XCTAssertFalse(document.string.unicodeScalars.contains { (0xF000...0xF0FF).contains($0.value) }, name)
            let html = String(decoding: try convert(try corpusFile(name), .rtf, .html), as: UTF8.self)
            XCTAssertTrue(html.contains("<ul>"), name)
            // Through RTFD and back, and through our HTML into RTF, the bullet stays a bullet.
            let viaRTFD = try read(try convert(try convert(try corpusFile(name), .rtf, .rtfd), .rtfd, .rtf), .rtf)
            XCTAssertEqual(Set(viaRTFD.paragraphs.compactMap(\.attributes.list?.marker)), ["•"], name)
            let viaHTML = try read(try convert(Array(html.utf8), .html, .rtf), .rtf)
            XCTAssertEqual(Set(viaHTML.paragraphs.compactMap(\.attributes.list?.marker)), ["•"], name)
        }
        // Word 95 numbering: \pn numbers and a Symbol \'b7 bullet, which LibreOffice shows as 1. 2. • •.
        let pn = try read(try corpusFile("fdo47107"), .rtf)
        XCTAssertEqual(pn.paragraphs.compactMap(\.attributes.list?.marker), ["1.", "2.", "•", "•"])
    }

    func testWordShapeTextAndPicturesInShapes() throws {
        // A text box inside a SHAPE field's result: its text, without the shape's property names.
        let field = try read(try corpusFile("tdf126173"), .rtf)
        XCTAssertEqual(field.paragraphs.map(\.text).filter { !$0.isEmpty }, ["test"])
        let boxes = try read(try corpusFile("fdo53556"), .rtf)
        XCTAssertTrue(boxes.string.contains("ARL STATISTICS 2011-2012\u{2028}WORKSHEET"))
        XCTAssertTrue(boxes.string.contains("This worksheet is designed"))
        for leaked in ["fFilled", "fLine", "shapeType"] { XCTAssertFalse(boxes.string.contains(leaked), leaked) }
        let boxesHTML = String(decoding: try convert(try corpusFile("fdo53556"), .rtf, .html), as: UTF8.self)
        XCTAssertTrue(boxesHTML.contains("ARL STATISTICS 2011-2012<br>WORKSHEET"), boxesHTML)
        XCTAssertFalse(boxesHTML.contains("fFilled"), boxesHTML)
        let boxesBack = try read(try convert(try convert(try corpusFile("fdo53556"), .rtf, .rtfd), .rtfd, .rtf), .rtf)
        XCTAssertEqual(boxesBack.string, boxes.string, "text boxes through RTFD and back")
        XCTAssertEqual(try read(try convert(Array(boxesHTML.utf8), .html, .rtf), .rtf).string, boxes.string, "and through HTML")
        // A picture in a shape's pib property: one picture with its own pixels. wrap-distance's is a PNG;
        // behind-doc's \pngblip holds a GIF, which is what it is taken for (LibreOffice shows it too).
        let png = try XCTUnwrap(try read(try corpusFile("wrap-distance"), .rtf).attachments.first)
        XCTAssertEqual(png.mimeType, "image/png")
        XCTAssertEqual(Array(png.bytes.prefix(8)), [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        XCTAssertEqual(String(decoding: png.bytes[12..<16], as: UTF8.self), "IHDR")
        let back = try read(try convert(try convert(try corpusFile("wrap-distance"), .rtf, .rtfd), .rtfd, .rtf), .rtf)
        XCTAssertEqual(back.attachments.map(\.bytes), [png.bytes], "through RTFD and back, the same bytes")
        let gif = try read(try corpusFile("behind-doc"), .rtf).attachments
        XCTAssertEqual(gif.map(\.mimeType), ["image/gif"])
        XCTAssertEqual(gif.first.map { Array($0.bytes.prefix(6)) }, Array("GIF89a".utf8))
        let html = String(decoding: try convert(try corpusFile("behind-doc"), .rtf, .html), as: UTF8.self)
        XCTAssertTrue(html.contains("<img src=\"data:image/gif;base64,R0lGODlh"), "the GIF in HTML")
    }

    func testWordFootnoteAnchorsAndMergedCells() throws {
        // \chftn anchors show their number; the footnote's own text is not body text.
        let anchors = try read(try corpusFile("tdf87034"), .rtf)  // outside an assertion, so a skip is a skip
        XCTAssertEqual(anchors.paragraphs.first?.text, "A1B3C4D")
        // \clmgf + \clmrg: one cell spanning two columns, its text once.
        let merged = try read(try corpusFile("tdf117403"), .rtf)
        let a1 = try XCTUnwrap(merged.paragraphs.first { $0.text == "A1" }?.attributes.tableCell)
        XCTAssertEqual(a1.columnSpan, 2)
        XCTAssertEqual(merged.string.components(separatedBy: "A1").count, 2)
        let html = String(decoding: try convert(try corpusFile("tdf117403"), .rtf, .html), as: UTF8.self)
        XCTAssertTrue(html.contains("colspan=\"2\""), html)
    }

    /// Where LibreOffice 7.4's text export parts from Word's reading of these files, we keep Word's
    /// (CorpusTests.knownDifferences): an item written `\ls1\ilvl1` is on level 1, a `\levelnumbers` ending in a
    /// `{\uc1 \u59 ?}` group still numbers, a PAGE field in a table cell keeps the producer's result.
    func testWordListLevelsAndPageFieldInACellAsWordShowsThem() throws {
        let levels = try read(try corpusFile("tdf115715"), .rtf)  // outside an assertion, so a skip is a skip
        XCTAssertEqual(levels.paragraphs.map(\.text), ["before", "1", "a"])
        XCTAssertEqual(levels.paragraphs.map { $0.attributes.list?.marker }, [nil, "1.", "a."])
        XCTAssertEqual(levels.paragraphs.map { $0.attributes.list?.level }, [nil, 0, 1])
        let html = String(decoding: try convert(try corpusFile("tdf115715"), .rtf, .html), as: UTF8.self)
        XCTAssertTrue(html.contains("type=\"a\""), html)
        let viaRTFD = try read(try convert(try convert(try corpusFile("tdf115715"), .rtf, .rtfd), .rtfd, .rtf), .rtf)
        XCTAssertEqual(viaRTFD.paragraphs.map { $0.attributes.list?.marker }, [nil, "1.", "a."])
        // Its sibling says in its own text what the second item's label is.
        let named = try read(try corpusFile("tdf115242"), .rtf)
        XCTAssertEqual(try paragraph(named, "This is \u{201C}a\u{201D}").attributes.list?.marker, "a.")
        let semicolonGroup = try read(try corpusFile("tdf78506"), .rtf)
        XCTAssertEqual(semicolonGroup.paragraphs.first?.attributes.list?.marker, "1.")
        XCTAssertEqual(semicolonGroup.paragraphs.first?.text, "Test.")
        let page = try read(try corpusFile("fdo42109"), .rtf)
        let cells = page.paragraphs.filter { $0.attributes.tableCell != nil }
        XCTAssertEqual(cells.map(\.text), ["", "1"])
        XCTAssertEqual(cells.map { $0.attributes.tableCell?.column }, [0, 1])
    }

    /// A body with nothing but text boxes (`{\*\do … \dptxbx}`, Word 6/95's drawing objects, a rectangle between
    /// them): every box's text, in document order, in plain text too. LibreOffice's text export writes only the
    /// first (its rule for a frame copied to the clipboard); its HTML export writes both.
    func testTextBoxesOfAnEmptyBodyAreAllKept() throws {
        let input = try corpusFile("do-dhgt-old")
        let boxes = try read(input, .rtf)
        XCTAssertEqual(boxes.paragraphs.map(\.text).filter { !$0.isEmpty }, ["a", "b"])
        XCTAssertTrue(try run(boxes, "b").attributes.bold)
        XCTAssertEqual(CorpusTests.normalized(String(decoding: try convert(input, .rtf, .txt), as: UTF8.self)), "a b")
    }

    // MARK: Text boxes are not running text

    /// The text of each box is kept by HTML (and, read back, by the RTF made from that HTML) and by RTFD and back.
    func assertKeepsBoxText(
        _ input: [UInt8], _ boxText: [String], file: StaticString = #filePath, line: UInt = #line
    ) throws {
        let html = try convert(input, .rtf, .html)
        let fromHTML = try read(try convert(html, .html, .rtf), .rtf).string
        let viaRTFD = try read(try convert(try convert(input, .rtf, .rtfd), .rtfd, .rtf), .rtf).string
        for text in boxText {
            XCTAssertTrue(String(decoding: html, as: UTF8.self).contains(text), "\(text) in HTML", file: file, line: line)
            XCTAssertTrue(fromHTML.contains(text), "\(text) through HTML into RTF", file: file, line: line)
            XCTAssertTrue(viaRTFD.contains(text), "\(text) through RTFD and back", file: file, line: line)
        }
    }

    /// Word's and LibreOffice's text boxes anchored in body text (a `\shp` text box, a Word 6/95 `{\*\do}` text
    /// box, a text box in a table cell): plain text is the body's, exactly LibreOffice's text export; the box's
    /// text stays in HTML, where LibreOffice's HTML export has it too.
    func testTextBoxesInRunningTextStayOutOfPlainTextAndInHTML() throws {
        for (name, box) in [("shptxt-pard", "shape text"), ("tdf91074", "inner"), ("fdo47802", "C")] {
            let input = try corpusFile(name)
            let text = CorpusTests.normalized(String(decoding: try convert(input, .rtf, .txt), as: UTF8.self))
            let expected = CorpusTests.corpusDirectory.appendingPathComponent("expected-text/\(name).txt")
            XCTAssertEqual(text, CorpusTests.normalized(String(decoding: try Data(contentsOf: expected), as: UTF8.self)), name)
            XCTAssertFalse(text.contains(box), "\(name): \(text)")
            try assertKeepsBoxText(input, [box])
            let html = try read(try convert(input, .rtf, .html), .html)
            let ours = CorpusTests.normalized(String(decoding: PlainTextWriter.write(html), as: UTF8.self))
            let libreOfficeHTML = CorpusTests.normalized(String(decoding: try fixture("corpus-html-text/\(name).txt"), as: UTF8.self))
            if name == "fdo47802" {  // LibreOffice puts the box after the cell's text, we where it is anchored
                XCTAssertEqual(ours.split(separator: " ").sorted(), libreOfficeHTML.split(separator: " ").sorted(), name)
            } else {
                XCTAssertEqual(ours, libreOfficeHTML, "\(name): our HTML's text is LibreOffice's HTML export's")
            }
        }
    }

    /// LibreOffice's clipboard after copying a paragraph with a text frame anchored in it
    /// (Fixtures/libreoffice/copied-text-and-frame.*): our plain text is LibreOffice's own plain text of that copy.
    func testLibreOfficeCopiedTextWithAFrame() throws {
        let input = try fixture("libreoffice/copied-text-and-frame.rtf")
        let libreOffice = String(decoding: try fixture("libreoffice/copied-text-and-frame.txt"), as: UTF8.self)
        XCTAssertEqual(libreOffice, "Body before the frame.")
        XCTAssertEqual(String(decoding: try convert(input, .rtf, .txt), as: UTF8.self), libreOffice + "\n")
        try assertKeepsBoxText(input, ["Copied frame", "with a second line"])
    }

    /// LibreOffice's clipboard after copying a selected text frame (Fixtures/libreoffice/copied-frame.rtf): an
    /// empty body and the frame, and no plain text of LibreOffice's own. The plain text we derive is the frame's.
    func testLibreOfficeCopiedFrameGivesItsTextAsPlainText() throws {
        let input = try fixture("libreoffice/copied-frame.rtf")
        XCTAssertEqual(String(decoding: try convert(input, .rtf, .txt), as: UTF8.self), "Copied frame\nwith a second line\n")
        try assertKeepsBoxText(input, ["Copied frame", "with a second line"])
    }

    // MARK: Word, Google Docs and LibreOffice HTML

    /// Word's clipboard HTML for lists: `mso-list` paragraphs whose marker sits in a conditional `supportLists`
    /// span (written after the structure Word 2016 puts on the clipboard, as documented in Microsoft's
    /// "Office HTML and XML Reference"; no Word runs here).
    func testWordHTMLListsConditionalCommentsAndOfficeTags() throws {
        let html = """
            <html xmlns:o="urn:schemas-microsoft-com:office:office"><head><!--[if gte mso 9]><xml><o:OfficeDocumentSettings>x</o:OfficeDocumentSettings></xml><![endif]-->
            <style>p.MsoNormal {margin:0cm;}</style></head><body lang=EN-GB>
            <p class=MsoTitle>Report<o:p></o:p></p>
            <p class=MsoListParagraphCxSpFirst style='text-indent:-18.0pt;mso-list:l0 level1 lfo1'><![if !supportLists]><span style='font-family:Symbol'><span style='mso-list:Ignore'>·<span style='font:7.0pt "Times New Roman"'>&nbsp;&nbsp;&nbsp;&nbsp;&nbsp;&nbsp;&nbsp; </span></span></span><![endif]>Apples<o:p></o:p></p>
            <p class=MsoListParagraphCxSpLast style='margin-left:72.0pt;text-indent:-18.0pt;mso-list:l0 level2 lfo1'><![if !supportLists]><span style='font-family:"Courier New"'><span style='mso-list:Ignore'>o<span style='font:7.0pt "Times New Roman"'>&nbsp;&nbsp; </span></span></span><![endif]>Pears<o:p></o:p></p>
            <p class=MsoListParagraph style='text-indent:-18.0pt;mso-list:l1 level1 lfo2'><![if !supportLists]><span style='mso-list:Ignore'>1.<span style='font:7.0pt "Times New Roman"'>&nbsp;&nbsp;&nbsp; </span></span><![endif]><b style='mso-bidi-font-weight:normal'>First</b><o:p></o:p></p>
            <p class=MsoNormal>After<o:p>&nbsp;</o:p></p>
            <div style='mso-element:footnote-list'><div style='mso-element:footnote' id=ftn1><p class=MsoFootnoteText>note</p></div></div>
            </body></html>
            """
        let document = try read(Array(html.utf8), .html)
        let items = document.paragraphs.filter { $0.attributes.list != nil }
        XCTAssertEqual(items.map(\.text), ["Apples", "Pears", "First"])
        XCTAssertEqual(items.map { $0.attributes.list?.marker }, ["•", "o", "1."])
        XCTAssertEqual(items.map { $0.attributes.list?.level }, [0, 1, 0])
        XCTAssertTrue(try run(document, "First").attributes.bold)
        XCTAssertFalse(document.string.contains("·"))
        XCTAssertFalse(document.string.contains("note"), "Word's footnote list is not body text")
        let rtf = try read(try convert(Array(html.utf8), .html, .rtf), .rtf)
        XCTAssertEqual(rtf.paragraphs.compactMap(\.attributes.list?.marker), ["•", "o", "1."])
    }

    /// Google Docs wraps its clipboard HTML in `<b style="font-weight:normal" id="docs-internal-guid-…">` and
    /// marks bold with `font-weight:700` (the structure Docs writes; no browser runs here).
    func testGoogleDocsWrapperIsNotBold() throws {
        let html = """
            <meta charset="utf-8"><b style="font-weight:normal;" id="docs-internal-guid-1b2c3d4e-7fff-1234-5678-9abcdef01234"><h1 dir="ltr" style="line-height:1.38;margin-top:20pt;margin-bottom:6pt;"><span style="font-size:20pt;font-family:Arial,sans-serif;color:#000000;background-color:transparent;font-weight:400;font-style:normal;">Title</span></h1><p dir="ltr" style="line-height:1.38;margin-top:0pt;margin-bottom:0pt;"><span style="font-size:11pt;font-family:Arial,sans-serif;color:#000000;font-weight:400;">plain </span><span style="font-size:11pt;font-family:Arial,sans-serif;color:#000000;font-weight:700;">strong</span><span style="font-size:11pt;font-family:Arial,sans-serif;font-weight:400;font-style:italic;"> 斜体</span></p><ul style="margin-top:0;margin-bottom:0;padding-inline-start:48px;"><li dir="ltr" style="list-style-type:disc;font-size:11pt;" aria-level="1"><p dir="ltr" style="line-height:1.38;margin-top:0pt;margin-bottom:0pt;" role="presentation"><span style="font-size:11pt;font-weight:400;">item</span></p></li></ul><div dir="ltr" style="margin-left:0pt;" align="left"><table style="border:none;border-collapse:collapse;"><colgroup><col width="100" /><col width="100" /></colgroup><tbody><tr style="height:0pt"><td colspan="2" style="vertical-align:top;"><p dir="ltr"><span style="font-weight:400;">merged</span></p></td></tr><tr><td><p dir="ltr"><span>a</span></p></td><td><p dir="ltr"><span>b</span></p></td></tr></tbody></table></div></b><br class="Apple-interchange-newline">
            """
        let document = try read(Array(html.utf8), .html)
        XCTAssertFalse(try run(document, "plain").attributes.bold)
        XCTAssertTrue(try run(document, "strong").attributes.bold)
        XCTAssertTrue(try run(document, "斜体").attributes.italic)
        XCTAssertEqual(try paragraph(document, "Title").attributes.headingLevel, 1)
        XCTAssertEqual(try paragraph(document, "item").attributes.list?.marker, "•")
        XCTAssertEqual(try paragraph(document, "merged").attributes.tableCell?.columnSpan, 2)
        let rtf = try read(try convert(Array(html.utf8), .html, .rtf), .rtf)
        XCTAssertEqual(try paragraph(rtf, "merged").attributes.tableCell?.columnSpan, 2)
        XCTAssertFalse(try run(rtf, "plain").attributes.bold)
        XCTAssertTrue(try run(rtf, "strong").attributes.bold)
    }

    // MARK: Robustness

    func testEscapeCutOffAtTheEndEmitsNothing() {
        XCTAssertEqual(readRTF(#"{\rtf1 ab\'8"#).document.string, "ab")
        XCTAssertEqual(readRTF(#"{\rtf1 ab\'"#).document.string, "ab")
        XCTAssertEqual(readRTF(#"{\rtf1 a\'4x}"#).document.string, "ax")
    }

    func testShapeTextNestedBeyondTheCapKeepsTheBodyInOrder() {
        let depth = 100
        var rtf = #"{\rtf1 before "#
        for i in 0..<depth { rtf += #"{\shp{\shptxt s\#(i) "# }
        rtf += String(repeating: "}}", count: depth) + #" after\par}"#
        let paragraphs = readRTF(rtf).document.paragraphs.map(\.text)
        XCTAssertEqual(paragraphs.last, "before  after")
        XCTAssertTrue(paragraphs.contains { $0.hasPrefix("s63") }, "\(paragraphs)")
        XCTAssertEqual(paragraphs.joined().components(separatedBy: "s99").count, 2)
    }

    func testNestedFieldInInstructionDoesNotLeakItsResult() {
        let r = readRTF(#"{\rtf1 {\field{\*\fldinst {HYPERLINK "https://e.x/"}{\field{\*\fldinst PAGE}{\fldrslt 7}}}{\fldrslt shown}} end}"#)
        XCTAssertEqual(r.document.string, "shown end")
        XCTAssertEqual(runs(r.document).first?.attributes.link?.url, "https://e.x/")
    }
}
