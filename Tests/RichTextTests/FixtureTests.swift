// SPDX-License-Identifier: Apache-2.0
import XCTest

@testable import RichText

/// Documents written by other producers (see Fixtures/README.md). Expected text comes from LibreOffice's own
/// text export of the same document, not from our output; layout differences (list indentation, one table
/// cell per line) are removed by comparing trimmed non-empty lines split at line breaks and tabs.
final class FixtureTests: XCTestCase {
    func lines(_ text: String) -> [String] {
        text.split(whereSeparator: { $0 == "\n" || $0 == "\t" || $0 == "\r\n" })
            .map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }
    }

    func expectedLines(_ name: String) throws -> [String] {
        lines(String(decoding: try fixture(name), as: UTF8.self))
    }

    func plainText(_ name: String, _ format: DocumentFormat) throws -> String {
        String(decoding: try RichTextConverter.convert(try fixture(name), from: format, to: .txt, codePages: systemCodePages).bytes, as: UTF8.self)
    }

    func run(_ document: AttributedDocument, containing text: String) throws -> TextRun {
        try XCTUnwrap(runs(document).first { $0.text.contains(text) }, "no run containing \(text)")
    }

    func testLibreOfficeRTF() throws {
        XCTAssertEqual(lines(try plainText("libreoffice/memo.rtf", .rtf)), try expectedLines("libreoffice/memo.expected.txt"))
        let result = RTFReader.read(try fixture("libreoffice/memo.rtf"), codePages: systemCodePages)
        let document = result.document
        XCTAssertEqual(try run(document, containing: "link to example").attributes.link?.url, "https://example.org/?a=1&b=2")
        XCTAssertTrue(try run(document, containing: "bold").attributes.bold)
        XCTAssertTrue(try run(document, containing: "italic").attributes.italic)
        XCTAssertEqual(try run(document, containing: "struck").attributes.strikethrough, .single)
        XCTAssertEqual(document.attachments.map(\.bytes), [try fixture("red.png")])
        XCTAssertEqual(document.attachments.first?.mimeType, "image/png")
        let cells = document.paragraphs.compactMap(\.attributes.tableCell)
        XCTAssertEqual(cells.map(\.row), [0, 0, 1, 1, 2, 2])
        XCTAssertEqual(cells.map(\.column), [0, 1, 0, 1, 0, 1])
        let lists = document.paragraphs.compactMap(\.attributes.list)
        XCTAssertEqual(lists.map(\.kind), [.bullet, .bullet, .bullet, .bullet, .decimal, .decimal, .decimal])
        XCTAssertEqual(lists.map(\.level), [0, 0, 1, 0, 0, 0, 0])
        XCTAssertEqual(document.paragraphs.first?.attributes.headingLevel, 1)
    }

    func testLibreOfficeHTML() throws {
        // LibreOffice's HTML export also writes its page footer (a PAGE field showing "1"); its text export does not.
        XCTAssertEqual(lines(try plainText("libreoffice/memo.html", .html)), try expectedLines("libreoffice/memo.expected.txt") + ["1"])
        let document = HTMLReader.read(try fixture("libreoffice/memo.html"), codePages: systemCodePages).document
        XCTAssertEqual(try run(document, containing: "link to example").attributes.link?.url, "https://example.org/?a=1&b=2")
        XCTAssertTrue(try run(document, containing: "bold").attributes.bold)
    }

    func testPandocRTF() throws {
        XCTAssertEqual(lines(try plainText("pandoc/memo.rtf", .rtf)), try expectedLines("pandoc/memo.rtf.expected.txt"))
        let document = RTFReader.read(try fixture("pandoc/memo.rtf"), codePages: systemCodePages).document
        XCTAssertEqual(document.attachments.map(\.bytes), [try fixture("red.png")])
        XCTAssertEqual(document.attachments.first?.width, 40)
        XCTAssertEqual(document.paragraphs.first?.attributes.headingLevel, 1)
        XCTAssertEqual(try run(document, containing: "code").attributes.fontFamily, "Courier")
    }

    func testPandocHTML() throws {
        XCTAssertEqual(lines(try plainText("pandoc/memo.html", .html)), try expectedLines("pandoc/memo.html.expected.txt"))
        let document = HTMLReader.read(try fixture("pandoc/memo.html"), codePages: systemCodePages).document
        XCTAssertEqual(try run(document, containing: "link to example").attributes.link, Link(url: "https://example.org/?a=1&b=2", title: "Example site"))
        XCTAssertEqual(document.attachments.map(\.bytes), [try fixture("red.png")])
        XCTAssertEqual(try run(document, containing: "struck").attributes.strikethrough, .single)
    }

    func testCocoaTextEdit() throws {
        XCTAssertEqual(lines(try plainText("cocoa/textedit.rtf", .rtf)), try expectedLines("cocoa/textedit.expected.txt"))
        let document = RTFReader.read(try fixture("cocoa/textedit.rtf"), codePages: systemCodePages).document
        let bold = try run(document, containing: "bold")
        XCTAssertEqual(bold.attributes.fontFamily, "Helvetica-Bold")
        XCTAssertTrue(bold.attributes.bold)
        XCTAssertEqual(try run(document, containing: "red").attributes.foregroundColor, RGBColor(red: 220, green: 20, blue: 60))
        let link = try run(document, containing: "a link")
        XCTAssertEqual(link.attributes.link?.url, "https://www.apple.com/")
        XCTAssertEqual(link.attributes.backgroundColor, RGBColor(red: 255, green: 255, blue: 0))
        XCTAssertEqual(try run(document, containing: "テキスト").attributes.fontFamily, "HiraginoSans-W3")
        let items = document.paragraphs.filter { $0.attributes.list != nil }
        XCTAssertEqual(items.map(\.text), ["first item", "second item"])
        XCTAssertEqual(items.map { $0.attributes.list?.marker }, ["•", "•"])
        XCTAssertEqual(document.paragraphs.last?.attributes.alignment, .center)
        // The same document through HTML keeps what a reader sees.
        let html = String(decoding: try RichTextConverter.convert(try fixture("cocoa/textedit.rtf"), from: .rtf, to: .html, codePages: systemCodePages).bytes, as: UTF8.self)
        XCTAssertTrue(html.contains(#"<a href="https://www.apple.com/"><span style="font-family: Helvetica; font-size: 12pt; background-color: #ffff00">a link</span></a>"#), html)
        XCTAssertTrue(html.contains("<ul>\n" + #"<li><span style="font-family: Helvetica; font-size: 12pt">first item</span></li>"#), html)
    }
}
