// SPDX-License-Identifier: Apache-2.0
import ControlProtocol
@testable import DaemonCore
import Foundation
import PasteboardCore
import TestSupport
import XCTest
import XTypes

/// A gate a converter waits at on the worker thread until the test opens it.
final class Gate: @unchecked Sendable {
    private let condition = NSCondition()
    private var open = false
    private(set) var entered = 0

    func wait() {
        condition.lock()
        entered += 1
        condition.broadcast()
        while !open { condition.wait() }
        condition.unlock()
    }

    /// Waits until `count` conversions entered the gate, at most 10 s; false if they did not.
    @discardableResult
    func waitUntilEntered(_ count: Int = 1) -> Bool {
        let deadline = Date().addingTimeInterval(10)
        condition.lock()
        defer { condition.unlock() }
        while entered < count {
            if !condition.wait(until: deadline) { return entered >= count }
        }
        return true
    }

    func release() {
        condition.lock()
        open = true
        condition.broadcast()
        condition.unlock()
    }
}

/// Conversions run on the worker thread: the loop serves everything else meanwhile; a parked request is
/// answered when its conversion is done, refused past the limit, refused when the content changes.
final class ConversionWorkerTests: XCTestCase {
    /// The standard table, with a `text/x-slow` type made from plain text by a converter that waits at `gate`.
    static func slowTable(_ gate: Gate) -> ConversionTable {
        let slow = RepresentationFormat("slow")
        let standard = ConversionTable.standard
        return ConversionTable(
            rows: standard.rows + [TypeRow(PasteboardType("text/x-slow"), slow, TypeFamily("slow"))],
            converters: standard.converters + [
                Converter(.utf8Text, to: slow, .faithful) { input, _ in
                    gate.wait()
                    return ConverterOutput(Array("slow:".utf8) + input)
                },
            ])
    }

    func testWhileAConversionRunsOtherTargetsAndPrimaryAreServed() throws {
        let gate = Gate()
        let h = try Harness(table: Self.slowTable(gate))
        try h.copy([(.utf8PlainText, "clip")])
        try h.copy([(.utf8PlainText, "prim")], to: "PRIMARY")
        XCTAssertTrue(h.targets().contains("text/x-slow"))

        let slow = h.requestor()
        slow.ask("CLIPBOARD", "text/x-slow")
        h.settle(waitForConversions: false)
        gate.waitUntilEntered()
        XCTAssertNil(slow.result, "parked while its conversion runs")

        let other = h.requestor()
        other.ask("CLIPBOARD", "UTF8_STRING")
        let primary = h.requestor()
        primary.ask("PRIMARY", "UTF8_STRING")
        h.settle(waitForConversions: false)
        XCTAssertEqual(other.text, "clip", "served while the conversion runs")
        XCTAssertEqual(primary.text, "prim")
        XCTAssertNil(slow.result)

        gate.release()
        h.settle()
        XCTAssertEqual(slow.text, "slow:clip")
        XCTAssertEqual(slow.typeName, "text/x-slow")
        XCTAssertEqual(h.paste("text/x-slow").text, "slow:clip", "cached for this change")
        XCTAssertEqual(gate.entered, 1, "converted once")
    }

    func testAControlClientsReadWaitsForTheConversionToo() throws {
        let gate = Gate()
        let h = try Harness(table: Self.slowTable(gate))
        try h.copy([(.utf8PlainText, "clip")])
        let box = h.sendLater(.read(pasteboard: "CLIPBOARD", types: ["text/x-slow"], display: ":99"))
        h.settle(waitForConversions: false)
        XCTAssertTrue(box.responses.isEmpty)
        XCTAssertEqual(h.paste("UTF8_STRING", waitForConversions: false).text, "clip")
        gate.release()
        h.settle()
        guard case .items(let items)? = box.responses.first else { return XCTFail("\(box.responses)") }
        XCTAssertEqual(items.first?.data(for: PasteboardType("text/x-slow")), Array("slow:clip".utf8))
    }

    func testANewChangeRefusesWhatWaitedForTheOldContent() throws {
        let gate = Gate()
        let h = try Harness(table: Self.slowTable(gate))
        try h.copy([(.utf8PlainText, "old")])
        let slow = h.requestor()
        slow.ask("CLIPBOARD", "text/x-slow")
        let box = h.sendLater(.read(pasteboard: "CLIPBOARD", types: ["text/x-slow"], display: ":99"))
        h.settle(waitForConversions: false)
        gate.waitUntilEntered()
        try h.copy([(.utf8PlainText, "new")], waitForConversions: false)
        XCTAssertEqual(slow.result.map { $0 == nil }, true, "refused: its content is gone")
        guard case .error(let code, _)? = box.responses.first else { return XCTFail("\(box.responses)") }
        XCTAssertEqual(code, .notFound)
        gate.release()
        h.settle()
        XCTAssertEqual(h.paste("text/x-slow").text, "slow:new", "the old result was discarded, the new content converted")
    }

    func testAConversionPastTheLimitIsRefusedAndKeptForTheNextPaste() throws {
        let gate = Gate()
        var configuration = DaemonConfiguration()
        configuration.conversionTimeoutMs = 2000
        let h = try Harness(configuration: configuration, table: Self.slowTable(gate))
        try h.copy([(.utf8PlainText, "clip")])
        let slow = h.requestor()
        slow.ask("CLIPBOARD", "text/x-slow")
        h.settle(waitForConversions: false)
        gate.waitUntilEntered()
        h.clock.advance(by: .milliseconds(1999))
        h.engine.expire(now: h.clock.now())
        h.settle(waitForConversions: false)
        XCTAssertNil(slow.result, "still within the limit")
        h.clock.advance(by: .milliseconds(1))
        h.engine.expire(now: h.clock.now())
        h.settle(waitForConversions: false)
        XCTAssertEqual(slow.result.map { $0 == nil }, true, "refused at the limit")
        XCTAssertTrue(h.log.contains { $0.contains("took longer than") }, "\(h.log)")
        gate.release()
        h.settle()
        XCTAssertEqual(h.paste("text/x-slow").text, "slow:clip", "the conversion finished and is served from the cache")
        XCTAssertEqual(gate.entered, 1)
    }
}
