// SPDX-License-Identifier: Apache-2.0
import Foundation
import SystemSupport
import TestSupport
import XCTest

/// A suite with its own headless sway beside its Xvfb, and pasteboardd serving both (`--wayland` the sway socket):
/// one sway per class, stopped with it.
class SeatTestCase: DesktopTestCase {
    override class var startsDaemon: Bool { false }
    nonisolated(unsafe) static var sways: [ObjectIdentifier: Sway] = [:]

    var sway: Sway { Self.sways[ObjectIdentifier(Self.self)]! }

    override func setUpWithError() throws {
        try super.setUpWithError()
        if Self.sways[ObjectIdentifier(Self.self)] == nil { Self.sways[ObjectIdentifier(Self.self)] = try startSway() }
        if desktop.daemon?.isRunning != true {
            try desktop.startDaemon(arguments: ["--wayland", sway.socket], logging: true)
        }
    }

    override class func tearDown() {
        super.tearDown()
        sways.removeValue(forKey: ObjectIdentifier(self))?.stop()
    }

    /// A runner whose programs talk to the compositor (and not to any X display; GTK on its Wayland backend).
    var wayland: Runner {
        var environment = desktop.environment
        environment["WAYLAND_DISPLAY"] = sway.socket
        environment["DISPLAY"] = nil
        environment["GDK_BACKEND"] = "wayland"
        return Runner(environment: environment)
    }
}

/// X and Wayland applications share one pasteboard: pasteboardd serves the suite's Xvfb and a headless sway's
/// seat (`--wayland`, through wlr-data-control), and wl-clipboard on the Wayland side and xclip on the X side
/// copy on one and paste on the other — text, HTML converted on the way, one change per copy.
final class WaylandSeatTests: SeatTestCase {
    /// `wl-copy --foreground` owning the seat's selection until stopped by its PID.
    func wlCopy(_ bytes: [UInt8], _ arguments: [String] = []) throws -> Process {
        let process = try wayland.start("wl-copy", ["--foreground"] + arguments, stdin: bytes)
        addTeardownBlock { if process.isRunning { kill(process.processIdentifier, SIGTERM); process.waitUntilExit() } }
        return process
    }

    func testTheDaemonSaysWhichProtocolItBound() throws {
        try waitUntil(5, "the daemon logged the Wayland seat") { self.desktop.daemonLog.contains("serving the Wayland seat of") }
        XCTAssertTrue(desktop.daemonLog.contains("wlr-data-control-unstable-v1 version 2"), desktop.daemonLog)
        XCTAssertEqual(try status()["wayland"], sway.socket + " (wlr-data-control-unstable-v1 version 2)", "pb status says it")
    }

    func testAWaylandCopyPastesInXAndCountsOnce() throws {
        let before = try count()
        let owner = try wlCopy(Array("copied on Wayland ✓".utf8))
        try waitUntil(5, "the copy is counted") { try count() == before + 1 }
        try waitUntil(5, "xclip reads it") { try run("xclip", ["-o", "-selection", "clipboard"]).text == "copied on Wayland ✓" }
        XCTAssertEqual(try pb("paste").text, "copied on Wayland ✓", "pb paste too")
        XCTAssertEqual(try count(), before + 1, "reading is not a change")
        stop(owner)
    }

    func testAnXCopyPastesOnWaylandAndAWaylandHTMLCopyPastesAsRTFInX() throws {
        let owner = try startOwner("xclip", ["-quiet", "-i", "-selection", "clipboard"], input: Array("copied on X".utf8))
        try waitUntil(5, "wl-paste reads X's copy") {
            try self.wayland.run("wl-paste", ["--no-newline"], timeout: 5).text == "copied on X"
        }
        let types = try wayland.run("wl-paste", ["--list-types"], timeout: 5).text.split(separator: "\n").map(String.init)
        XCTAssertTrue(types.contains("text/plain;charset=utf-8"), "\(types)")
        XCTAssertFalse(types.contains("UTF8_STRING") || types.contains("COMPOUND_TEXT"), "X's own text names stay on X: \(types)")
        stop(owner)

        let html = try wlCopy(Array("<p>rich <b>bold</b></p>".utf8), ["--type", "text/html"])
        try waitUntil(5, "X reads the Wayland HTML as RTF") {
            try run("xclip", ["-o", "-selection", "clipboard", "-t", "text/rtf"]).text.hasPrefix("{\\rtf1")
        }
        XCTAssertTrue(try run("xclip", ["-o", "-selection", "clipboard", "-t", "text/rtf"]).text.contains("bold"))
        stop(html)
    }

    /// Read early, own late on Wayland: the copy is read at once and recorded in history; when wl-copy exits the
    /// daemon sets it again (no change), and Wayland and X readers still paste it.
    func testAWaylandCopyOutlivesItsClientAndIsInHistory() throws {
        let owner = try wlCopy(Array("survives wl-copy".utf8))
        try waitUntil(5, "the daemon read the copy") { try pb("history", "list").text.contains("survives wl-copy") }
        let count = try count()
        stop(owner)
        try waitUntil(5, "the daemon took over on Wayland") { self.desktop.daemonLog.contains("took over CLIPBOARD on") }
        XCTAssertEqual(try wayland.run("wl-paste", ["--no-newline"], timeout: 5).text, "survives wl-copy")
        XCTAssertEqual(try run("xclip", ["-o", "-selection", "clipboard"]).text, "survives wl-copy")
        XCTAssertEqual(try self.count(), count, "taking it over is not a change")
        XCTAssertFalse(desktop.daemonLog.contains("survives wl-copy"), "never content in the log")
    }

    func testASecretWaylandCopyIsNotReadNorKept() throws {
        let before = try pb("history", "list").text
        let owner = try wlCopy(Array("hunter2".utf8), ["--type", "x-kde-passwordManagerHint"])
        try waitUntil(5, "the daemon saw the secret copy") { self.desktop.daemonLog.contains("holds secret content: not read") }
        stop(owner)
        XCTAssertEqual(try pb("history", "list").text, before, "not recorded")
    }

    /// Every conversion of the table works for Wayland readers: an HTML copy made in X is offered on Wayland as RTF
    /// too (converted when wl-paste asks), and a Wayland HTML copy taken over after wl-copy exits as well.
    func testWaylandReadersGetDerivedTypes() throws {
        let html = desktop.home + "/wayland.html"
        try "<p>derived <b>rich</b></p>".write(toFile: html, atomically: true, encoding: .utf8)
        try pb("copy", "-t", "text/html=\(html)")
        try waitUntil(5, "wl-paste lists RTF") {
            try self.wayland.run("wl-paste", ["--list-types"], timeout: 5).text.split(separator: "\n").contains("text/rtf")
        }
        let rtf = try wayland.run("wl-paste", ["--type", "text/rtf"], timeout: 10)
        XCTAssertTrue(rtf.text.hasPrefix("{\\rtf1") && rtf.text.contains("rich"), rtf.text + rtf.stderr)
        let text = try wayland.run("wl-paste", ["--no-newline", "--type", "text/plain;charset=utf-8"], timeout: 10).text
        XCTAssertTrue(text.contains("derived rich"), text)

        let readBefore = desktop.daemonLog.components(separatedBy: "read CLIPBOARD on").count
        let owner = try wlCopy(Array("<p>taken <i>over</i></p>".utf8), ["--type", "text/html"])
        try waitUntil(5, "the daemon read it") { self.desktop.daemonLog.components(separatedBy: "read CLIPBOARD on").count > readBefore }
        stop(owner)
        try waitUntil(5, "taken over on Wayland with its derived types") {
            try self.wayland.run("wl-paste", ["--list-types"], timeout: 5).text.split(separator: "\n").contains("text/rtf")
        }
        XCTAssertTrue(try wayland.run("wl-paste", ["--type", "text/rtf"], timeout: 10).text.contains("over"))
    }

    /// An alias never passes one format off as another: `wl-copy -t text/html` offers the HTML under five plain-text
    /// names too; X and pb get the HTML's text as plain text (made from the HTML), never its markup, and the copy
    /// is recorded as the HTML it is. Flat RTFD copied on X is offered on Wayland under its own name and a
    /// MIME-shaped one, both the same bytes.
    func testWlCopysPlainTextAliasesOfHTMLAreNotTakenForTextAndRTFDHasAMIMEName() throws {
        let owner = try wlCopy(Array("<p>only <b>markup</b> here</p>".utf8), ["--type", "text/html"])
        try waitUntil(5, "X reads the copy") { try run("xclip", ["-o", "-selection", "clipboard", "-t", "text/html"]).text.contains("<b>markup</b>") }
        let text = try run("xclip", ["-o", "-selection", "clipboard"]).text
        XCTAssertTrue(text.contains("only markup here") && !text.contains("<"), "UTF8_STRING is the HTML's text: \(text)")
        XCTAssertFalse(try pb("paste").text.contains("<b>"), "pb paste too")
        let types = try pb("types").text.split(separator: "\n").map(String.init).filter { !["TARGETS", "TIMESTAMP", "MULTIPLE"].contains($0) }
        XCTAssertEqual(types.first, "text/html", "the copy is the HTML, its text derived: \(types)")
        try waitUntil(5, "the copy is in history") { try pb("history", "list").text.contains("text/html") }
        stop(owner)

        let rtfd = try run(desktop.pb, ["convert", "--from", "rtf", "--to", "rtfd"], input: Array(#"{\rtf1\ansi flat {\b RTFD}\par}"#.utf8)).stdout
        let file = desktop.home + "/copy.rtfd"
        try Data(rtfd).write(to: URL(fileURLWithPath: file))
        try pb("copy", "-t", "com.apple.flat-rtfd=\(file)")
        try waitUntil(5, "wl-paste lists RTFD under both names") {
            let listed = try self.wayland.run("wl-paste", ["--list-types"], timeout: 5).text.split(separator: "\n")
            return listed.contains("com.apple.flat-rtfd") && listed.contains("application/x-apple-flat-rtfd")
        }
        XCTAssertEqual(try wayland.run("wl-paste", ["--type", "application/x-apple-flat-rtfd"], timeout: 10).stdout, rtfd)
        XCTAssertEqual(try wayland.run("wl-paste", ["--type", "com.apple.flat-rtfd"], timeout: 10).stdout, rtfd)
    }

    /// The compositor killed: the daemon goes on serving X (what it had read of the last Wayland copy stays
    /// pasteable there), tries the compositor again, and serves its seat once it is back on the same socket.
    func testACompositorKilledAndRestartedIsServedAgain() throws {
        let owner = try wlCopy(Array("before the crash".utf8))
        try waitUntil(5, "the daemon read it") { try pb("history", "list").text.contains("before the crash") }
        let socket = sway.socket
        try sway.restart()
        owner.waitUntilExit()   // wl-copy ends with its compositor
        XCTAssertEqual(sway.socket, socket, "the same socket")
        try waitUntil(5, "the daemon noticed") { self.desktop.daemonLog.contains("lost the Wayland compositor") }
        XCTAssertEqual(try run("xclip", ["-o", "-selection", "clipboard"]).text, "before the crash", "kept, served on X")
        try waitUntil(15, "the daemon is back on the compositor") { self.desktop.daemonLog.contains("is back") }
        let after = try wlCopy(Array("after the restart".utf8))
        try waitUntil(5, "a copy on the new compositor pastes in X") {
            try run("xclip", ["-o", "-selection", "clipboard"]).text == "after the restart"
        }
        stop(after)
    }

    /// A large value the daemon holds pastes whole on Wayland (written in pieces of what the pipe holds), from
    /// memory and again once the daemon keeps it in its file.
    func testALargeValueTheDaemonHoldsPastesWholeOnWaylandFromMemoryAndFromItsFile() throws {
        let big = (0..<(24 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 131 &+ $0 >> 13) }
        let file = desktop.home + "/big-for-wayland.bin"
        // A type of its own: the suite's earlier tests leave application/octet-stream on the seat, and a wait for that
        // name ended at once, a paste then racing this copy's arrival (once it got no bytes: the source it asked was
        // the one this copy replaced).
        let type = "application/x-pasteboard-large-test"
        try Data(big).write(to: URL(fileURLWithPath: file))
        try pb("copy", "-t", "\(type)=\(file)")
        try waitUntil(10, "the seat offers it") {
            try self.wayland.run("wl-paste", ["--list-types"], timeout: 5).text.split(separator: "\n").contains(Substring(type))
        }
        let first = try wayland.run("wl-paste", ["--type", type], timeout: 30)
        XCTAssertEqual(first.stdout.count, big.count, "wl-paste exited \(first.status): \(first.stderr.suffix(300)); the daemon: \(desktop.daemonLog.suffix(1500))")
        XCTAssertTrue(first.stdout == big, "exactly the bytes copied")
        try waitUntil(20, "the daemon serves it from its file") { try self.status()["file-bytes.CLIPBOARD"] == String(big.count) }
        let again = try wayland.run("wl-paste", ["--type", type], timeout: 30)
        XCTAssertTrue(again.stdout == big, "exactly the bytes, from the file")
    }

    /// A large xclip copy (by INCR, read into its history file as it comes) pastes byte-exact with wl-paste while
    /// xclip holds it and once the daemon took it over from that file.
    func testALargeXclipCopyReadIntoItsFilePastesWholeOnWaylandBeforeAndAfterItsOwnerExits() throws {
        let big = (0..<(12 << 20) + 77).map { UInt8(truncatingIfNeeded: $0 &* 29 &+ $0 >> 12) }
        let file = desktop.home + "/big-from-x.bin"
        try Data(big).write(to: URL(fileURLWithPath: file))
        let owner = try startOwner("xclip", ["-quiet", "-i", "-selection", "clipboard", "-t", "application/octet-stream", file], input: [])
        try waitUntil(30, "the copy is kept in the history") {
            try pb("history", "list").text.split(separator: "\n").first?.contains("\t\(big.count) B\t") == true && status()["writes"] == "0"
        }
        let live = try wayland.run("wl-paste", ["--type", "application/octet-stream"], timeout: 30)
        XCTAssertTrue(live.stdout == big, "exactly xclip's bytes (\(live.stdout.count))")
        stop(owner)
        try waitUntil(20, "the daemon took it over from its file") { try self.status()["file-bytes.CLIPBOARD"] == String(big.count) }
        let kept = try wayland.run("wl-paste", ["--type", "application/octet-stream"], timeout: 30)
        XCTAssertTrue(kept.stdout == big, "exactly the bytes, from the file (\(kept.stdout.count))")
    }

    /// A Wayland copy is kept up to its cap (`maxTextBytes` for a type that is neither text nor a picture): one of
    /// exactly the cap outlives its client, whole; one byte more is left out, the log says so and why (never its
    /// content), and the seat is empty once its client is gone.
    func testAWaylandCopyIsKeptUpToItsCapAndLeftOutPastIt() throws {
        desktop.stopDaemon()
        let directory = desktop.home + "/config/pasteboard"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try "{\"maxTextBytes\": 65536}".write(toFile: directory + "/config.json", atomically: true, encoding: .utf8)
        try desktop.startDaemon(arguments: ["--wayland", sway.socket], logging: true)
        try FileManager.default.removeItem(atPath: directory + "/config.json")
        addTeardownBlock { [desktop] in desktop.stopDaemon() }   // the next test starts one without the cap

        let over = try wlCopy([UInt8](repeating: 0x6f, count: 65_537), ["--type", "application/octet-stream"])
        try waitUntil(5, "the daemon left the copy out") {
            self.desktop.daemonLog.contains("nothing kept; left out: application/octet-stream: the data is larger than the cap of 65536 bytes")
        }
        stop(over)
        try waitUntil(5, "the seat is empty once its client is gone") {
            try self.wayland.run("wl-paste", ["--list-types"], timeout: 5).status != 0
        }
        XCTAssertFalse(desktop.daemonLog.contains("took over CLIPBOARD on"), "nothing to take over")

        let whole = (0..<65_536).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ $0 >> 8) }
        let owner = try wlCopy(whole, ["--type", "application/octet-stream"])
        try waitUntil(5, "the daemon read it whole") { self.desktop.daemonLog.contains("1 types, 65536 bytes") }
        stop(owner)
        try waitUntil(5, "the daemon took it over") { self.desktop.daemonLog.contains("took over CLIPBOARD on") }
        XCTAssertTrue(try wayland.run("wl-paste", ["--type", "application/octet-stream"], timeout: 5).stdout == whole,
                      "exactly the bytes copied, after their copier is gone")
    }

    /// A copier killed while the daemon reads its copy for an X reader: the reader is refused, never given the
    /// bytes that came before the kill as if they were the copy (Wayland says no size; the daemon asks the
    /// compositor whether the offer still stands before it answers).
    func testACopierKilledMidSendIsNeverPassedOffAsItsCopy() throws {
        let big = [UInt8](repeating: 0x61, count: 48 << 20)
        let owner = try wlCopy(big, ["--type", "application/octet-stream"])
        try waitUntil(10, "the copy is offered in X") {
            try run("xclip", ["-o", "-selection", "clipboard", "-t", "TARGETS"]).text.contains("application/octet-stream")
        }
        let output = desktop.home + "/cut.out"
        let reader = try Runner(environment: desktop.environment).start(
            "sh", ["-c", "exec xclip -o -selection clipboard -t application/octet-stream > '\(output)'"])
        try waitUntil(10, "the daemon reads from wl-copy") { try status()["fetches"] == "1" }
        // wl-copy writes each paste from a child of its own (`cat`): wl-copy is killed and gone, then the child,
        // by their PIDs. In that order the compositor has wl-copy's end before the pipe ends. (A writing child
        // that dies while wl-copy lives ends the pipe as a finished send would: Wayland says no size, so no
        // reader can tell — what came is all that copier sent. kill() returns before its target is gone, so the
        // two killed together could end in either order.)
        let children = Self.children(of: owner.processIdentifier)
        kill(owner.processIdentifier, SIGKILL)
        owner.waitUntilExit()
        for child in children { kill(child, SIGKILL) }
        reader.waitUntilExit()
        let size = (try? FileManager.default.attributesOfItem(atPath: output)[.size] as? Int) ?? -1
        XCTAssertTrue(size == 0 || size == big.count, "xclip got \(size) of \(big.count) bytes: never a cut copy passed off as whole")
        XCTAssertEqual(try status()["owned.CLIPBOARD"] != nil, true, "the daemon serves on")
    }

    /// The history's directory, and the files of the daemon's there that are being read into (`IncomingArchive`).
    var historyDirectory: String { desktop.home + "/state/pasteboard/history" }
    func incomingFiles() -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: historyDirectory)) ?? []).filter { $0.hasPrefix(".incoming.tmp-") }
    }

    /// A large copy offered under one name goes from wl-copy's pipe straight into its history file (never all in the
    /// daemon's memory), and is kept from there: pasted byte-exact in X and by wl-paste once wl-copy has exited, in
    /// history, and restored from the same file after a restart; no file is left half-made.
    func testALargeOneNameWaylandCopyIsReadIntoItsFileAndKeptFromThere() throws {
        let big = (0..<(10 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 131 &+ $0 >> 11) }
        let owner = try wlCopy(big, ["--type", "application/octet-stream"])
        try waitUntil(10, "the daemon read it into its file") {
            self.desktop.daemonLog.contains("1 types, \(big.count) bytes (read into its file)")
        }
        try waitUntil(10, "it is in history") { try self.pb("history", "list").text.contains("[application/octet-stream]") }
        try waitUntil(10, "its file is written under its name") {
            let archives = ((try? FileManager.default.contentsOfDirectory(atPath: self.historyDirectory)) ?? []).filter { $0.hasSuffix(".archive") }
            return archives.contains { name in
                let size = (try? FileManager.default.attributesOfItem(atPath: self.historyDirectory + "/" + name)[.size] as? Int) ?? 0
                return size > big.count && size < big.count + 4096
            } && self.incomingFiles().isEmpty
        }
        let kept = desktop.home + "/state/pasteboard/clipboard.archive"
        try waitUntil(10, "the kept clipboard is the same file") {
            ((try? FileManager.default.attributesOfItem(atPath: kept)[.referenceCount] as? Int) ?? 0) == 2
        }
        stop(owner)
        try waitUntil(5, "the daemon took it over") { self.desktop.daemonLog.contains("took over CLIPBOARD on") }
        XCTAssertTrue(try wayland.run("wl-paste", ["--type", "application/octet-stream"], timeout: 30).stdout == big,
                      "wl-paste gets exactly the bytes copied, from the file, after their copier is gone")
        XCTAssertTrue(try run("xclip", ["-o", "-selection", "clipboard", "-t", "application/octet-stream"]).stdout == big,
                      "and so does an X reader")

        desktop.stopDaemon()
        try desktop.startDaemon(arguments: ["--wayland", sway.socket], logging: true)
        try waitUntil(10, "restored at start") {
            try self.run("xclip", ["-o", "-selection", "clipboard", "-t", "TARGETS"]).text.contains("application/octet-stream")
        }
        XCTAssertTrue(try run("xclip", ["-o", "-selection", "clipboard", "-t", "application/octet-stream"]).stdout == big,
                      "restored byte-exact after a restart")
        try waitUntil(10, "the seat offers it again") {
            try self.wayland.run("wl-paste", ["--list-types"], timeout: 5).text.contains("application/octet-stream")
        }
        XCTAssertTrue(try wayland.run("wl-paste", ["--type", "application/octet-stream"], timeout: 30).stdout == big,
                      "and on Wayland")
        XCTAssertFalse(desktop.daemonLog.contains("cannot write") || desktop.daemonLog.contains("cannot make a file"), desktop.daemonLog)
    }

    /// A copier killed while the daemon reads its large copy into a file: the file goes, nothing is kept or recorded.
    /// (wl-copy sends each paste with `cat`: a `cat` of the test's, first on wl-copy's PATH, sends 4 MiB of the copy
    /// and stops, so the kill comes mid-send whatever the machine's speed.)
    func testACopierKilledWhileItsLargeCopyIsReadIntoAFileLeavesNoFileAndNoKeptCopy() throws {
        let bin = desktop.home + "/slow-cat-bin"
        try FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: true)
        try """
        #!/bin/sh
        case "$1" in
        /tmp/wl-copy-buf*) echo $$ >> "$0.pids"; head -c 4194304 "$1"; exec sleep 60 ;;
        *) exec /bin/cat "$@" ;;
        esac
        """.write(toFile: bin + "/cat", atomically: true, encoding: .utf8)
        chmod(bin + "/cat", 0o755)
        desktop.stopDaemon()   // a log of this test's alone
        try desktop.startDaemon(arguments: ["--wayland", sway.socket], logging: true)
        var environment = wayland.environment
        environment["PATH"] = bin + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
        let history = try pb("history", "list").text
        let owner = try Runner(environment: environment).start("wl-copy", ["--foreground", "--type", "application/octet-stream"],
                                                              stdin: [UInt8](repeating: 0x62, count: 32 << 20))
        addTeardownBlock { if owner.isRunning { kill(owner.processIdentifier, SIGKILL); owner.waitUntilExit() } }
        try waitUntil(10, "the daemon reads it into a file") {
            self.incomingFiles().contains { name in
                ((try? FileManager.default.attributesOfItem(atPath: self.historyDirectory + "/" + name)[.size] as? Int) ?? 0) >= 4 << 20
            }
        }
        let children = Self.children(of: owner.processIdentifier)
        XCTAssertFalse(children.isEmpty, "wl-copy's cat sends")
        let senders = ((try? String(contentsOfFile: bin + "/cat.pids", encoding: .utf8)) ?? "").split(separator: "\n").compactMap { Int32($0) }
        // wl-copy first, and its sender only once wl-copy is dead and the seat empty: kill() returns before its target
        // is gone, and a sender that died first would end the pipe while wl-copy still owns the copy — a finished send,
        // as far as any Wayland reader can tell (no size). wl-copy's exit is waited for once its sender, which holds
        // its output, is gone too.
        kill(owner.processIdentifier, SIGKILL)
        try waitUntil(5, "wl-copy is dead") { !ProcessIdentity.isRunning(owner.processIdentifier) }
        try waitUntil(5, "the seat is empty") { try self.wayland.run("wl-paste", ["--list-types"], timeout: 5).status != 0 }
        for child in Set(children + senders) { kill(child, SIGKILL) }
        owner.waitUntilExit()
        try waitUntil(5, "the file is gone") { self.incomingFiles().isEmpty }
        XCTAssertEqual(try pb("history", "list").text, history, "nothing recorded")
        XCTAssertFalse(desktop.daemonLog.contains("(read into its file)"), "nothing kept: \(desktop.daemonLog)")
        XCTAssertFalse(desktop.daemonLog.contains("took over CLIPBOARD on"), "nothing taken over")
    }

    /// The processes whose parent is `pid` (from /proc).
    static func children(of pid: Int32) -> [Int32] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap { Int32($0) }.filter { candidate in
            guard let stat = try? String(contentsOfFile: "/proc/\(candidate)/stat", encoding: .utf8),
                  let close = stat.lastIndex(of: ")") else { return false }
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            return fields.count > 2 && Int32(fields[1]) == pid
        }
    }

    func testTheDaemonsOwnSelectionOnWaylandIsNotCountedAgain() throws {
        try pb("copy", input: Array("from pb".utf8))
        let after = try count()
        try waitUntil(5, "wl-paste reads pb's copy") { try self.wayland.run("wl-paste", ["--no-newline"], timeout: 5).text == "from pb" }
        XCTAssertEqual(try count(), after, "the mirror on Wayland coming back is no change (no echo)")
    }
}
