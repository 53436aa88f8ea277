// SPDX-License-Identifier: Apache-2.0
import ControlProtocol
@testable import DaemonCore
import Foundation
import PasteboardCore
import SystemSupport
import TestSupport
import XCTest
import XTypes

/// The engine with no X display (a Wayland session without `DISPLAY`): its pasteboards live on an `InMemoryDisplay`
/// whose only client is the daemon — copies are owned and counted, answered to a client naming no display, kept
/// and restored across a restart — and X displays joined later are served and removable like any other.
final class InMemoryHomeTests: XCTestCase {
    let clock = ManualClock()
    var directory: String!

    override func setUpWithError() throws {
        directory = NSTemporaryDirectory() + "inmemory-home-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    override func tearDown() {
        try? FileManager.default.removeItem(atPath: directory)
    }

    func engine() throws -> DaemonEngine {
        let engine = try DaemonEngine(x: nil, clock: clock, configuration: DaemonConfiguration(), display: "",
                                      stateDirectory: directory, log: Logger(sink: { _ in }))
        engine.start()
        settle(engine)
        return engine
    }

    /// What the loop does for each side: hands it the events its display queued, until none is left.
    func settle(_ engine: DaemonEngine) {
        var worked = true
        while worked {
            worked = false
            for side in engine.sides {
                while side.x.pendingEvents() > 0 {
                    side.handle(side.x.nextEvent())
                    worked = true
                }
            }
            engine.expire(now: clock.now())
        }
        engine.writesFinished()
    }

    func send(_ engine: DaemonEngine, _ request: ControlRequest) -> [ControlResponse] {
        var responses: [ControlResponse] = []
        engine.handle(request, from: DaemonEngine.Client(id: 1, send: { responses.append($0) }))
        settle(engine)
        return responses
    }

    func copy(_ engine: DaemonEngine, _ text: String) throws -> ControlResponse? {
        let item = try PasteboardItem([(PasteboardType.utf8PlainText, Array(text.utf8))])
        return send(engine, .setItems(pasteboard: "CLIPBOARD", items: [item], options: [])).first
    }

    func testACopyIsOwnedCountedAndAnsweredToAClientNamingNoDisplay() throws {
        let engine = try engine()
        XCTAssertTrue(engine.homeInMemory)
        XCTAssertEqual(try copy(engine, "no X here"), .changeCount(pasteboard: "CLIPBOARD", count: 1))
        XCTAssertEqual(try copy(engine, "again"), .changeCount(pasteboard: "CLIPBOARD", count: 2), "one change per copy")
        guard case .items(let items)? = send(engine, .read(pasteboard: "CLIPBOARD", types: ["UTF8_STRING"], display: "")).first else {
            return XCTFail("a client naming no display is answered from the home")
        }
        XCTAssertEqual(items.first?.representations.first?.data, Array("again".utf8))
        guard case .error(let code, _)? = send(engine, .read(pasteboard: "CLIPBOARD", types: ["UTF8_STRING"], display: ":7")).first else {
            return XCTFail("a client of an X display not served is sent to it")
        }
        XCTAssertEqual(code, .notFound)
        XCTAssertEqual(send(engine, .displays), [.status(pairs: [])], "no X display, no seat attached: nothing listed")
        guard case .status(let pairs)? = send(engine, .status).first else { return XCTFail() }
        XCTAssertTrue(pairs.contains(StatusPair("display", "")), "\(pairs)")
        XCTAssertTrue(pairs.contains(StatusPair("owned.CLIPBOARD", "yes")), "\(pairs)")
        XCTAssertTrue(engine.bridge.isShared(.primary), "PRIMARY is one with the seat's when no X display has its own")
        XCTAssertEqual(engine.manager.history.entries.count, 2, "recorded")
        engine.stop()
    }

    /// A client inventing type names (a Wayland copier offering fresh MIME names at every copy, `pb paste -t` of names
    /// nobody offers) grew the in-memory display's one table for the daemon's life, as an X server keeps its atoms;
    /// each content numbers its names in a table of its own now, so they go with it — and are still served, listed
    /// and read by name.
    func testTypeNamesClientsInventAreHeldOnlyWhileTheirContentIsServed() throws {
        let engine = try engine()
        let home = try XCTUnwrap(engine.sides.first?.x as? InMemoryDisplay)
        _ = try copy(engine, "first")
        let before = home.internedNameCount
        for n in 0..<40 {
            let item = try PasteboardItem((0..<50).map {
                (PasteboardType("application/x-invented-\(n)-\($0)-" + String(repeating: "x", count: 200)), Array("copy \(n), type \($0)".utf8))
            })
            guard case .changeCount? = send(engine, .setItems(pasteboard: "CLIPBOARD", items: [item], options: [])).first else {
                return XCTFail("copy \(n) with invented names is taken")
            }
            guard case .error? = send(engine, .read(pasteboard: "CLIPBOARD", types: ["application/x-asked-\(n)"], display: "")).first else {
                return XCTFail("a name nobody offers is not served")
            }
        }
        let last = "application/x-invented-39-7-" + String(repeating: "x", count: 200)
        guard case .items(let items)? = send(engine, .read(pasteboard: "CLIPBOARD", types: [last], display: "")).first else {
            return XCTFail("the last copy's invented name is read by name")
        }
        XCTAssertEqual(items.first?.representations.first?.data, Array("copy 39, type 7".utf8))
        guard case .targets(let listed)? = send(engine, .targets(pasteboard: "CLIPBOARD")).first else { return XCTFail() }
        XCTAssertTrue(listed.contains(last), "the invented names are listed")
        XCTAssertTrue(listed.contains("TARGETS") && listed.contains("TIMESTAMP"), "with the protocol's own: \(listed.prefix(4))")
        XCTAssertFalse(listed.contains { $0.hasPrefix("application/x-invented-38-") }, "only the content served now")
        XCTAssertEqual(home.internedNameCount, before, "2,000 names offered and 40 asked for: none left in the display's own table")
    }

    func testTheKeptClipboardAndItsCountComeBackAfterARestart() throws {
        let first = try engine()
        _ = try copy(first, "kept on disk")
        first.stop()
        let second = try engine()
        guard case .changeCount(_, let count)? = send(second, .changeCount(pasteboard: "CLIPBOARD")).first else { return XCTFail() }
        XCTAssertEqual(count, 1, "the count continues")
        guard case .items(let items)? = send(second, .items(pasteboard: "CLIPBOARD")).first else {
            return XCTFail("the kept content is restored and served")
        }
        XCTAssertEqual(items.first?.data(for: .utf8PlainText), Array("kept on disk".utf8))
        second.stop()
    }

    func testXDisplaysJoinedLaterAreServedAndAllRemovable() throws {
        let engine = try engine()
        let server = FakeXServer()
        let x = server.connect()
        engine.connect = { _ in .success(x) }
        XCTAssertEqual(send(engine, .addDisplay(name: ":42")), [.ok])
        XCTAssertEqual(engine.sides.count, 2)
        _ = try copy(engine, "seen on :42")
        XCTAssertFalse(server.owner(of: x.intern("CLIPBOARD")).isNone, "the copy is served on the X display too")
        XCTAssertEqual(send(engine, .displays), [.status(pairs: [StatusPair(":42", "connected")])])
        XCTAssertEqual(send(engine, .removeDisplay(name: ":42")), [.ok], "the first X display is not the home: it can go")
        XCTAssertEqual(engine.sides.count, 1)
        XCTAssertFalse(engine.dropLostDisplays(), "the in-memory home is never lost")
        engine.stop()
    }

    /// The in-memory display keeps X's rules the selection service relies on: ICCCM's time rule, XFixes' echo of
    /// each ownership change, PropertyNotify with the server time for a zero-length append.
    func testTheInMemoryDisplayKeepsXsSelectionRules() {
        let x = InMemoryDisplay()
        let window = x.createWindow()
        let clipboard = x.atoms.clipboard
        x.watchSelection(clipboard, on: window)
        x.changeProperty(window, x.atoms.timestamp, PropertyValue(type: x.atoms.integer, bytes: []), mode: .append)
        guard case .propertyNotify(window, _, let time, false) = x.nextEvent() else { return XCTFail("the server time comes back") }
        x.setSelectionOwner(clipboard, owner: window, time: time)
        XCTAssertEqual(x.selectionOwner(clipboard), window)
        guard case .selectionOwnerChange(let change) = x.nextEvent() else { return XCTFail("XFixes echoes the change") }
        XCTAssertEqual(change.owner, window)
        XCTAssertEqual(change.selectionTime, time)
        x.setSelectionOwner(clipboard, owner: .none, time: Timestamp(time.rawValue - 1))
        XCTAssertEqual(x.selectionOwner(clipboard), window, "an earlier time changes nothing")
        XCTAssertEqual(x.pendingEvents(), 0)
        XCTAssertEqual(x.name(of: x.intern("text/html")), "text/html")
        XCTAssertEqual(x.intern("CLIPBOARD"), clipboard, "the standard atoms are the table's")
        XCTAssertNil(x.pollDescriptor)
    }
}
