// SPDX-License-Identifier: Apache-2.0
@testable import DaemonCore
import PasteboardCore
import XCTest

/// Type names across the Wayland edge: X's own text targets never reach Wayland readers, who get UTF-8 text
/// under its MIME names; every other name passes as it is, both ways; the daemon's marker never becomes a type.
final class WaylandTypesTests: XCTestCase {
    func testXTextTargetsBecomeTheMIMETextNamesOnce() {
        let x: [PasteboardType] = [.utf8String, .string, .text, .compoundText, .html, .flatRTFD, .png]
        XCTAssertEqual(WaylandTypes.mimeTypes(for: x),
                       ["text/plain;charset=utf-8", "text/plain", "text/html", "com.apple.flat-rtfd", "image/png"])
        XCTAssertEqual(WaylandTypes.mimeTypes(for: [.utf8PlainText, .utf8String]), ["text/plain;charset=utf-8", "text/plain"],
                       "no name twice")
        XCTAssertEqual(WaylandTypes.mimeTypes(for: [.string]), [], "Latin-1 alone is not offered as UTF-8")
    }

    func testAWaylandReadersMIMENameFindsTheTypeServed() {
        XCTAssertEqual(WaylandTypes.pasteboardType(forMIME: "text/plain", offered: [.utf8String, .html]), .utf8String)
        XCTAssertEqual(WaylandTypes.pasteboardType(forMIME: "text/html", offered: [.utf8String, .html]), .html)
        XCTAssertNil(WaylandTypes.pasteboardType(forMIME: "image/png", offered: [.utf8String]))
    }

    func testAnotherEndpointsTypeFindsTheWaylandOffersMIMEName() {
        let offered = ["text/plain;charset=utf-8", "text/html", WaylandSeatEndpoint.ownMarker]
        XCTAssertEqual(WaylandTypes.mimeType(for: .utf8String, offered: offered), "text/plain;charset=utf-8")
        XCTAssertEqual(WaylandTypes.mimeType(for: .html, offered: offered), "text/html")
        XCTAssertEqual(WaylandTypes.mimeType(for: .text, offered: ["text/plain"]), "text/plain")
        XCTAssertNil(WaylandTypes.mimeType(for: .png, offered: offered))
        XCTAssertEqual(WaylandTypes.pasteboardTypes(fromMIME: offered).map(\.rawValue), ["text/plain;charset=utf-8", "text/html"])
    }

    func testAHostileListOfTypesCostsAtMostTheCapAndNamesNoItemMayCarryAreLeftOut() {
        let hostile = ["", "bad\u{0}name", String(repeating: "x", count: 70_000), "text/html", "text/html"]
            + (0..<5_000).map { "application/x-junk-\($0)" }
        let types = WaylandTypes.pasteboardTypes(fromMIME: hostile)
        XCTAssertEqual(types.count, WaylandTypes.maximumOfferedTypes)
        XCTAssertEqual(types.first, .html, "the first good name, once")
        XCTAssertEqual(types.filter { $0 == .html }.count, 1)
    }
}
