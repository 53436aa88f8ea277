// SPDX-License-Identifier: Apache-2.0
import PasteboardCore
import XCTest

final class DisplayNameTests: XCTestCase {
    func testLocalFormsNameTheSameServer() {
        XCTAssertTrue(DisplayName.sameServer(":0", ":0.0"))
        XCTAssertTrue(DisplayName.sameServer("unix:0", ":0.1"))
        XCTAssertTrue(DisplayName.sameServer(":12", "unix:12.0"))
    }

    func testOtherNumbersOrHostsAreOtherServers() {
        XCTAssertFalse(DisplayName.sameServer(":0", ":1"))
        XCTAssertFalse(DisplayName.sameServer(":0", "localhost:0"))
        XCTAssertFalse(DisplayName.sameServer("remote:10.0", ":10"))
        XCTAssertTrue(DisplayName.sameServer("remote:10.0", "remote:10"))
    }

    func testMalformedNamesMatchNothing() {
        for bad in ["", "0", ":", ":x", ":0.", ":0.a", "host::0", ":-1", ":99999999999"] {
            XCTAssertNil(DisplayName(bad), bad)
            XCTAssertFalse(DisplayName.sameServer(bad, bad), bad)
        }
        XCTAssertEqual(DisplayName("[::1]:3")?.number, 3, "an IPv6 host keeps everything before the last colon")
    }
}
