// SPDX-License-Identifier: Apache-2.0
import Foundation
import SystemSupport
import TestSupport
import XCTest

/// pasteboardd as a service: reloading, its X server going away, journal logging, waiting for X,
/// and persistent named pasteboards across restarts.
final class ServiceTests: DesktopTestCase {
    override class var startsDaemon: Bool { false }

    override func tearDown() {
        desktop.stopDaemon()
        try? FileManager.default.removeItem(atPath: desktop.home + "/config/pasteboard/config.json")
        super.tearDown()
    }

    func writeConfig(_ json: String) throws {
        try FileManager.default.createDirectory(atPath: desktop.home + "/config/pasteboard", withIntermediateDirectories: true)
        try json.write(toFile: desktop.home + "/config/pasteboard/config.json", atomically: true, encoding: .utf8)
    }

    func testSIGHUPReloadsAndABadFileKeepsTheRunningConfiguration() throws {
        try writeConfig("{\"historyLength\": 1}")
        try desktop.startDaemon()
        try pb("copy", input: Array("first".utf8))
        try pb("copy", input: Array("second".utf8))
        XCTAssertEqual(try pb("history").text.split(separator: "\n").count, 1, "historyLength 1")
        try writeConfig("{\"historyLength\": 5}")
        kill(desktop.daemon!.processIdentifier, SIGHUP)
        try waitUntil(10, "the reload took effect") {
            try pb("copy", input: Array("third \(UUID().uuidString.prefix(4))".utf8))
            return try pb("history").text.split(separator: "\n").count >= 2
        }
        try writeConfig("{\"historyLength\": \"many\"}")
        kill(desktop.daemon!.processIdentifier, SIGHUP)
        try pb("copy", input: Array("after a bad reload".utf8))
        XCTAssertTrue(desktop.daemon?.isRunning == true, "a bad file does not stop the daemon")
        XCTAssertTrue(try pb("history").text.contains("after a bad reload"))
    }

    func testLosingTheXServerEndsTheDaemonWithAFailureStatus() throws {
        // A second, private X server that this test kills under the daemon.
        let doomed = try Xvfb()
        var environment = desktop.environment
        environment["DISPLAY"] = doomed.display
        environment["XDG_RUNTIME_DIR"] = desktop.home + "/runtime-doomed"
        try FileManager.default.createDirectory(atPath: environment["XDG_RUNTIME_DIR"]!, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        let daemon = try Runner(environment: environment).start(desktop.pasteboardd, [])
        try waitUntil(20, "the daemon serves the doomed display") {
            try Runner(environment: environment).run(desktop.pb, ["status"]).status == 0
        }
        doomed.stop()
        daemon.waitUntilExit()
        XCTAssertEqual(daemon.terminationStatus, 1, "systemd's Restart=on-failure brings it back")
    }

    func testItWaitsForAnXServerThatIsNotUpYet() throws {
        var environment = desktop.environment
        environment["DISPLAY"] = ":59"
        environment["XDG_RUNTIME_DIR"] = desktop.home + "/runtime-waiting"
        try FileManager.default.createDirectory(atPath: environment["XDG_RUNTIME_DIR"]!, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        let errors = Pipe()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: desktop.pasteboardd)
        process.environment = environment
        process.standardError = errors
        try process.run()
        let line = try LineReader(errors.fileHandleForReading).line() ?? ""
        XCTAssertTrue(line.contains("cannot open X display :59 yet; retrying"), line)
        XCTAssertTrue(process.isRunning, "it keeps waiting instead of failing into a start limit")
        kill(process.processIdentifier, SIGTERM)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0)
    }

    func testJournalLinesCarryPriorityPrefixesOnlyWhenStderrIsTheJournal() throws {
        // JOURNAL_STREAM names the device and inode of stderr when systemd connected it to journald.
        let logPath = desktop.home + "/journal.log"
        FileManager.default.createFile(atPath: logPath, contents: nil)
        let handle = FileHandle(forWritingAtPath: logPath)!
        let status = try FileSystem.status(logPath)
        var environment = desktop.environment
        environment["JOURNAL_STREAM"] = "\(status.device):\(status.inode)"
        let process = Process()
        process.executableURL = URL(fileURLWithPath: desktop.pasteboardd)
        process.environment = environment
        process.standardError = handle
        try process.run()
        try waitUntil(20, "the daemon logged its start") {
            ((try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "").contains("serving")
        }
        kill(process.processIdentifier, SIGTERM)
        process.waitUntilExit()
        let text = try String(contentsOfFile: logPath, encoding: .utf8)
        XCTAssertTrue(text.hasPrefix("<6>serving CLIPBOARD and PRIMARY"), text)
        XCTAssertFalse(text.contains("pasteboardd: "), "no program prefix in the journal")
    }

    func testAPersistentNamedPasteboardKeepsItsContentAcrossRestarts() throws {
        try desktop.startDaemon()
        try pb("pasteboard", "create", "_PB_TEST_KEPT", "--persistent")
        try pb("copy", "-P", "_PB_TEST_KEPT", input: Array("kept across restarts".utf8))
        let kept = try count("-P", "_PB_TEST_KEPT")
        // Kept content is written a moment after the copy (the daemon's writer thread): kill once it is on disk.
        let archive = desktop.home + "/state/pasteboard/pasteboards.d/" + "_PB_TEST_KEPT".utf8.map { String($0, radix: 16) }.joined() + ".archive"
        try waitUntil(10, "the named pasteboard is saved") {
            (try? Data(contentsOf: URL(fileURLWithPath: archive)))?.range(of: Data("kept across restarts".utf8)) != nil
        }
        desktop.stopDaemon(signal: SIGKILL)
        try desktop.startDaemon()
        try waitUntil(10, "the named pasteboard is served again") {
            try run(desktop.pb, ["paste", "-P", "_PB_TEST_KEPT"]).text == "kept across restarts"
        }
        XCTAssertEqual(try count("-P", "_PB_TEST_KEPT"), kept, "restoring is not a change")
        XCTAssertTrue(try pb("pasteboard", "list").text.contains("_PB_TEST_KEPT\tcount \(kept)\tpersistent"))
        try pb("pasteboard", "remove", "_PB_TEST_KEPT")
        desktop.stopDaemon()
        try desktop.startDaemon()
        XCTAssertEqual(try run(desktop.pb, ["paste", "-P", "_PB_TEST_KEPT"]).status, 2, "a removed pasteboard is not restored")
    }
}
