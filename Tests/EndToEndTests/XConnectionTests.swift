// SPDX-License-Identifier: Apache-2.0
import SystemSupport
import TestSupport
import XClient
import XCTest
import XTypes

/// `XConnection` against a real X server: `eventsWaiting()` skips asking Xlib only while no event can be there,
/// so an event is never left unhandled — neither one in the socket once the poll says so, nor one a round trip
/// read into Xlib's queue while the socket stayed quiet (the case a poll alone would miss); properties read
/// through the connection's XCB side.
final class XConnectionTests: XCTestCase {
    private var xvfb: Xvfb!

    override func setUpWithError() throws {
        xvfb = try Xvfb()
    }

    override func tearDown() {
        xvfb?.stop()
    }

    /// A display that cannot be opened is named in the error as it was given.
    func testADisplayThatCannotBeOpenedIsNamedAsGiven() throws {
        for name in [":4242", ":4242.0", "unix:4243"] {
            XCTAssertThrowsError(try XConnection(displayName: name)) { error in
                XCTAssertEqual("\(error)", "cannot open X display \(name)")
            }
        }
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

    /// Interning a list gives each name the server's atom however full the connection's name cache gets: the cache
    /// is emptied when it holds 4,096 names (a hostile owner's thousands of target names fill it), and a list whose
    /// names were partly known when the call began and emptied out of the cache during it trapped the daemon (the
    /// known ones were looked up again afterwards, and found nowhere).
    func testInterningAListGivesTheServersAtomsWhileTheNameCacheIsEmptied() throws {
        let x = try XConnection(displayName: xvfb.display)
        let other = try XConnection(displayName: xvfb.display)
        let known = ["UTF8_STRING", "TARGETS", "text/plain;charset=utf-8"]
        for batch in 0..<500 {
            let names = known + (0..<10).map { "PB_TEST_NAME_\(batch)_\($0)" }
            let atoms = x.intern(names)
            XCTAssertEqual(atoms.count, names.count)
            if batch % 50 == 0 || batch == 499 {
                XCTAssertEqual(atoms, names.map { other.intern($0) }, "batch \(batch): the server's atoms")
            } else {
                XCTAssertEqual(Array(atoms.prefix(known.count)), known.map { other.intern($0) }, "batch \(batch)")
            }
        }
    }

    /// Properties read through the connection's XCB side (`withProperty`, the bytes in the reply itself): every
    /// format as XGetWindowProperty gave it, from an offset, deleted only by a read that reaches the end; a missing
    /// property is no value; a read of a window that is gone records the X error under the serial the read had
    /// (what the daemon's serial labels match), and Xlib's requests after it are numbered on from there.
    func testPropertiesReadThroughXCBGiveEveryFormatAndErrorsTheirSerial() throws {
        let x = try XConnection(displayName: xvfb.display)
        let window = x.createWindow(eventMask: [])
        let bytes = x.intern("PB_TEST_BYTES"), shorts = x.intern("PB_TEST_SHORTS"), longs = x.intern("PB_TEST_LONGS")
        let payload = (0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        x.changeProperty(window, bytes, PropertyValue(type: x.atoms.utf8String, bytes: payload))
        x.changeProperty(window, shorts, PropertyValue(type: x.atoms.cardinal, items: .shorts([1, 0xFFFF, 513])))
        x.changeProperty(window, longs, PropertyValue(type: x.atoms.atom, longs: [0xFFFF_FFFF, 2, 0x8000_0000]))

        // 8 bits, in two pieces: the first leaves the property (not at its end), the second reads on and deletes it.
        let first = x.withProperty(window, bytes, offset: 0, delete: true, maximumBytes: 200_000) { read, data in (read, Array(data)) }
        XCTAssertEqual(first.0.value?.type, x.atoms.utf8String)
        XCTAssertEqual(first.0.bytesAfter, 100_000)
        XCTAssertEqual(first.1, Array(payload[0..<200_000]))
        let rest = x.withProperty(window, bytes, offset: 200_000, delete: true, maximumBytes: 200_000) { read, data in (read, Array(data)) }
        XCTAssertEqual(rest.0.bytesAfter, 0)
        XCTAssertEqual(rest.1, Array(payload[200_000...]))
        XCTAssertNil(x.getProperty(window, bytes, offset: 0, delete: false, maximumBytes: 16).value, "deleted by the read that reached its end")

        XCTAssertEqual(x.getProperty(window, shorts, offset: 0, delete: false, maximumBytes: 64).value?.items, .shorts([1, 0xFFFF, 513]))
        XCTAssertEqual(x.getProperty(window, longs, offset: 4, delete: false, maximumBytes: 64).value,
                       PropertyValue(type: x.atoms.atom, longs: [2, 0x8000_0000]), "32-bit items from the second on, unsigned")
        XCTAssertNil(x.getProperty(window, x.intern("PB_TEST_NEVER_SET"), offset: 0, delete: false, maximumBytes: 64).value)
        XCTAssertEqual(x.takeErrors(), [])

        x.destroyWindow(window)
        let serial = x.nextRequestSerial
        XCTAssertNil(x.getProperty(window, longs, offset: 0, delete: false, maximumBytes: 64).value, "the window is gone")
        XCTAssertNil(x.getProperty(window, longs, offset: 0, delete: false, maximumBytes: 64).value)
        XCTAssertEqual(x.nextRequestSerial, serial + 2, "the two reads through XCB are counted")
        x.changeProperty(window, longs, PropertyValue(type: x.atoms.cardinal, longs: [1]))   // Xlib's own request, failing too
        x.sync()
        let errors = x.takeErrors()
        XCTAssertEqual(errors.map(\.serial), [serial, serial + 1, serial + 2])
        XCTAssertEqual(errors.map(\.errorCode), [3, 3, 3], "BadWindow")
        XCTAssertEqual(errors.map(\.requestCode), [20, 20, 18], "GetProperty, GetProperty, ChangeProperty")
        XCTAssertEqual(errors.first?.resourceID, window.rawValue)
    }

    private func socketReadable(_ connection: XConnection, waitingMilliseconds: Int) throws -> Bool {
        let ready = try Poller.wait([PollRequest(FileDescriptor(rawValue: connection.fileDescriptor), .readable)],
                                    timeoutMilliseconds: waitingMilliseconds)
        return ready.first.map { !$0.isEmpty } ?? false
    }
}
