// SPDX-License-Identifier: Apache-2.0
import PasteboardCore
import XCTest

/// `detectPatterns`: what a copy's text is, for hooks that branch without reading it.
final class TextPatternsTests: XCTestCase {
    private func patterns(_ text: String) -> [String] { TextPatterns.detect(Array(text.utf8)).names }

    func testURLs() {
        for text in ["https://example.org/a?b=c", "  http://x.y/z\n", "www.example.org", "mailto:a@b.org", "file:///tmp/x",
                     "https://a.org\nhttps://b.org\n"] {
            XCTAssertEqual(patterns(text), ["url"], text.debugDescription)
        }
        for text in ["see https://example.org", "https://a.org and more", "example.org", "www.", "https://a.org\nnot one"] {
            XCTAssertFalse(patterns(text).contains("url"), text.debugDescription)
        }
    }

    func testEmailAddresses() {
        for text in ["someone@example.org", "<first.last+tag@mail.example.co.uk>", " a_b-c@x-y.io \n", "a@b.org\nc@d.net"] {
            XCTAssertEqual(patterns(text), ["email"], text.debugDescription)
        }
        for text in ["someone@localhost", "a@@b.org", "@b.org", "a@b.c", "a@-b.org", "a..b@c.org", "write to a@b.org",
                     "a@b.org1", ".a@b.org"] {
            XCTAssertFalse(patterns(text).contains("email"), text.debugDescription)
        }
    }

    func testNumbers() {
        for text in ["42", "-17", "+3.25", ".5", "1e10", "6.02e-23", "1,234,567", "1 234 567.89", "1_000_000", "0xFF", "  12\n",
                     "1\n2\n3"] {
            XCTAssertEqual(patterns(text), ["number"], text.debugDescription)
        }
        for text in ["12a", "1,23,4", "1.2.3", "0x", "-", "e5", "1e", "3 apples", "12:30", "1,2345", "1.", "١٢"] {
            XCTAssertFalse(patterns(text).contains("number"), text.debugDescription)
        }
    }

    func testPaths() {
        for text in ["/etc/hosts", "~/notes.txt", "~alice/src", "./build.sh", "../up", "/", "/a b/with spaces",
                     "/usr/bin\n/usr/lib"] {
            XCTAssertEqual(patterns(text), ["path"], text.debugDescription)
        }
        for text in ["etc/hosts", "file:///etc/hosts", "notes.txt", "a/b", "~bad user/x"] {
            XCTAssertFalse(patterns(text).contains("path"), text.debugDescription)
        }
    }

    /// Text from Windows (`\r\n`) and old Mac (`\r`) programs is judged line by line as Unix text is, whichever
    /// break ends or follows a line; a path with a NUL in it is no path, wherever the NUL is.
    func testEveryKindOfLineBreakEndsALine() {
        for text in ["/usr/bin\r\n/usr/lib\r\n", "/usr/bin\r/usr/lib", "/usr/bin\n\r\n\r/usr/lib", "42\r\n-7"] {
            XCTAssertEqual(patterns(text).count, 1, text.debugDescription)
        }
        XCTAssertEqual(patterns("/usr/bin\r\nHello"), [], "the second line, after a CR LF, is judged too")
        XCTAssertEqual(patterns("/usr/bin\rHello"), [], "likewise after a lone CR")
        for text in ["/tmp/a\0b", "./x\0\u{301}", "~/\0"] {
            XCTAssertFalse(patterns(text).contains("path"), text.debugDescription)
        }
    }

    func testPlainTextAndNothingHoldNoPattern() {
        XCTAssertEqual(patterns("Hello, world"), [])
        XCTAssertEqual(patterns(""), [])
        XCTAssertEqual(patterns(" \n\t "), [], "white space only is nothing")
        XCTAssertEqual(TextPatterns.detect([0xFF, 0xFE, 0x00]), [], "bytes that are not UTF-8 are no pattern")
    }

    func testOnlyTheFirstFourKiBAreJudged() {
        // Lines of URLs for 4 KiB, then prose: judged a URL list on what is looked at, the cut line left out.
        var text = ""
        while text.utf8.count < TextPatterns.scannedBytes + 100 { text += "https://example.org/\(text.utf8.count)\n" }
        text += "and then some words that are no URL"
        XCTAssertEqual(patterns(text), ["url"])
        // The line that the 4 KiB cut in two is not judged: a number cut short is not taken for prose.
        let long = String(repeating: "12345\n", count: 700) + "tail"
        XCTAssertEqual(patterns(long), ["number"])
        XCTAssertEqual(TextPatterns.detect(Array("https://a.org\nhttps://b".utf8), continues: true).names, ["url"])
    }

    func testNamesRoundTrip() {
        let all: TextPatterns = [.url, .email, .number, .path]
        XCTAssertEqual(all.names, ["url", "email", "number", "path"])
        XCTAssertEqual(TextPatterns(names: ["path", "url", "bogus"]), [.url, .path])
    }

    func testContentPatternsComeFromItsPlainTextInAnyEncoding() throws {
        let utf8 = PasteboardContent(items: [try PasteboardItem([(type: .utf8String, data: Array("https://example.org".utf8))])])
        XCTAssertEqual(utf8.textPatterns(), .url)
        let latin1 = PasteboardContent(items: [try PasteboardItem([(type: PasteboardType("STRING"), data: Array("/tmp/caf\u{E9}".unicodeScalars.map { UInt8($0.value) }))])])
        XCTAssertEqual(latin1.textPatterns(), .path)
        let picture = PasteboardContent(items: [try PasteboardItem([(type: PasteboardType("image/png"), data: [0x89, 0x50])])])
        XCTAssertEqual(picture.textPatterns(), [], "no text, no pattern")
        // A large copy: only its start is converted and judged.
        let big = PasteboardContent(items: [try PasteboardItem([(type: .utf8String, data: Array(String(repeating: "7", count: 10 << 20).utf8))])])
        XCTAssertEqual(big.textPatterns(), [], "one 10 MiB line, cut at 4 KiB, is not judged")
        let lines = PasteboardContent(items: [try PasteboardItem([(type: .utf8String, data: Array(String(repeating: "a@b.org\n", count: 1 << 17).utf8))])])
        XCTAssertEqual(lines.textPatterns(), .email)
    }
}
