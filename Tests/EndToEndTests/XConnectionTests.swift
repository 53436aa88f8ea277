// SPDX-License-Identifier: Apache-2.0
import SystemSupport
import TestSupport
import XClient
import XCTest
import XTypes

/// `XConnection.eventsWaiting()` against a real X server: it skips asking Xlib only while no event can be there,
/// so an event is never left unhandled — neither one in the socket once the poll says so, nor one a round trip
/// read into Xlib's queue while the socket stayed quiet (the case a poll alone would miss).
final class XConnectionTests: XCTestCase {
    private var xvfb: Xvfb!

    override func setUpWithError() throws {
        xvfb = try Xvfb()
    }

    override func tearDown() {
        xvfb?.stop()
    }

    func testEventsWaitingFindsEventsTheSocketOrARoundTripBrought() throws {
        let watcher = try XConnection(displayName: xvfb.display)
        let other = try XConnection(displayName: xvfb.display)
        let window = watcher.createWindow(eventMask: [.propertyChange])
        let property = watcher.intern("PB_TEST_PROPERTY")
        watcher.sync()
        while watcher.pendingEvents() > 0 { _ = watcher.nextEvent() }
        XCTAssertEqual(watcher.eventsWaiting(), 0, "nothing yet")

        // An event in the socket: found once the poll reports the socket readable.
        other.changeProperty(window, property, PropertyValue(type: other.atoms.cardinal, longs: [1]))
        other.sync()
        XCTAssertTrue(try socketReadable(watcher, waitingMilliseconds: 5000), "the server sent the PropertyNotify")
        watcher.socketIsReadable()
        XCTAssertEqual(watcher.eventsWaiting(), 1)
        guard case .propertyNotify(window, property, _, false) = watcher.nextEvent() else { return XCTFail("not the change") }
        XCTAssertEqual(watcher.eventsWaiting(), 0)

        // An event a round trip read: in Xlib's queue, the socket quiet, and found all the same.
        other.changeProperty(window, property, PropertyValue(type: other.atoms.cardinal, longs: [2]))
        other.sync()
        watcher.sync()
        XCTAssertFalse(try socketReadable(watcher, waitingMilliseconds: 0), "the round trip read the event from the socket")
        XCTAssertEqual(watcher.eventsWaiting(), 1, "a call that may read the socket makes the next look ask Xlib")
        guard case .propertyNotify(window, property, _, false) = watcher.nextEvent() else { return XCTFail("not the change") }
        XCTAssertEqual(watcher.eventsWaiting(), 0)
    }

    private func socketReadable(_ connection: XConnection, waitingMilliseconds: Int) throws -> Bool {
        let ready = try Poller.wait([PollRequest(FileDescriptor(rawValue: connection.fileDescriptor), .readable)],
                                    timeoutMilliseconds: waitingMilliseconds)
        return ready.first.map { !$0.isEmpty } ?? false
    }
}
