// SPDX-License-Identifier: Apache-2.0
import ControlProtocol
@testable import DaemonCore
import Foundation
import PasteboardCore
import TestSupport
import XCTest
import XTypes

/// The clipboard manager: read early, own late, SAVE_TARGETS, secrets, and the counts around them.
final class ManagerTests: XCTestCase {
    let text = Array("copied text".utf8)
    let html = Array("<b>copied</b>".utf8)

    func testAForeignCopyIsReadEarlyAndTakenOverWhenItsOwnerExits() throws {
        let h = try Harness()
        let owner = h.owner([("UTF8_STRING", text), ("text/html", html), ("STRING", Array("copied text".utf8))])
        owner.own()
        h.settle()
        let count = try XCTUnwrap(h.count())
        XCTAssertEqual(owner.requested, ["TARGETS", "UTF8_STRING", "text/html"], "one text target and HTML, each once")
        guard case .read(count, let content)? = h.engine.manager.state.phase(of: .general) else {
            return XCTFail("\(String(describing: h.engine.manager.state.phase(of: .general)))")
        }
        XCTAssertEqual(content.types, [.utf8String, .html])
        XCTAssertFalse(h.daemonOwns(), "never taken from a live owner")

        owner.exit()
        h.settle()
        XCTAssertFalse(h.daemonOwns(), "taken over only after the events already received (a successor may be among them)")
        h.advance(by: .zero)
        XCTAssertTrue(h.daemonOwns(), "no fixed wait")
        XCTAssertEqual(h.count(), count, "a takeover is not a change")
        XCTAssertEqual(h.paste("text/html").text, "<b>copied</b>")
        XCTAssertEqual(h.paste("UTF8_STRING").text, "copied text")
        XCTAssertTrue(h.targets().contains("text/rtf"), "served with the rich types derived")
    }

    func testAnOwnerThatHandsOverWithinTheGuardIsNotRobbed() throws {
        let h = try Harness()
        let first = h.owner([("UTF8_STRING", text)])
        first.own()
        h.settle()
        first.exit()
        h.settle()
        // Wine destroys its window and takes the clipboard again at once.
        let second = h.owner([("UTF8_STRING", Array("again".utf8))])
        second.own()
        h.settle()
        h.advance(by: .seconds(1))
        XCTAssertEqual(h.server.owner(of: h.x.atoms.clipboard), second.window)
    }

    func testASuccessorOwningAgainAsOfTheOldTimeWinsEvenAfterTheTakeover() throws {
        let h = try Harness()
        let first = h.owner([("UTF8_STRING", text)])
        first.own()
        h.settle()
        let ownerTime = try XCTUnwrap(h.server.selectionTime(of: h.x.atoms.clipboard))
        first.exit()
        h.advance(by: .zero)
        XCTAssertTrue(h.daemonOwns())
        XCTAssertEqual(h.server.selectionTime(of: h.x.atoms.clipboard), ownerTime,
                       "claimed as of the vanished owner's time, not a later one")
        let count = try XCTUnwrap(h.count())
        // A successor that owns the clipboard again with the old owner's time (or any later one) wins.
        let successor = h.owner([("UTF8_STRING", Array("again".utf8))])
        successor.connection.setSelectionOwner(successor.selection, owner: successor.window, time: ownerTime)
        h.settle()
        XCTAssertEqual(h.server.owner(of: h.x.atoms.clipboard), successor.window)
        XCTAssertFalse(h.daemonOwns())
        XCTAssertEqual(h.count(), count + 1, "the successor's copy is one change")
        XCTAssertEqual(h.paste("UTF8_STRING").text, "again")
    }

    func testSecretContentIsNeverReadKeptOrTakenOver() throws {
        let h = try Harness()
        let manager = h.owner([("UTF8_STRING", text), ("x-kde-passwordManagerHint", Array("secret".utf8))])
        manager.own()
        h.settle()
        XCTAssertEqual(manager.requested, ["TARGETS", "x-kde-passwordManagerHint"], "only the hint is read")
        let count = try XCTUnwrap(h.count())
        manager.exit()
        h.advance(by: .seconds(1))
        XCTAssertFalse(h.daemonOwns())
        XCTAssertEqual(h.count(), count + 1, "its owner left: the clipboard emptied, one change")
        XCTAssertEqual(h.engine.manager.history.entries.count, 0)

        let concealed = h.owner([("UTF8_STRING", text), ("org.nspasteboard.ConcealedType", [])])
        concealed.own()
        h.settle()
        XCTAssertEqual(concealed.requested, ["TARGETS"])
        XCTAssertEqual(h.engine.manager.state.phase(of: .general), .secret(count: count + 2))
    }

    func testAClearedClipboardIsNeverBroughtBack() throws {
        let h = try Harness()
        let owner = h.owner([("UTF8_STRING", text)])
        owner.own()
        h.settle()
        owner.connection.setSelectionOwner(owner.selection, owner: .none, time: .currentTime)
        h.settle()
        owner.exit()
        h.advance(by: .seconds(1))
        XCTAssertFalse(h.daemonOwns())
        XCTAssertNil(h.engine.manager.state.phase(of: .general))
    }

    func testAnOwnerThatExitsWhileBeingReadIsTakenOverOnceRead() throws {
        let h = try Harness()
        let owner = h.owner([("UTF8_STRING", text)])
        owner.silent = true
        owner.own()
        h.settle()
        XCTAssertEqual(owner.requested, ["TARGETS"])
        let count = try XCTUnwrap(h.count())
        // Its window goes before the snapshot read anything; nothing can be read any more.
        owner.exit()
        h.settle()
        h.advance(by: .seconds(6))
        XCTAssertEqual(h.count(), count + 1, "nothing was read: the clipboard emptied, one change")
        XCTAssertFalse(h.daemonOwns())
    }

    func testSaveTargetsIsAnsweredOnlyOnceTheClipboardIsOurs() throws {
        let h = try Harness()
        XCTAssertEqual(h.server.owner(of: h.x.atoms.clipboardManager), h.engine.service.ownerWindow, "the daemon is the manager")
        let owner = h.owner([("UTF8_STRING", text), ("text/html", html)])
        owner.own()
        h.settle()
        let count = try XCTUnwrap(h.count())
        // The owner asks the manager to save (as GTK's gtk_clipboard_store does), then waits for the reply.
        let c = owner.connection
        let property = c.intern("SAVE_REPLY")
        c.convertSelection(c.atoms.clipboardManager, target: c.atoms.saveTargets, property: property,
                           requestor: owner.window, time: .currentTime)
        h.settle()
        XCTAssertEqual(owner.notifications.map(\.target), [c.atoms.saveTargets])
        XCTAssertEqual(owner.notifications.first?.property, property, "SAVE_TARGETS answered")
        XCTAssertTrue(h.daemonOwns(), "and the clipboard is the daemon's before the owner hears it")
        XCTAssertEqual(h.count(), count, "saving is not a change")
        owner.exit()
        h.settle()
        XCTAssertEqual(h.paste("text/html").text, "<b>copied</b>")
    }

    func testPausedRecordingReadsAndTakesOverNothing() throws {
        let h = try Harness()
        h.send(.pause)
        let owner = h.owner([("UTF8_STRING", text)])
        owner.own()
        h.settle()
        XCTAssertEqual(owner.requested, [], "nothing read while paused")
        owner.exit()
        h.advance(by: .seconds(1))
        XCTAssertFalse(h.daemonOwns())
        h.send(.resume)
        let next = h.owner([("UTF8_STRING", text)])
        next.own()
        h.settle()
        XCTAssertEqual(next.requested.first, "TARGETS")
    }

    func testATargetOverItsCapIsDrainedSoTheOwnerIsNotLeftStuck() throws {
        var configuration = DaemonConfiguration()
        configuration.maxTextBytes = 4096
        let h = try Harness(configuration: configuration)
        let owner = h.owner([("UTF8_STRING", [UInt8](repeating: 0x61, count: 10_000)), ("text/html", html)])
        owner.incrThreshold = 1000
        owner.own()
        h.settle()
        XCTAssertEqual(owner.requested, ["TARGETS", "UTF8_STRING", "text/html"], "the big target read to its end, then the next")
        guard case .read(_, let content)? = h.engine.manager.state.phase(of: .general) else { return XCTFail("not read") }
        XCTAssertEqual(content.types, [.html], "nothing of the target over its cap was kept")
        XCTAssertTrue(h.log.contains { $0.contains("kept CLIPBOARD without 1 of its targets: UTF8_STRING: the data") }, "\(h.log)")
    }

    func testAnOwnerThatNeverAnswersIsSkippedAndTheSnapshotEnds() throws {
        let h = try Harness()
        let owner = h.owner([("UTF8_STRING", text)])
        owner.silent = true
        owner.own()
        h.settle()
        XCTAssertEqual(h.engine.manager.snapshotsInProgress, 1)
        h.advance(by: .milliseconds(Int64(DaemonConfiguration().ownerTimeoutMs)))
        XCTAssertEqual(h.engine.manager.snapshotsInProgress, 0)
        XCTAssertEqual(h.engine.manager.state.phase(of: .general), .unreadable(count: h.count()!))
    }

    func testAnExcludedApplicationsCopyIsNotRead() throws {
        var configuration = DaemonConfiguration()
        configuration.excludedWindowClasses = ["KeePassXC"]
        let h = try Harness(configuration: configuration)
        let owner = h.owner([("UTF8_STRING", text)])
        let c = owner.connection
        c.changeProperty(owner.window, c.intern("WM_CLASS"), PropertyValue(type: c.atoms.string, bytes: Array("keepassxc\0KeePassXC\0".utf8)))
        owner.own()
        h.settle()
        XCTAssertEqual(owner.requested, [])
        XCTAssertTrue(h.log.contains { $0.contains("excluded application") })
    }
}
