// SPDX-License-Identifier: Apache-2.0
@testable import DaemonCore
import Foundation
import PasteboardCore
import SystemSupport
import TestSupport
import XCTest
import XTypes

/// A daemon killed (SIGKILL) and started again before the X server saw the dead one's connection close: its
/// selections are still owned by the dead daemon's window. The new daemon restores the kept content, and takes
/// CLIPBOARD_MANAGER, once the server reports that window gone — never over a live copy — with the count
/// unchanged. The dead daemon is a harness whose connection stays open until `close()`, its window marked with a
/// process id the test says is gone.
final class RestartTests: XCTestCase {
    static let deadPID: UInt32 = 4242

    /// A daemon that copied `text` to CLIPBOARD and `note` to the persistent pasteboard "notes", kept both on
    /// disk and was then killed: its connection is still open, its window (marked as `pid`'s, on `host`) owns
    /// the selections and CLIPBOARD_MANAGER.
    func killedDaemon(pid: UInt32 = deadPID, host: String? = ProcessIdentity.hostName) throws -> (Harness, count: UInt64) {
        let dead = try Harness(keepState: true)
        XCTAssertEqual(dead.send(.createPasteboard(name: "notes", persistent: true)).count, 1)
        try dead.copy([(.utf8PlainText, "a note")], to: "notes")
        let count = try dead.copy([(.utf8PlainText, "kept")])
        dead.finishWrites()
        XCTAssertTrue(dead.daemonOwns("CLIPBOARD_MANAGER"))
        DaemonMark(processID: pid, host: host).write(on: dead.engine.service.ownerWindow, dead.x)
        if host == nil { dead.x.deleteProperty(dead.engine.service.ownerWindow, dead.x.intern(DaemonMark.hostProperty)) }
        return (dead, count)
    }

    /// The next daemon, on the same server and state directory; `live` are the process ids that still run pasteboardd.
    func restarted(after dead: Harness, live: Set<Int32> = []) throws -> Harness {
        try Harness(keepState: true, directory: dead.stateDirectory, server: dead.server) { engine in
            engine.manager.runsDaemon = { live.contains($0) }
        }
    }

    func testKeptContentIsRestoredOnceTheDeadDaemonsWindowIsGone() throws {
        let (dead, count) = try killedDaemon()
        defer { try? FileManager.default.removeItem(atPath: dead.stateDirectory!) }
        let next = try restarted(after: dead)
        XCTAssertFalse(next.daemonOwns(), "the dead daemon's window still owns CLIPBOARD: the server has not seen it go")
        XCTAssertTrue(next.log.contains { $0.contains("still owned by the window of pasteboardd pid 4242, which is gone") }, "\(next.log)")
        XCTAssertTrue(next.log.contains { $0.contains("the pasteboardd (pid 4242) that managed :99 is gone") }, "\(next.log)")

        dead.x.close()   // the server sees the dead daemon's connection close
        next.settle()
        XCTAssertTrue(next.daemonOwns(), "restored: \(next.log)")
        XCTAssertTrue(next.daemonOwns("notes"), "a persistent pasteboard too")
        XCTAssertTrue(next.daemonOwns("CLIPBOARD_MANAGER"), "the new daemon is the clipboard manager")
        XCTAssertEqual(next.paste("UTF8_STRING").text, "kept")
        XCTAssertEqual(next.paste("UTF8_STRING", from: "notes").text, "a note")
        XCTAssertEqual(next.count(), count, "restoring is not a change, nor is the dead window's going")
        XCTAssertEqual(next.publishedCount(), UInt32(count))

        // It manages: a copy whose owner exits is taken over.
        let owner = next.owner([("UTF8_STRING", Array("after the restart".utf8))])
        owner.own()
        next.settle()
        owner.exit()
        next.advance(by: .zero)
        XCTAssertTrue(next.daemonOwns())
        XCTAssertEqual(next.paste("UTF8_STRING").text, "after the restart")
    }

    func testACopyMadeWhileWaitingIsNeverReplaced() throws {
        let (dead, count) = try killedDaemon()
        defer { try? FileManager.default.removeItem(atPath: dead.stateDirectory!) }
        let next = try restarted(after: dead)
        let owner = next.owner([("UTF8_STRING", Array("live copy".utf8))])
        owner.own()
        next.settle()
        dead.x.close()
        next.advance(by: .seconds(1))
        XCTAssertEqual(next.server.owner(of: next.x.atoms.clipboard), owner.window, "the live copy keeps CLIPBOARD")
        XCTAssertEqual(next.paste("UTF8_STRING").text, "live copy")
        XCTAssertEqual(next.count(), count + 1, "one change: the copy")
        XCTAssertTrue(next.daemonOwns("notes"), "restored where nobody copied")
    }

    func testACopyMadeAsTheDeadWindowGoesWinsWhateverTheOrder() throws {
        let (dead, _) = try killedDaemon()
        defer { try? FileManager.default.removeItem(atPath: dead.stateDirectory!) }
        let next = try restarted(after: dead)
        let owner = next.owner([("UTF8_STRING", Array("live copy".utf8))])
        // Both before the daemon handles either event: it learns the window went, then that a client copied.
        dead.x.close()
        owner.own()
        next.advance(by: .seconds(1))
        XCTAssertEqual(next.server.owner(of: next.x.atoms.clipboard), owner.window, "the restore is claimed as of the dead window's time")
        XCTAssertEqual(next.paste("UTF8_STRING").text, "live copy")
    }

    func testALiveDaemonsSelectionsAreLeftAndItsManagerRoleTakenWhenItStops() throws {
        let (dead, count) = try killedDaemon()
        defer { try? FileManager.default.removeItem(atPath: dead.stateDirectory!) }
        let next = try restarted(after: dead, live: [Int32(Self.deadPID)])
        XCTAssertTrue(next.log.contains { $0.contains("CLIPBOARD is owned; not restoring its saved content") }, "\(next.log)")
        XCTAssertTrue(next.log.contains { $0.contains("another pasteboardd (pid 4242) manages :99") }, "\(next.log)")
        dead.x.close()
        next.advance(by: .seconds(1))
        XCTAssertFalse(next.daemonOwns(), "a live daemon's copy is not replaced by kept content, even once it is gone")
        XCTAssertEqual(next.count(), count + 1, "its going emptied CLIPBOARD")
        XCTAssertTrue(next.daemonOwns("CLIPBOARD_MANAGER"), "its manager role is taken once it ended")
    }

    func testAnotherHostsDaemonIsNeverTakenForGone() throws {
        let (dead, _) = try killedDaemon(host: "elsewhere.example")
        defer { try? FileManager.default.removeItem(atPath: dead.stateDirectory!) }
        let next = try restarted(after: dead)
        XCTAssertTrue(next.log.contains { $0.contains("CLIPBOARD is owned; not restoring its saved content") }, "\(next.log)")
        XCTAssertTrue(next.log.contains { $0.contains("another pasteboardd (pid 4242) manages :99") }, "\(next.log)")
    }

    // MARK: - The judgement

    func testAMarkIsGoneOnlyWhenThisHostSaysItsProcessNoLongerRuns() {
        let local = DaemonMark(processID: 100, host: "here")
        let runs: (Int32) -> Bool = { $0 == 7 }
        XCTAssertTrue(DaemonMark(processID: 8, host: "here").hasEnded(local: local, runsDaemon: runs))
        XCTAssertFalse(DaemonMark(processID: 7, host: "here").hasEnded(local: local, runsDaemon: runs), "it runs")
        XCTAssertFalse(DaemonMark(processID: 8, host: "there").hasEnded(local: local, runsDaemon: runs), "another host's process id")
        XCTAssertFalse(DaemonMark(processID: 8, host: nil).hasEnded(local: local, runsDaemon: runs), "a window that names no host")
        XCTAssertFalse(DaemonMark(processID: 8, host: "here").hasEnded(local: DaemonMark(processID: 100, host: nil), runsDaemon: runs),
                       "this host's name unknown")
        XCTAssertFalse(DaemonMark(processID: 0, host: "here").hasEnded(local: local, runsDaemon: runs), "no process id")
        XCTAssertFalse(DaemonMark(processID: UInt32(Int32.max) + 1, host: "here").hasEnded(local: local, runsDaemon: runs), "no process id")
        XCTAssertTrue(DaemonMark(processID: 100, host: "here").hasEnded(local: local, runsDaemon: { _ in true }),
                      "this process's own id on a window it did not make: an earlier process's")
    }

    func testThisProcessRunsAndAnEndedOneDoesNot() throws {
        XCTAssertTrue(DaemonMark.runsDaemon(ProcessIdentity.processID))
        let pid = try ChildProcess.spawn(argv: ["sh", "-c", "exit 0"])
        XCTAssertEqual(try ChildProcess.wait(pid), .exited(0))
        XCTAssertFalse(DaemonMark.runsDaemon(pid))
    }

    func testAMarkIsReadBackAsWritten() throws {
        let h = try Harness()
        let window = h.engine.service.ownerWindow
        XCTAssertEqual(DaemonMark.read(from: window, h.x), .own, "the daemon marks its window")
        XCTAssertNil(DaemonMark.read(from: h.x.createWindow(), h.x), "another client's window")
        XCTAssertNil(DaemonMark.read(from: .none, h.x))
    }
}
