// SPDX-License-Identifier: Apache-2.0
import ControlProtocol
@testable import DaemonCore
import Foundation
import PasteboardCore
import TestSupport
import XCTest
import XTypes

/// Content that expires (UIPasteboard's expiration date, `pb copy --expire`): cleared at its time only if the
/// pasteboard did not change meanwhile, offered with nspasteboard.org's transient marker, never written to
/// history or to the disk. Under a manual clock: no sleeps.
final class ExpiryTests: XCTestCase {
    func expiringCopy(_ h: Harness, _ text: String, after milliseconds: UInt64, options: CopyOptions = []) throws -> UInt64 {
        let item = try PasteboardItem([(PasteboardType.utf8PlainText, Array(text.utf8))])
        let answer = h.send(.setExpiringItems(pasteboard: "CLIPBOARD", items: [item], options: options, expiresAfterMilliseconds: milliseconds))
        guard case .changeCount(_, let count)? = answer.first else {
            XCTFail("setExpiringItems answered \(answer)")
            return 0
        }
        return count
    }

    func testExpiringContentIsClearedAtItsTimeAndKeptNowhere() throws {
        let h = try Harness(keepState: true)
        var changes: [String] = []
        h.engine.broadcast = { response, _ in if case .change(let change) = response { changes.append(change.state) } }
        let count = try expiringCopy(h, "hunter2", after: 45_000)
        XCTAssertEqual(h.paste("UTF8_STRING").text, "hunter2")
        XCTAssertTrue(h.targets().contains("org.nspasteboard.TransientType"), "other managers are told not to record it")
        XCTAssertEqual(h.engine.manager.history.entries.count, 0, "never in history")
        XCTAssertFalse(FileManager.default.fileExists(atPath: h.stateDirectory! + "/clipboard.archive"), "never on disk")

        h.advance(by: .milliseconds(44_999))
        XCTAssertTrue(h.daemonOwns(), "served until its time")
        h.advance(by: .milliseconds(1))
        XCTAssertFalse(h.daemonOwns(), "cleared at its time")
        XCTAssertEqual(h.count(), count + 1, "clearing is one change")
        XCTAssertEqual(changes.last, "clear", "watchers are told")
        XCTAssertNil(h.paste("UTF8_STRING").result ?? nil)
    }

    func testAPasteboardThatChangedMeanwhileIsNotCleared() throws {
        let h = try Harness()
        _ = try expiringCopy(h, "secret", after: 1000)
        let newer = try h.copy([(.utf8PlainText, "a newer copy")])
        h.advance(by: .seconds(2))
        XCTAssertTrue(h.daemonOwns())
        XCTAssertEqual(h.count(), newer, "nothing cleared, nothing counted")
        XCTAssertEqual(h.paste("UTF8_STRING").text, "a newer copy")
        XCTAssertTrue(h.log.allSatisfy { !$0.contains("expired") }, "\(h.log)")

        // Another application took it meanwhile: its copy is not cleared either.
        _ = try expiringCopy(h, "secret", after: 1000)
        let owner = h.owner([("UTF8_STRING", Array("theirs".utf8))])
        owner.own()
        h.settle()
        let theirs = try XCTUnwrap(h.count())
        h.advance(by: .seconds(2))
        XCTAssertEqual(h.server.owner(of: h.x.atoms.clipboard), owner.window)
        XCTAssertEqual(h.count(), theirs)
    }

    func testAnExpiringSecretIsMarkedBothWaysAndAnOlderArchiveDoesNotComeBack() throws {
        let h = try Harness(keepState: true)
        let directory = try XCTUnwrap(h.stateDirectory)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try h.copy([(.utf8PlainText, "kept before")])
        h.engine.manager.finishWrites()
        let history = h.engine.manager.history
        XCTAssertEqual(history.keptID, history.entries.first?.id, "kept: the history's journal says it is the clipboard's")
        _ = try expiringCopy(h, "one-time code", after: 30_000, options: .sensitive)
        h.engine.manager.finishWrites()
        XCTAssertNil(history.keptID)
        XCTAssertFalse(FileManager.default.fileExists(atPath: directory + "/clipboard.archive"))
        let targets = h.targets()
        XCTAssertTrue(targets.contains("org.nspasteboard.TransientType") && targets.contains("x-kde-passwordManagerHint"), "\(targets)")
        h.engine.stop()
        let restarted = try Harness(keepState: true, directory: directory)
        XCTAssertFalse(restarted.daemonOwns(), "a restart must not bring back what the expiring copy replaced")
        XCTAssertEqual(restarted.engine.manager.history.entries.map(\.preview), ["kept before"], "still in history")
    }
}
