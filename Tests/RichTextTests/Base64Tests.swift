// SPDX-License-Identifier: Apache-2.0
import RichText
import XCTest

/// The one base64 encoder (HTML's data: URIs, OSC 52): RFC 4648's test vectors.
final class Base64Tests: XCTestCase {
    func testBase64IsRFC4648() {
        for (plain, encoded) in [("", ""), ("f", "Zg=="), ("fo", "Zm8="), ("foo", "Zm9v"), ("foob", "Zm9vYg=="),
                                 ("fooba", "Zm9vYmE="), ("foobar", "Zm9vYmFy")] {
            XCTAssertEqual(String(decoding: Base64.encodedBytes(Array(plain.utf8)), as: UTF8.self), encoded, plain)
        }
        XCTAssertEqual(String(decoding: Base64.encodedBytes([0xFF, 0xFE, 0x00, 0x3E, 0x3F]), as: UTF8.self), "//4APj8=")
    }
}
