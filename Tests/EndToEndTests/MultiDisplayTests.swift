// SPDX-License-Identifier: Apache-2.0
import Foundation
import SystemSupport
import TestSupport
import XCTest

/// One pasteboard across real X servers: pasteboardd serves the suite's Xvfb (A) and a second one (B), given
/// with `--display` twice; a third (C) joins with `pb displays add`. Real peers on each side: xclip copies on
/// one and reads on the other — text, HTML, a JPEG read as PNG and judged by pixels, 5 MB through INCR —, an
/// owner that exits, a display whose server dies.
final class MultiDisplayTests: DesktopTestCase {
    override class var startsDaemon: Bool { false }
    nonisolated(unsafe) static var second: Xvfb?

    var a: String { desktop.xvfb.display }
    var b: String { Self.second!.display }

    override func setUpWithError() throws {
        try super.setUpWithError()
        if Self.second == nil { Self.second = try Xvfb() }
        if desktop.daemon?.isRunning != true {
            try desktop.startDaemon(arguments: ["--display", a, "--display", b], logging: true)
        }
    }

    override class func tearDown() {
        super.tearDown()
        second?.stop()
        second = nil
    }

    /// A runner whose programs talk to `display`.
    func on(_ display: String) -> Runner {
        var environment = desktop.environment
        environment["DISPLAY"] = display
        return Runner(environment: environment)
    }

    /// What xclip on `display` reads of CLIPBOARD's `target` (status 0 asserted by the caller's comparison).
    func xclipOut(on display: String, _ target: String = "UTF8_STRING") throws -> RunResult {
        try on(display).run("xclip", ["-o", "-selection", "clipboard", "-t", target])
    }

    /// Starts xclip owning CLIPBOARD on `display` with `input` as `target`, and waits until the daemon counted it.
    func xclipOwner(on display: String, _ input: [UInt8], target: String = "UTF8_STRING") throws -> Process {
        let before = try count()
        let process = try on(display).start("xclip", ["-quiet", "-i", "-selection", "clipboard", "-t", target], stdin: input)
        try waitUntil(10, "xclip owns CLIPBOARD on \(display)") { try count() != before }
        return process
    }

    func testAnXclipCopyOnOneDisplayPastesOnTheOtherAndBack() throws {
        let start = try count()
        let owner = try xclipOwner(on: a, Array("copied on A".utf8))
        defer { stop(owner) }
        try waitUntil(5, "B serves A's copy") { try xclipOut(on: b).text == "copied on A" }
        XCTAssertEqual(try count(), start + 1, "one copy, one change")
        let onB = try on(b).run(desktop.pb, ["count"]).text.trimmingCharacters(in: .whitespacesAndNewlines)
        XCTAssertEqual(onB, String(start + 1), "pb on B talks to the same daemon, one count")
        let targets = try xclipOut(on: b, "TARGETS").text.split(separator: "\n").map(String.init)
        XCTAssertTrue(targets.contains("STRING") && targets.contains("com.apple.flat-rtfd"), "the derived types too: \(targets)")
        XCTAssertTrue(try xclipOut(on: b, "text/html").text.contains("copied on A"), "HTML made on B from A's text, asked by name")

        let back = try xclipOwner(on: b, Array("copied on B".utf8))
        defer { stop(back) }
        try waitUntil(5, "A serves B's copy") { try xclipOut(on: a).text == "copied on B" }
        XCTAssertEqual(try count(), start + 2)
        XCTAssertFalse(desktop.daemonLog.contains("copied on"), "never logs content")
    }

    func testHTMLCopiedOnBPastesAsRTFOnAAndAJPEGAsAPNGJudgedByPixels() throws {
        let html = try xclipOwner(on: b, Array("<p><b>bold</b> words</p>".utf8), target: "text/html")
        try waitUntil(5, "A serves B's HTML") { try xclipOut(on: a, "text/html").text.contains("<b>bold</b>") }
        let rtf = try xclipOut(on: a, "text/rtf").text
        XCTAssertTrue(rtf.hasPrefix("{\\rtf1") && rtf.contains("bold"), rtf)
        stop(html)

        let jpeg = desktop.home + "/multi.jpeg"
        let made = try run("/usr/bin/python3", [peer("images.py"), "make", "jpeg", jpeg])
        XCTAssertEqual(made.status, 0, made.stderr)
        let picture = try xclipOwner(on: b, Array(try Data(contentsOf: URL(fileURLWithPath: jpeg))), target: "image/jpeg")
        defer { stop(picture) }
        var png: [UInt8] = []
        try waitUntil(5, "A serves B's picture") {
            png = try xclipOut(on: a, "image/png").stdout
            return png.starts(with: [0x89, 0x50, 0x4E, 0x47])
        }
        let path = desktop.home + "/multi-fetched.png"
        try Data(png).write(to: URL(fileURLWithPath: path))
        let verdict = try run("/usr/bin/python3", [peer("images.py"), "compare", jpeg, path])
        XCTAssertEqual(verdict.status, 0, verdict.stderr)
        let judged = try JSONSerialization.jsonObject(with: Data(verdict.stdout)) as? [String: Any] ?? [:]
        XCTAssertEqual(judged["format"] as? String, "PNG")
        XCTAssertEqual(judged["max"] as? Int, 0, "the PNG made on A is the JPEG's pixels exactly: \(judged)")
    }

    func testFiveMegabytesCrossThroughINCRBothWays() throws {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<(5 << 20)).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let owner = try xclipOwner(on: a, bytes, target: "application/octet-stream")
        try waitUntil(5, "B lists A's type") { try xclipOut(on: b, "TARGETS").text.contains("application/octet-stream") }
        XCTAssertEqual(try xclipOut(on: b, "application/octet-stream").stdout, bytes, "5 MB from A's live owner to B")
        stop(owner)
        let back = try xclipOwner(on: b, bytes.reversed(), target: "application/octet-stream")
        defer { stop(back) }
        try waitUntil(5, "A lists B's type") { try xclipOut(on: a, "TARGETS").text.contains("application/octet-stream") }
        XCTAssertEqual(try xclipOut(on: a, "application/octet-stream").stdout, bytes.reversed())
    }

    func testACopyOutlivesItsOwnerOnEveryDisplay() throws {
        let owner = try xclipOwner(on: a, Array("left on A".utf8))
        try waitUntil(5, "B serves A's copy") { try xclipOut(on: b).text == "left on A" }
        let count = try self.count()
        stop(owner)
        try waitUntil(5, "A's manager took over") { try xclipOut(on: a).text == "left on A" }
        XCTAssertEqual(try xclipOut(on: b).text, "left on A")
        XCTAssertEqual(try self.count(), count, "an owner exiting is no change when the daemon keeps its copy")
    }

    func testPbCopyIsOfferedOnEveryDisplayAndPrimaryStaysPerDisplay() throws {
        try pb("copy", "from pb")
        XCTAssertEqual(try xclipOut(on: b).text, "from pb")
        let primary = try on(a).start("xclip", ["-quiet", "-i", "-selection", "primary"], stdin: Array("selected on A".utf8))
        defer { stop(primary) }
        try waitUntil(5, "xclip owns PRIMARY on A") { try on(a).run("xclip", ["-o", "-selection", "primary"]).text == "selected on A" }
        XCTAssertNotEqual(try on(b).run("xclip", ["-o", "-selection", "primary"]).text, "selected on A",
                          "PRIMARY is per display unless --share-primary")
        let copied = try on(b).run(desktop.pb, ["copy", "-p", "pb on B"])
        XCTAssertEqual(copied.status, 0, copied.stderr)
        XCTAssertEqual(try on(b).run("xclip", ["-o", "-selection", "primary"]).text, "pb on B", "pb's $DISPLAY says which PRIMARY")
        XCTAssertEqual(try on(a).run("xclip", ["-o", "-selection", "primary"]).text, "selected on A")
        XCTAssertEqual(try on(b).run(desktop.pb, ["paste", "-p"]).text, "pb on B")
    }

    /// pb with no `DISPLAY` (a script run by cron, or over ssh to this machine) talks to the daemon: CLIPBOARD is pb's
    /// copy, then xclip's copy on A fetched through the daemon, with its types, and the PRIMARY it copies it pastes
    /// back. pb on a display the daemon does not serve (C) has that display's own PRIMARY: read there, and a pb copy
    /// to it refused with the way to serve C rather than written on A.
    func testPbWithNoDisplayTalksToTheDaemonAndPrimaryOfADisplayNotServedIsItsOwn() throws {
        var nowhere = desktop.runner
        nowhere.environment["DISPLAY"] = nil
        try pb("copy", "pb's copy")
        let held = try nowhere.run(desktop.pb, ["paste"])
        XCTAssertEqual(held.text, "pb's copy", held.stderr)
        let owner = try xclipOwner(on: a, Array("xclip on A".utf8))
        defer { stop(owner) }
        let pasted = try nowhere.run(desktop.pb, ["paste"])
        XCTAssertEqual(pasted.text, "xclip on A", pasted.stderr)
        let types = try nowhere.run(desktop.pb, ["types"])
        XCTAssertTrue(types.text.split(separator: "\n").contains("UTF8_STRING"), types.text + types.stderr)
        // On a display served, pb types is that display's TARGETS: xclip's own list on A, the daemon's on B.
        XCTAssertEqual(try on(a).run(desktop.pb, ["types"]).text, "TARGETS\nUTF8_STRING\n", "xclip's own list")
        XCTAssertEqual(try on(b).run(desktop.pb, ["types"]).text, try xclipOut(on: b, "TARGETS").text)
        let copied = try nowhere.run(desktop.pb, ["copy", "-p", "primary with no display"])
        XCTAssertEqual(copied.status, 0, copied.stderr)
        XCTAssertEqual(try nowhere.run(desktop.pb, ["paste", "-p"]).text, "primary with no display")

        let c = try Xvfb()
        defer { c.stop() }
        let elsewhere = on(c.display)
        let primary = try elsewhere.start("xclip", ["-quiet", "-i", "-selection", "primary"], stdin: Array("selected on C".utf8))
        defer { stop(primary) }
        try waitUntil(5, "xclip owns PRIMARY on C") { try elsewhere.run("xclip", ["-o", "-selection", "primary"]).text == "selected on C" }
        XCTAssertEqual(try elsewhere.run(desktop.pb, ["paste", "-p"]).text, "selected on C", "C's own PRIMARY")
        let refused = try elsewhere.run(desktop.pb, ["copy", "-p", "not for A"])
        XCTAssertNotEqual(refused.status, 0)
        XCTAssertTrue(refused.stderr.contains("pb displays add \(c.display)"), refused.stderr)
        XCTAssertEqual(try on(a).run("xclip", ["-o", "-selection", "primary"]).text, "primary with no display", "A's PRIMARY is not C's")
    }

    func testDisplaysAreListedAddedRemovedAndALostOneIsDroppedWhileTheOthersAreServed() throws {
        XCTAssertEqual(try pb("displays").text, "\(a)\tconnected\n\(b)\tconnected\n")
        let c = try Xvfb()
        defer { c.stop() }
        try pb("displays", "add", c.display)
        XCTAssertEqual(try pb("displays").text, "\(a)\tconnected\n\(b)\tconnected\n\(c.display)\tconnected\n")
        let again = try desktop.runner.run(desktop.pb, ["displays", "add", c.display])
        XCTAssertEqual(again.status, 1)
        XCTAssertTrue(again.stderr.contains("served already"), again.stderr)
        let owner = try xclipOwner(on: c.display, Array("copied on C".utf8))
        try waitUntil(5, "A serves C's copy") { try xclipOut(on: a).text == "copied on C" }
        stop(owner)
        try waitUntil(5, "C's manager took over") { try xclipOut(on: c.display).text == "copied on C" }

        // C's server dies: C is listed disconnected (and retried); what it kept still pastes on A and B.
        c.stop()
        try waitUntil(10, "C is listed disconnected") { try pb("displays").text.contains("\(c.display)\tdisconnected") }
        XCTAssertEqual(try xclipOut(on: a).text, "copied on C")
        XCTAssertEqual(try xclipOut(on: b).text, "copied on C")
        try pb("copy", "after C died")
        XCTAssertEqual(try xclipOut(on: b).text, "after C died")
        try pb("displays", "remove", c.display)
        XCTAssertEqual(try pb("displays").text, "\(a)\tconnected\n\(b)\tconnected\n")
        let first = try desktop.runner.run(desktop.pb, ["displays", "remove", a])
        XCTAssertEqual(first.status, 1, "the first display stays")
        XCTAssertTrue(desktop.daemon?.isRunning == true)
    }

    /// Two daemons on overlapping displays (the first serves A and B, a second one B and C, as a user running
    /// their own pasteboardd in a nested session would): copies cross A → B → C and back through B, with no
    /// loop — the counts settle — and the second leaves takeovers on B to the first, which manages it.
    func testTwoDaemonsOnOverlappingDisplaysBridgeWithoutALoop() throws {
        let c = try Xvfb()
        defer { c.stop() }
        let home = desktop.home + "/second"
        for sub in ["runtime", "state", "config"] {
            try FileManager.default.createDirectory(atPath: home + "/" + sub, withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
        }
        var environment = desktop.environment
        environment["XDG_RUNTIME_DIR"] = home + "/runtime"
        environment["XDG_STATE_HOME"] = home + "/state"
        environment["XDG_CONFIG_HOME"] = home + "/config"
        environment["DISPLAY"] = b
        let notify = try NotifySocket(directory: home)
        defer { notify.close() }
        environment["NOTIFY_SOCKET"] = notify.path
        let logPath = home + "/pasteboardd.log"
        _ = FileManager.default.createFile(atPath: logPath, contents: nil)
        let second = try Runner(environment: environment).start(desktop.pasteboardd, ["--display", b, "--display", c.display],
                                                                 stderrPath: logPath)
        defer { if second.isRunning { kill(second.processIdentifier, SIGTERM) }; second.waitUntilExit() }
        try notify.waitForReady(second, name: "the second pasteboardd", seconds: 20)
        environment["NOTIFY_SOCKET"] = nil
        let secondPB = Runner(environment: environment)
        func secondCount() throws -> String { try secondPB.run(desktop.pb, ["count"]).text }

        let owner = try xclipOwner(on: a, Array("from A to C".utf8))
        try waitUntil(5, "C serves A's copy through B") { try xclipOut(on: c.display).text == "from A to C" }
        stop(owner)
        let back = try on(c.display).start("xclip", ["-quiet", "-i", "-selection", "clipboard"], stdin: Array("from C to A".utf8))
        defer { stop(back) }
        try waitUntil(5, "A serves C's copy through B") { try xclipOut(on: a).text == "from C to A" }

        // No ping-pong: once settled, neither daemon counts anything more.
        let (first, other) = (try count(), try secondCount())
        Thread.sleep(forTimeInterval: 1)
        XCTAssertEqual(try count(), first, "the first daemon's count settled")
        XCTAssertEqual(try secondCount(), other, "the second daemon's count settled")
        XCTAssertEqual(try xclipOut(on: b).text, "from C to A")
        let log = (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
        XCTAssertTrue(log.contains("another pasteboardd (pid \(desktop.daemon!.processIdentifier)) manages \(b)"), log)
    }

    /// Xephyr nested in the first display, as users run one for window-manager work, joined at run time.
    func testAXephyrNestedInTheSessionJoinsAndSharesThePasteboard() throws {
        _ = try requireTool("Xephyr", package: "xserver-xephyr")
        let nested = try Xvfb.nestedXephyr(on: a)
        defer { nested.stop() }
        try pb("displays", "add", nested.display)
        try waitUntil(5, "Xephyr is served") { try pb("displays").text.contains("\(nested.display)\tconnected") }
        let owner = try xclipOwner(on: nested.display, Array("copied in Xephyr".utf8))
        defer { stop(owner) }
        try waitUntil(5, "A serves Xephyr's copy") { try xclipOut(on: a).text == "copied in Xephyr" }
        XCTAssertEqual(try xclipOut(on: b).text, "copied in Xephyr")
        try pb("copy", "pasted in Xephyr")
        XCTAssertEqual(try xclipOut(on: nested.display).text, "pasted in Xephyr")
        try pb("displays", "remove", nested.display)
    }

    /// Toolkit owners and readers on both sides: a GTK copy on B read by Qt, GTK and Tk on A, and a paste on B
    /// while A's owner hangs is refused within the fetch deadline, never holding B's readers.
    func testToolkitsOnEitherSideAndAnOwnerThatHangs() throws {
        let (gtkOwner, ready) = try { () throws -> (Process, LineReader) in
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
            process.arguments = [peer("toolkits.py"), "gtk-own", "CLIPBOARD", "GTK on B"]
            var environment = desktop.environment
            environment["DISPLAY"] = b
            process.environment = environment
            let output = Pipe()
            process.standardOutput = output
            try process.run()
            return (process, LineReader(output.fileHandleForReading))
        }()
        defer { stop(gtkOwner) }
        XCTAssertEqual(try ready.line(timeout: 30), "ready")
        for toolkit in ["qt", "gtk", "tk"] {
            var read: [String: Any] = [:]
            try waitUntil(10, "\(toolkit) on A reads B's GTK copy") {
                let result = try on(a).run("/usr/bin/python3", [peer("toolkits.py"), toolkit], timeout: 60)
                read = (try? JSONSerialization.jsonObject(with: Data(result.stdout)) as? [String: Any]) ?? [:]
                return read["text"] as? String == "GTK on B"
            }
        }
        stop(gtkOwner)

        // An owner on A that answers TARGETS and never the data: B's reader is refused in time (the fetch deadline, 3 s), not hung.
        let file = desktop.home + "/hang.txt"
        try Data("never sent".utf8).write(to: URL(fileURLWithPath: file))
        let silent = try on(a).start("/usr/bin/python3", [peer("owner.py"), "CLIPBOARD", "--mode", "hang", "application/x-hangs=" + file])
        defer { stop(silent) }
        try waitUntil(10, "B lists the hanging owner's copy") { try xclipOut(on: b, "TARGETS").text.contains("application/x-hangs") }
        let started = Date()
        let refused = try on(b).run("xclip", ["-o", "-selection", "clipboard", "-t", "application/x-hangs"], timeout: 30)
        XCTAssertNotEqual(refused.status, 0, "refused, not served garbage")
        XCTAssertTrue(refused.stdout.isEmpty)
        XCTAssertLessThan(Date().timeIntervalSince(started), 8, "within the fetch deadline, well inside the toolkits' patience")
        try pb("copy", "after the silent owner")
        try waitUntil(5, "B serves the next copy") { try xclipOut(on: b).text == "after the silent owner" }
    }

    /// Owners on A of text inventing 300 target names at every copy (4,800 in all): B is offered each copy with all of them,
    /// and the daemon lives on and serves the next copy. Each display's connection caches at most 4,096 names and
    /// starts over past that; before 2026-12-03 the daemon trapped when that happened while it interned a copy's
    /// names for B (some known when it began, looked up again after the cache had been emptied).
    func testOwnersInventingThousandsOfTargetNamesDoNotStopTheDaemon() throws {
        let file = desktop.home + "/invented.txt"
        try Data("invented".utf8).write(to: URL(fileURLWithPath: file))
        for copy in 0..<16 {
            // Text as well, so that each copy's names for B hold the derived types B's connection knows already.
            let targets = ["UTF8_STRING=" + file] + (0..<300).map { "application/x-pb-invented-\(copy)-\($0)=" + file }
            let owner = try on(a).start("/usr/bin/python3", [peer("owner.py"), "CLIPBOARD"] + targets)
            defer { stop(owner) }
            try waitUntil(10, "B lists copy \(copy)'s invented names") {
                guard desktop.daemon?.isRunning == true else { return true }
                let listed = try xclipOut(on: b, "TARGETS").text
                return listed.contains("application/x-pb-invented-\(copy)-0\n") && listed.contains("application/x-pb-invented-\(copy)-299\n")
            }
            guard desktop.daemon?.isRunning == true else { return XCTFail("the daemon stopped at copy \(copy)") }
        }
        XCTAssertEqual(try xclipOut(on: b, "application/x-pb-invented-15-7").text, "invented", "the last copy's bytes, fetched from A")
        try pb("copy", "after the invented names")
        try waitUntil(5, "B serves the next copy") { try xclipOut(on: b).text == "after the invented names" }
    }

    /// Joins `c`, makes an owner there whose INCR transfer never ends, and starts xclip reading it on A: the
    /// daemon is then fetching from C for as long as C lives.
    func endlessTransfer(from c: Xvfb) throws -> (owner: Process, reader: BackgroundRun) {
        try pb("displays", "add", c.display)
        let file = desktop.home + "/endless-\(c.display.dropFirst()).bin"
        try Data(repeating: 0x65, count: 1 << 20).write(to: URL(fileURLWithPath: file))
        let owner = try on(c.display).start("/usr/bin/python3", [peer("owner.py"), "CLIPBOARD", "--mode", "endless",
                                                                 "application/x-endless=" + file])
        try waitUntil(10, "A lists C's copy") { try xclipOut(on: a, "TARGETS").text.contains("application/x-endless") }
        let reader = try BackgroundRun("/usr/bin/xclip", ["-o", "-selection", "clipboard", "-t", "application/x-endless"],
                                       environment: on(a).environment)
        try waitUntil(10, "the daemon is fetching from C for A's reader") { try status()["fetches"] == "1" }
        XCTAssertTrue(reader.process.isRunning)
        return (owner, reader)
    }

    /// A display's X server killed while its owner's data is crossing to another display: the reader there is
    /// refused (never hung), the daemon drops the dead display and serves the others, and a display removed
    /// while nothing is left of it goes quietly.
    func testAnXServerKilledMidTransferCostsOnlyThatTransfer() throws {
        let c = try Xvfb()
        let (owner, reader) = try endlessTransfer(from: c)
        defer { stop(owner) }
        c.stop()
        let finished = reader.finish(timeout: 20)
        XCTAssertNotEqual(finished.status, 0, "refused once C is gone, not left waiting")
        try waitUntil(10, "C is listed disconnected") { try pb("displays").text.contains("\(c.display)\tdisconnected") }
        XCTAssertTrue(desktop.daemon?.isRunning == true)
        try pb("copy", "after C died mid-transfer")
        try waitUntil(5, "B serves the next copy") { try xclipOut(on: b).text == "after C died mid-transfer" }
        XCTAssertEqual(try xclipOut(on: a).text, "after C died mid-transfer")
        try pb("displays", "remove", c.display)
    }

    /// A display removed with `pb displays remove` while its owner's data is crossing: the reader elsewhere is
    /// refused at once, and the display's selections are left to their owners.
    func testADisplayRemovedWhileATransferRunsRefusesThatTransferAtOnce() throws {
        let c = try Xvfb()
        defer { c.stop() }
        let (owner, reader) = try endlessTransfer(from: c)
        defer { stop(owner) }
        let removed = Date()
        try pb("displays", "remove", c.display)
        let finished = reader.finish(timeout: 20)
        XCTAssertNotEqual(finished.status, 0, "refused once C is no longer served")
        XCTAssertLessThan(Date().timeIntervalSince(removed), 2.5, "at once, not at the fetch deadline")
        XCTAssertEqual(try pb("displays").text, "\(a)\tconnected\n\(b)\tconnected\n")
        XCTAssertTrue(owner.isRunning, "C's owner keeps its selection")
    }
}
