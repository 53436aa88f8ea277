// SPDX-License-Identifier: Apache-2.0
@testable import Pasteboard
import TestSupport
import XCTest
import XTypes

/// The library's blocking reader on a fake X server: the same requestor machine as the daemon's, so the
/// same policy — an over-cap INCR transfer is read to its end before the error, leaving no owner stuck.
final class SelectionReaderTests: XCTestCase {
    func setUp(_ targets: [(String, [UInt8])]) -> (FakeXServer, FakeOwner, SelectionReader) {
        let server = FakeXServer()
        let owner = FakeOwner(server: server, selection: "CLIPBOARD", targets: targets)
        owner.answerAtOnce()
        owner.own()
        return (server, owner, SelectionReader(x: server.connect(), clock: ManualClock()))
    }

    func testReadsAValueAndTheTargets() throws {
        let (_, owner, reader) = setUp([("UTF8_STRING", Array("hi".utf8)), ("text/html", Array("<b>hi</b>".utf8))])
        let selection = reader.x.atoms.clipboard
        defer { withExtendedLifetime(owner) {} }
        XCTAssertEqual(try reader.targets(selection, timeoutMilliseconds: 1000), ["TARGETS", "UTF8_STRING", "text/html"])
        let value = try reader.read(selection, target: reader.x.intern("text/html"), timeoutMilliseconds: 1000)
        XCTAssertEqual(value.bytes, Array("<b>hi</b>".utf8))
        XCTAssertEqual(reader.x.name(of: value.type), "text/html")
        XCTAssertThrowsError(try reader.read(selection, target: reader.x.intern("image/png"), timeoutMilliseconds: 1000)) {
            XCTAssertEqual($0 as? SelectionReadError, .refused)
        }
    }

    func testIncrIsFollowedToTheEnd() throws {
        let big = (0..<10_000).map { UInt8(truncatingIfNeeded: $0 * 7) }
        let (_, owner, reader) = setUp([("application/octet-stream", big)])
        owner.incrThreshold = 999
        let value = try reader.read(reader.x.atoms.clipboard, target: reader.x.intern("application/octet-stream"), timeoutMilliseconds: 1000)
        XCTAssertEqual(value.bytes, big)
    }

    func testAnIncrOverTheCapIsDrainedBeforeTheErrorSoTheOwnerIsNotLeftStuck() throws {
        let (_, owner, reader) = setUp([("application/octet-stream", [UInt8](repeating: 1, count: 10_000)),
                                             ("UTF8_STRING", Array("next".utf8))])
        owner.incrThreshold = 1000
        XCTAssertThrowsError(try reader.read(reader.x.atoms.clipboard, target: reader.x.intern("application/octet-stream"),
                                             timeoutMilliseconds: 1000, cap: 2500)) {
            XCTAssertEqual($0 as? SelectionReadError, .tooLarge(2500))
        }
        // The owner sent every chunk and the end: its transfer is over, and it answers the next request.
        XCTAssertEqual(owner.transfersInProgress, 0)
        XCTAssertEqual(owner.requested, ["application/octet-stream"])
        XCTAssertEqual(try reader.read(reader.x.atoms.clipboard, target: reader.x.atoms.utf8String, timeoutMilliseconds: 1000).bytes,
                       Array("next".utf8))
    }

    func testAnEmptySelectionAndASilentOwnerAreTold() throws {
        let (server, owner, reader) = setUp([("UTF8_STRING", Array("x".utf8))])
        XCTAssertThrowsError(try reader.read(server.intern("PRIMARY"), target: reader.x.atoms.utf8String, timeoutMilliseconds: 1000)) {
            XCTAssertEqual($0 as? SelectionReadError, .empty)
        }
        owner.silent = true
        XCTAssertThrowsError(try reader.read(reader.x.atoms.clipboard, target: reader.x.atoms.utf8String, timeoutMilliseconds: 1000)) {
            XCTAssertEqual($0 as? SelectionReadError, .timedOut)
        }
    }
}
