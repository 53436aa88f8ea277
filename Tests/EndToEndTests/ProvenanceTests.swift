// SPDX-License-Identifier: Apache-2.0
import Foundation
import TestSupport
import XCTest

/// Who copied, who read, and what the text is, against a real Xvfb with real owners and readers: xclip, GTK,
/// Qt, pb through the socket; `pb watch --json`, `pb watch --reads --json`, `pb history list` and `pick`.
final class ProvenanceTests: DesktopTestCase {
    /// The JSON records a watcher prints, read as they come.
    final class Records {
        let reader: LineReader
        private(set) var seen: [[String: Any]] = []
        init(_ reader: LineReader) { self.reader = reader }

        /// The first record (from those not yet returned) for which `matches` holds, waiting at most `timeout`.
        func next(timeout: Double = 20, _ what: String, where matches: ([String: Any]) -> Bool) throws -> [String: Any] {
            let deadline = Date().addingTimeInterval(timeout)
            while Date() < deadline {
                guard let line = try reader.line(timeout: max(0.05, deadline.timeIntervalSinceNow)) else { break }
                guard let record = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else { continue }
                seen.append(record)
                if matches(record) { return record }
            }
            throw FixtureError("no record \(what) within \(timeout) s; seen: \(seen)")
        }
    }

    /// Starts `pb watch ARGS` and waits until pasteboardd counts it among its watchers.
    private func watcher(_ arguments: [String]) throws -> (Process, Records) {
        let before = Int(try status()["watchers"] ?? "0") ?? 0
        let (process, reader) = try startReading(desktop.pb, ["watch"] + arguments)
        try waitUntil(10, "pb watch is registered") { (Int(try status()["watchers"] ?? "0") ?? 0) > before }
        return (process, Records(reader))
    }

    private func app(_ record: [String: Any], _ key: String = "source") -> String? { (record[key] as? [String: Any])?["app"] as? String }
    private func pid(_ record: [String: Any], _ key: String = "source") -> Int32? {
        ((record[key] as? [String: Any])?["pid"] as? Int).map(Int32.init)
    }

    /// Starts a toolkit owner and waits for its "ready".
    private func toolkitOwner(_ mode: String, _ text: String) throws -> Process {
        let (process, output) = try startReading("/usr/bin/python3", [peer("toolkits.py"), mode, "CLIPBOARD", text])
        XCTAssertEqual(try output.line(timeout: 30), "ready", "\(mode) owns CLIPBOARD")
        return process
    }

    func testWhoCopiedIsTheOwnersClassOrProcessAndThePatternsComeOnceRead() throws {
        let (watch, records) = try watcher(["--json", "-b"])
        defer { stop(watch) }

        // xclip's window has no WM_CLASS: the X server names its process (X-Resource), /proc names it.
        let xclip = try startOwner("xclip", ["-selection", "clipboard", "-quiet"], input: Array("https://example.org/a".utf8))
        let foreign = try records.next("of xclip's copy") { $0["state"] as? String == "foreign" }
        XCTAssertEqual(app(foreign), "xclip")
        XCTAssertEqual(pid(foreign), xclip.processIdentifier)
        XCTAssertTrue(foreign["patterns"] is NSNull, "not known before the manager read it: \(foreign)")
        let kept = try records.next("of xclip's copy read") { $0["state"] as? String == "kept" }
        XCTAssertEqual(kept["changeCount"] as? Int, foreign["changeCount"] as? Int, "the same change")
        XCTAssertEqual(kept["patterns"] as? [String], ["url"])
        XCTAssertEqual(app(kept), "xclip")
        stop(xclip)
        // Taken over, the copy is still xclip's, and pasteboardd says so to other clipboard managers.
        try waitUntil(10, "pasteboardd took over") { try run(desktop.pb, ["paste", "-t", "org.nspasteboard.source"]).text == "xclip" }

        // GTK owns with a hidden window: its client leader's WM_CLASS names it (GDK names the class after the
        // program, toolkits.py; its process is python3).
        let gtk = try toolkitOwner("gtk-own", "someone@example.org")
        let fromGTK = try records.next("of GTK's copy") { $0["state"] as? String == "kept" && self.pid($0) == gtk.processIdentifier }
        XCTAssertEqual(app(fromGTK), "toolkits.py")
        XCTAssertEqual(fromGTK["patterns"] as? [String], ["email"])
        stop(gtk)

        // Qt's clipboard window has no WM_CLASS and no leader: its process names it.
        let qt = try toolkitOwner("qt-own", "12,345.50")
        let fromQt = try records.next("of Qt's copy") { $0["state"] as? String == "kept" && self.pid($0) == qt.processIdentifier }
        XCTAssertEqual(app(fromQt), "python3")
        XCTAssertEqual(fromQt["patterns"] as? [String], ["number"])
        stop(qt)

        // pb through the socket: its process, by the socket's peer credentials.
        try pb("copy", input: Array("/etc/hosts".utf8))
        let fromPB = try records.next("of pb's copy") { $0["state"] as? String == "data" }
        XCTAssertEqual(app(fromPB), "pb")
        XCTAssertEqual(fromPB["patterns"] as? [String], ["path"])

        // The history says who copied each entry.
        try waitUntil(10, "four entries are in history") { try pb("history", "list").text.split(separator: "\n").count >= 4 }
        let lines = try pb("history", "list").text.split(separator: "\n").map { $0.split(separator: "\t", omittingEmptySubsequences: false).map(String.init) }
        XCTAssertEqual(Array(lines.prefix(4).map { $0[4] }), ["pb", "python3", "toolkits.py", "xclip"], "\(lines)")
        let json = try pb("history", "list", "--json", "--limit", "1").text
        XCTAssertTrue(json.contains(#""source":{"app":"pb","pid":"#), json)
        // pick shows it in the menu.
        let menuInput = desktop.home + "/menu-input"
        _ = try run(desktop.pb, ["history", "pick", "--menu-command", "cat > \(menuInput); true"])
        let menu = try String(contentsOfFile: menuInput, encoding: .utf8)
        XCTAssertTrue(menu.contains("(xclip)  https://example.org/a"), menu)
        XCTAssertTrue(menu.contains("(toolkits.py)  someone@example.org"), menu)
    }

    func testWhoReadIsRecordedForXclipGTKQtAndPBButNotForTargets() throws {
        try pb("copy", input: Array("read me".utf8))
        let (watch, records) = try watcher(["--reads", "--json"])
        defer { stop(watch) }
        let (plain, lines) = try startReading(desktop.pb, ["watch", "--reads"])
        defer { stop(plain) }
        try waitUntil(10, "both watchers are registered") { try status()["watchers"] == "2" }

        let xclip = try run("xclip", ["-o", "-selection", "clipboard"])
        XCTAssertEqual(xclip.text, "read me")
        let line = try XCTUnwrap(try lines.line(timeout: 20)).split(separator: " ").map(String.init)
        XCTAssertEqual(line.count, 7, "pasteboard, type, app, pid, time, via, outcome: \(line)")
        XCTAssertEqual([line[0], line[1], line[2], line[5], line[6]], ["CLIPBOARD", "UTF8_STRING", "xclip", "x", "served"])
        XCTAssertNotNil(Int(line[3]), "the reader's pid")
        let byXclip = try records.next("of xclip's read") { self.app($0, "reader") == "xclip" }
        XCTAssertEqual(byXclip["pasteboard"] as? String, "CLIPBOARD")
        XCTAssertEqual(byXclip["type"] as? String, "UTF8_STRING", "the type as asked")
        XCTAssertEqual(byXclip["via"] as? String, "x")
        XCTAssertTrue(byXclip["refused"] is NSNull)
        XCTAssertNotNil(pid(byXclip, "reader"))
        XCTAssertTrue((byXclip["time"] as? String ?? "").hasSuffix("Z"))

        let gtk = try run("/usr/bin/python3", [peer("toolkits.py"), "gtk"], timeout: 60)
        XCTAssertEqual(gtk.status, 0, gtk.stderr)
        let byGTK = try records.next("of GTK's read") { self.app($0, "reader") == "toolkits.py" }
        XCTAssertEqual(byGTK["type"] as? String, "text/plain;charset=utf-8", "what GTK's wait_for_text asks for")

        let qt = try run("/usr/bin/python3", [peer("toolkits.py"), "qt"], timeout: 60)
        XCTAssertEqual(qt.status, 0, qt.stderr)
        _ = try records.next("of Qt's read") { self.app($0, "reader") == "python3" }

        XCTAssertEqual(try pb("paste").text, "read me")
        let byPB = try records.next("of pb's paste") { $0["via"] as? String == "socket" }
        XCTAssertEqual(app(byPB, "reader"), "pb")

        // TARGETS, TIMESTAMP and MULTIPLE's wrapper are not reads; each target MULTIPLE asks for is.
        _ = try requestor("targets")
        _ = try requestor("timestamp")
        _ = try requestor("multiple")
        let first = try records.next("of MULTIPLE's first target") { $0["type"] as? String == "UTF8_STRING" && $0["via"] as? String == "x" && self.app($0, "reader") == "python3" }
        XCTAssertTrue(first["refused"] is NSNull)
        let notOffered = try records.next("of MULTIPLE's target not offered") { $0["type"] as? String == "image/x-not-offered" }
        XCTAssertFalse(notOffered["refused"] is NSNull, "recorded as refused")
        _ = try records.next("of MULTIPLE's last target") { $0["type"] as? String == "STRING" }
        let types = records.seen.compactMap { $0["type"] as? String }
        XCTAssertFalse(types.contains { ["TARGETS", "TIMESTAMP", "MULTIPLE"].contains($0) }, "the protocol's own are not reads: \(types)")
    }
}

/// `readPolicy` (pasteboardd.conf(5)): sensitive content refused to a named application and to windows without the
/// focus, the refusal told to `pb watch --reads`.
final class ReadPolicyTests: DesktopTestCase {
    override class var startsDaemon: Bool { false }
    var configPath: String { desktop.home + "/config/pasteboard/config.json" }

    override func tearDown() {
        desktop.stopDaemon()
        try? FileManager.default.removeItem(atPath: configPath)
        super.tearDown()
    }

    private func start(_ config: String) throws {
        try FileManager.default.createDirectory(atPath: desktop.home + "/config/pasteboard", withIntermediateDirectories: true)
        try config.write(toFile: configPath, atomically: true, encoding: .utf8)
        try desktop.startDaemon(logging: true)
    }

    private func reads() throws -> (Process, LineReader) {
        let (process, reader) = try startReading(desktop.pb, ["watch", "--reads", "--json"])
        try waitUntil(10, "pb watch --reads is registered") { try pb("status").text.contains("watchers: 1\n") }
        return (process, reader)
    }

    private func record(_ reader: LineReader) throws -> [String: Any] {
        let line = try XCTUnwrap(try reader.line(timeout: 20), "a read record")
        return try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    }

    func testSensitiveContentIsNeverServedToANamedApplication() throws {
        try start(#"{"readPolicy": {"neverTo": ["xclip"]}}"#)
        let (watch, reader) = try reads()
        defer { stop(watch) }
        try pb("copy", "--sensitive", input: Array("hunter2".utf8))
        let refused = try run("xclip", ["-o", "-selection", "clipboard"], timeout: 10)
        XCTAssertNotEqual(refused.status, 0, "xclip is refused")
        XCTAssertEqual(refused.stdout, [])
        let read = try record(reader)
        XCTAssertEqual((read["reader"] as? [String: Any])?["app"] as? String, "xclip")
        XCTAssertEqual(read["refused"] as? String, "readPolicy: sensitive content is never served to xclip")
        XCTAssertTrue(desktop.daemonLog.contains("readPolicy"), desktop.daemonLog)
        XCTAssertFalse(desktop.daemonLog.contains("hunter2"), "the log never holds content")
        // Others are served; content that is not sensitive is served to xclip too.
        XCTAssertEqual(try requestor("text-as", "UTF8_STRING")["bytes"] as? [Int], Array("hunter2".utf8).map(Int.init))
        try pb("copy", input: Array("public".utf8))
        XCTAssertEqual(try run("xclip", ["-o", "-selection", "clipboard"]).text, "public")
    }

    func testWithTheFocusRuleOnlyTheFocusedWindowIsServed() throws {
        try start(#"{"readPolicy": {"focusedWindowOnly": true}}"#)
        let (watch, reader) = try reads()
        defer { stop(watch) }
        try pb("copy", "--sensitive", input: Array("hunter2".utf8))
        let focused = try requestor("focused-text", "Terminal")
        XCTAssertEqual(focused["focused"] as? Bool, true, "the requestor's window has the focus")
        XCTAssertEqual(focused["text"] as? String, "hunter2", "served to the focused window")
        let served = try record(reader)
        XCTAssertTrue(served["refused"] is NSNull, "\(served)")
        XCTAssertEqual((served["reader"] as? [String: Any])?["app"] as? String, "Terminal")
        // xclip has no window with the focus (the Terminal's window is gone: nothing has it).
        let refused = try run("xclip", ["-o", "-selection", "clipboard"], timeout: 10)
        XCTAssertNotEqual(refused.status, 0)
        let read = try record(reader)
        XCTAssertTrue((read["refused"] as? String ?? "").hasPrefix("readPolicy: sensitive content is served only to the window that has the input focus"),
                      "\(read)")
        // pb paste has no window: the focus rule does not apply to it.
        XCTAssertEqual(try pb("paste").text, "hunter2")
    }
}
