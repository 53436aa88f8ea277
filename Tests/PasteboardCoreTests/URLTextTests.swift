// SPDX-License-Identifier: Apache-2.0
import PasteboardCore
import XCTest

/// Text that is one URL, as UIPasteboard's `url` and `urls` see it (a URI list's entries: FileListTests).
final class URLTextTests: XCTestCase {
    func testTextThatIsOneURLAndNothingElse() {
        for url in ["https://example.org", "https://example.org/a?b=c#d", "file:///tmp/x", "mailto:someone@example.org",
                    "tel:+44123", "urn:isbn:0451450523", "magnet:?xt=urn:btih:abc", "svn+ssh://host/repo", "HTTP://EXAMPLE.ORG"] {
            XCTAssertEqual(URLText.singleURL(in: url), url, url)
        }
        XCTAssertEqual(URLText.singleURL(in: "  https://example.org/x\n"), "https://example.org/x", "surrounding white space aside")
        for text in ["see https://example.org", "https://example.org and more", "example.org", "hello", "", "https://",
                     "note: this", "a:b", "1http://x", "https://exa mple.org", "mailto:", "https://x\u{0}y",
                     "https://example.org/" + String(repeating: "a", count: URLText.maximumLength)] {
            XCTAssertNil(URLText.singleURL(in: text), text.debugDescription)
        }
    }
}
