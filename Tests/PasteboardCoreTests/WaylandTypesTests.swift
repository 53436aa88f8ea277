// SPDX-License-Identifier: Apache-2.0
import PasteboardCore
import XCTest

/// Type names across the Wayland edge: X's own text targets never reach Wayland readers, who get UTF-8 text
/// under its MIME names; every other name passes as it is, both ways; the daemon's marker never becomes a type.
final class WaylandTypesTests: XCTestCase {
    func testXTextTargetsBecomeTheMIMETextNamesOnce() {
        let x: [PasteboardType] = [.utf8String, .string, .text, .compoundText, .html, .flatRTFD, .png]
        XCTAssertEqual(WaylandTypes.mimeTypes(for: x),
                       ["text/plain;charset=utf-8", "text/plain", "text/html", "com.apple.flat-rtfd", "application/x-apple-flat-rtfd", "image/png"])
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
        let offered = ["text/plain;charset=utf-8", "text/html", WaylandTypes.ownMarker]
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

    /// wl-copy offers any text type followed by five plain-text names carrying the same bytes: for a rich type
    /// those would pass the HTML off as plain text, so the copy is the rich type alone (the table makes its text).
    func testWlCopysAliasesOfARichCopyAreLeftOutAndAnApplicationsOwnPlainTextIsKept() {
        let wlCopyHTML = ["text/html", "text/plain", "text/plain;charset=utf-8", "TEXT", "STRING", "UTF8_STRING"]
        XCTAssertTrue(WaylandTypes.isWlCopyRichCopy(wlCopyHTML))
        XCTAssertEqual(WaylandTypes.pasteboardTypes(fromMIME: wlCopyHTML), [.html])
        XCTAssertEqual(WaylandTypes.pasteboardTypes(fromMIME: ["text/rtf"] + WaylandTypes.wlCopyTextAliases), [.rtf])
        XCTAssertEqual(WaylandTypes.pasteboardTypes(fromMIME: ["application/x-apple-flat-rtfd"] + WaylandTypes.wlCopyTextAliases), [.flatRTFD])
        // Plain text copied by wl-copy is plain text under every name; a text type the table has no rich row for
        // (CSV, source code) is text too: its aliases stay.
        let plain = ["text/plain", "text/plain;charset=utf-8", "TEXT", "STRING", "UTF8_STRING"]
        XCTAssertFalse(WaylandTypes.isWlCopyRichCopy(plain))
        XCTAssertEqual(WaylandTypes.pasteboardTypes(fromMIME: plain).count, 5)
        XCTAssertEqual(WaylandTypes.pasteboardTypes(fromMIME: ["text/csv"] + WaylandTypes.wlCopyTextAliases).count, 6)
        // An application's own plain text beside its HTML (a browser: its own names, its own order) is its own.
        let browser = ["text/html", "text/_moz_htmlcontext", "text/plain;charset=utf-8", "UTF8_STRING", "text/plain"]
        XCTAssertFalse(WaylandTypes.isWlCopyRichCopy(browser))
        XCTAssertEqual(WaylandTypes.pasteboardTypes(fromMIME: browser).map(\.rawValue), browser)
        XCTAssertFalse(WaylandTypes.isWlCopyRichCopy(["text/html", "text/plain"]), "two names are not wl-copy's six")
    }

    /// Flat RTFD crosses under a MIME-shaped name too, both ways: offered beside its own name, read as RTFD.
    func testFlatRTFDHasAMIMEShapedAliasBothWays() {
        XCTAssertEqual(WaylandTypes.pasteboardType(forMIME: "application/x-apple-flat-rtfd", offered: [.flatRTFD, .html]), .flatRTFD)
        XCTAssertEqual(WaylandTypes.pasteboardTypes(fromMIME: ["application/x-apple-flat-rtfd", "com.apple.flat-rtfd", "text/rtf"]),
                       [.flatRTFD, .rtf], "the alias and the name are one type")
        XCTAssertEqual(WaylandTypes.mimeType(for: .flatRTFD, offered: ["application/x-apple-flat-rtfd"]), "application/x-apple-flat-rtfd")
        XCTAssertEqual(WaylandTypes.mimeType(for: .flatRTFD, offered: ["application/x-apple-flat-rtfd", "com.apple.flat-rtfd"]),
                       "com.apple.flat-rtfd", "its own name first")
    }
}

/// What of an offer's announced MIME types is kept: a hostile list costs at most four times the types considered,
/// of names not too long for an item to carry.
final class WaylandAnnouncedTypesTests: XCTestCase {
    func testAnnouncedTypesAreCappedInNumberAndLength() {
        XCTAssertTrue(WaylandTypes.keepsAnnounced("text/plain", after: 0))
        XCTAssertTrue(WaylandTypes.keepsAnnounced("text/plain", after: WaylandTypes.maximumOfferedTypes * 4 - 1))
        XCTAssertFalse(WaylandTypes.keepsAnnounced("text/plain", after: WaylandTypes.maximumOfferedTypes * 4))
        XCTAssertTrue(WaylandTypes.keepsAnnounced(String(repeating: "a", count: PasteboardLimits.maximumTypeNameLength), after: 0))
        XCTAssertFalse(WaylandTypes.keepsAnnounced(String(repeating: "a", count: PasteboardLimits.maximumTypeNameLength + 1), after: 0))
    }
}
