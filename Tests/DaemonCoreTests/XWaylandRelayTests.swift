// SPDX-License-Identifier: Apache-2.0
@testable import DaemonCore
import XCTest

/// The MIME types the compositor's bridge (wlroots' xwm) offers on the seat for an X copy: what the seat endpoint
/// expects to see of the relay display's copy, so that it is not taken for a copy of the seat's own.
final class XWaylandRelayTests: XCTestCase {
    func testTheBridgeKeepsNamesWithASlashAndRenamesTheTwoTextTargets() {
        XCTAssertEqual(XWaylandRelay.mimeTypes(relaying: ["TARGETS", "TIMESTAMP", "UTF8_STRING", "STRING", "TEXT", "COMPOUND_TEXT",
                                                           "text/html", "image/png", "com.apple.flat-rtfd", "SAVE_TARGETS"]),
                       ["text/plain;charset=utf-8", "text/plain", "text/html", "image/png"])
    }

    func testAnXCopyOfOnlyXNamesIsCarriedWithNoTypes() {
        XCTAssertEqual(XWaylandRelay.mimeTypes(relaying: ["STRING", "COMPOUND_TEXT"]), [])
    }

    func testWlCopysTypesAreNeverTheBridgesShape() {
        // wl-copy (and GTK, Qt) offer text under X names too: never what the bridge makes of any X copy.
        let wlCopy: Set<String> = ["text/plain", "text/plain;charset=utf-8", "TEXT", "STRING", "UTF8_STRING"]
        XCTAssertNotEqual(XWaylandRelay.mimeTypes(relaying: Array(wlCopy)), wlCopy)
    }
}
