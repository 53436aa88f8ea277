// SPDX-License-Identifier: Apache-2.0
import XCTest

@testable import RichText

final class RichTextConverterTests: XCTestCase {
    let memo = bytes(#"{\rtf1\ansi{\fonttbl{\f0\froman Times;}}{\colortbl;\red255\green0\blue0;}\f0 Hello {\b\cf1 world}\par second}"#)

    func testSameFormatIsPassthrough() throws {
        let odd = bytes(#"{\rtf1 {\v hidden} \foo\bar keeps everything}"#)
        for format in [DocumentFormat.txt, .rtf, .html, .rtfd] {
            XCTAssertEqual(try RichTextConverter.convert(odd, from: format, to: format).bytes, odd)
        }
    }

    func testRTFToEveryFormat() throws {
        XCTAssertEqual(String(decoding: try RichTextConverter.convert(memo, from: .rtf, to: .txt).bytes, as: UTF8.self), "Hello world\nsecond")
        let html = String(decoding: try RichTextConverter.convert(memo, from: .rtf, to: .html).bytes, as: UTF8.self)
        XCTAssertTrue(html.hasPrefix("<!DOCTYPE html>"), html)
        XCTAssertTrue(html.contains(#"<meta charset="utf-8">"#), html)
        XCTAssertTrue(html.contains(#"<span style="font-family: Times; color: #ff0000"><b>world</b></span>"#), html)
        let rtfd = try RichTextConverter.convert(memo, from: .rtf, to: .rtfd).bytes
        XCTAssertEqual(Array(rtfd.prefix(4)), bytes("rtfd"))
        XCTAssertEqual(String(decoding: try RichTextConverter.convert(rtfd, from: .rtfd, to: .txt).bytes, as: UTF8.self), "Hello world\nsecond")
        let text = try RichTextConverter.convert(bytes("plain & <text>\n"), from: .txt, to: .html).bytes
        XCTAssertTrue(String(decoding: text, as: UTF8.self).contains("<p>plain &amp; &lt;text&gt;</p>"))
    }

    func testDirectoryFormatIsRejectedWithAClearError() {
        XCTAssertThrowsError(try RichTextConverter.convert(memo, from: .rtf, to: .rtfdDirectory)) { error in
            XCTAssertEqual((error as? RichTextError)?.kind, .unsupported)
        }
    }

    func testHostileRTFDIsATypedError() {
        XCTAssertThrowsError(try RichTextConverter.convert(bytes("rtfd\0\0\0\0\u{3}\0\0\0\u{ff}\u{ff}\u{ff}\u{7f}"), from: .rtfd, to: .txt)) { error in
            XCTAssertTrue(error is RichTextError)
            XCTAssertTrue("\(error)".contains("flat RTFD"), "\(error)")
        }
    }

    func testWarningsAreReported() throws {
        let output = try RichTextConverter.convert(bytes(#"{\rtf1 Hello {\b bold"#), from: .rtf, to: .txt)
        XCTAssertEqual(String(decoding: output.bytes, as: UTF8.self), "Hello bold")
        XCTAssertEqual(output.warnings.count, 1)
    }

    func testInfo() throws {
        let info = try RichTextConverter.info(memo, format: .rtf)
        XCTAssertEqual(info, """
            Format: RTF
            Size: \(memo.count) bytes
            Characters: 18
            Paragraphs: 2
            Attachments: 0
            Fonts: Times
            Warnings: none

            """)
        let rtfd = try RichTextConverter.info(try fixture("rtfd/worked-example-197.rtfd"), format: .rtfd)
        XCTAssertTrue(rtfd.contains("Attachments: 1 (a.png)"), rtfd)
    }

    func testFormatNames() {
        XCTAssertEqual(DocumentFormat(rawValue: "rtf-dir"), nil)
        XCTAssertEqual(DocumentFormat(rawValue: "rtfd-dir"), .rtfdDirectory)
        XCTAssertEqual(DocumentFormat.allCases.map(\.rawValue), ["txt", "rtf", "html", "rtfd", "rtfd-dir"])
    }
}
