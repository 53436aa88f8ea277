// SPDX-License-Identifier: Apache-2.0
@testable import DaemonCore
import PasteboardCore
import TestSupport
import XCTest
import XTypes

/// Ownership, not a request's time, decides whether a requestor is served: requests timed before the daemon
/// took the selection (Emacs asking from a timer with its last key press's time) are answered while the daemon
/// owns it; once another client took it, nothing is — not even a request that was waiting for a conversion.
final class RequestTimeTests: XCTestCase {
    func testARequestTimedBeforeTheCopyIsServed() throws {
        let h = try Harness()
        try h.copy([(.utf8PlainText, "naïve € 日本")])
        let acquired = try XCTUnwrap(h.server.selectionTime(of: h.server.intern("CLIPBOARD")))
        for time in [Timestamp(acquired.rawValue - 1), Timestamp(1)] {
            let requestor = h.requestor()
            requestor.ask("CLIPBOARD", "UTF8_STRING", time: time)
            h.settle()
            XCTAssertEqual(requestor.text, "naïve € 日本", "asked as of \(time), before the copy at \(acquired)")
        }
    }

    func testARequestTimedBeforeATakeoverIsServed() throws {
        // xclip owns the clipboard, exits, and pasteboardd takes over as of xclip's time: a requestor whose last
        // event is older than that copy asks with its own time.
        let h = try Harness()
        let requestor = h.requestor()
        let before = Timestamp(h.server.time)
        let owner = h.owner([("UTF8_STRING", Array("from xclip".utf8))])
        owner.own()
        h.settle()
        owner.exit()
        h.advance(by: .zero)
        XCTAssertTrue(h.daemonOwns(), "taken over")
        XCTAssertTrue(before.isEarlier(than: try XCTUnwrap(h.server.selectionTime(of: h.server.intern("CLIPBOARD")))))
        requestor.ask("CLIPBOARD", "UTF8_STRING", time: before)
        h.settle()
        XCTAssertEqual(requestor.text, "from xclip")
        let taken = try XCTUnwrap(h.server.selectionTime(of: h.server.intern("CLIPBOARD")))
        XCTAssertEqual(h.paste("TIMESTAMP").result??.atoms, [Atom(taken.rawValue)],
                       "TIMESTAMP still says when the selection was taken: the vanished owner's time")
    }

    func testOnceAnotherClientTookTheSelectionARequestIsRefused() throws {
        let h = try Harness()
        try h.copy([(.utf8PlainText, "ours")])
        let acquired = try XCTUnwrap(h.server.selectionTime(of: h.server.intern("CLIPBOARD")))
        let other = h.owner([("UTF8_STRING", Array("theirs".utf8))])
        other.own()
        h.settle()
        XCTAssertFalse(h.daemonOwns())
        // A request the server sent before the owner changed, handled after the daemon learnt it lost the
        // selection, timed while the daemon still owned it.
        let requestor = h.requestor()
        let property = requestor.connection.intern("FAKE_PASTE")
        h.engine.handle(.selectionRequest(SelectionRequest(requestor: requestor.window, selection: h.server.intern("CLIPBOARD"),
                                                           target: h.server.intern("UTF8_STRING"), property: property,
                                                           time: Timestamp(acquired.rawValue + 1))))
        h.settle()
        XCTAssertEqual(requestor.result.map { $0 == nil }, true, "refused: the daemon does not own it any more")
        XCTAssertEqual(h.paste("UTF8_STRING").text, "theirs", "the new owner answers")
    }

    func testARequestWaitingForAConversionIsRefusedWhenAnotherClientTakesTheSelection() throws {
        let gate = Gate()
        let h = try Harness(table: ConversionWorkerTests.slowTable(gate))
        try h.copy([(.utf8PlainText, "ours")])
        let requestor = h.requestor()
        requestor.ask("CLIPBOARD", "text/x-slow", time: Timestamp(1))
        h.settle(waitForConversions: false)
        XCTAssertTrue(requestor.result == nil, "an old time is no reason to refuse: it waits for its conversion")
        XCTAssertTrue(gate.waitUntilEntered(), "its conversion started")
        let other = h.owner([("UTF8_STRING", Array("theirs".utf8))])
        other.own()
        h.settle(waitForConversions: false)
        XCTAssertEqual(requestor.result.map { $0 == nil }, true, "refused once the daemon lost the selection")
        gate.release()
        h.settle()
        XCTAssertEqual(requestor.result.map { $0 == nil }, true, "and not answered when the conversion ends")
    }
}
