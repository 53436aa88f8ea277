// SPDX-License-Identifier: Apache-2.0
import Foundation
import SystemSupport
import TestSupport
import XCTest

/// Two daemons, one pasteboard: the suite's pasteboardd (A, on its Xvfb) peered with a second one (B) that has its
/// own Xvfb, runtime, state and home — two machines but for the network — through B's remote.sock, as `pb peer
/// add` does through an `ssh -L` forward. Real peers: xclip copies on each side and reads on the other.
final class PeerDaemonTests: DesktopTestCase {
    nonisolated(unsafe) static var other: Desktop?
    var b: Desktop { Self.other! }
    var remoteB: String { b.home + "/runtime/pasteboard/remote.sock" }

    override func setUpWithError() throws {
        try super.setUpWithError()
        if Self.other == nil {
            Self.other = try Desktop()
            try Self.other!.startDaemon(logging: true)
        }
        if b.daemon?.isRunning != true { try b.startDaemon(logging: true) }
        if !(try pb("peer", "list").text.contains(remoteB)) { try pb("peer", "add", remoteB) }
        try waitUntil(10, "A is peered with B") { try pb("peer", "list").text.hasPrefix("\(remoteB)\tconnected\t") }
    }

    override class func tearDown() {
        other?.stop()
        other = nil
        super.tearDown()
    }

    /// A runner for `desktop`'s programs (its display, its daemon).
    func on(_ desktop: Desktop) -> Runner { desktop.runner }

    func xclipOut(on desktop: Desktop, _ target: String = "UTF8_STRING") throws -> RunResult {
        try on(desktop).run("xclip", ["-o", "-selection", "clipboard", "-t", target])
    }

    func countOn(_ desktop: Desktop) throws -> UInt64 {
        let text = try on(desktop).run(desktop.pb, ["count"]).text.trimmingCharacters(in: .whitespacesAndNewlines)
        return try XCTUnwrap(UInt64(text), "pb count said \(text)")
    }

    /// Starts xclip owning CLIPBOARD on `desktop` with `input`, and waits until its daemon counted it.
    func xclipOwner(on desktop: Desktop, _ input: [UInt8], target: String = "UTF8_STRING") throws -> Process {
        let before = try countOn(desktop)
        let process = try on(desktop).start("xclip", ["-quiet", "-i", "-selection", "clipboard", "-t", target], stdin: input)
        try waitUntil(10, "xclip owns CLIPBOARD") { try countOn(desktop) != before }
        return process
    }

    /// A third daemon with its own Xvfb and directories, started.
    func third() throws -> Desktop {
        let c = try Desktop()
        try c.startDaemon(logging: true)
        return c
    }

    func remoteSocket(of desktop: Desktop) -> String { desktop.home + "/runtime/pasteboard/remote.sock" }

    // MARK: -

    func testXclipCopiesOnEachSidePasteOnTheOtherWithOneCountEachAndNoEcho() throws {
        let (startA, startB) = (try countOn(desktop), try countOn(b))
        let owner = try xclipOwner(on: desktop, Array("copied on A".utf8))
        defer { stop(owner) }
        try waitUntil(5, "B serves A's copy") { try xclipOut(on: b).text == "copied on A" }
        let targets = try xclipOut(on: b, "TARGETS").text.split(separator: "\n").map(String.init)
        XCTAssertTrue(targets.contains("STRING") && targets.contains("com.apple.flat-rtfd"), "B derives its own types from A's token: \(targets)")
        XCTAssertTrue(try xclipOut(on: b, "text/html").text.contains("copied on A"), "HTML made on B from A's text, asked by name")
        XCTAssertEqual(try on(b).run(b.pb, ["paste"]).text, "copied on A", "pb paste on B, through B's daemon")

        let back = try xclipOwner(on: b, Array("copied on B".utf8))
        defer { stop(back) }
        try waitUntil(5, "A serves B's copy") { try xclipOut(on: desktop).text == "copied on B" }
        // A sentinel copy: had anything echoed, the counts would have run ahead before it arrived.
        try pb("copy", "sentinel")
        try waitUntil(5, "B serves the sentinel") { try xclipOut(on: b).text == "sentinel" }
        XCTAssertEqual(try countOn(desktop), startA + 3, "A: its copy, B's, the sentinel")
        XCTAssertEqual(try countOn(b), startB + 3)
        let log = desktop.daemonLog + b.daemonLog
        XCTAssertFalse(log.contains("copied on"), "never logs content")
    }

    func testFiveMegabytesCrossBothWaysIntactAndAPictureIsConvertedOnTheReadingSide() throws {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<(5 << 20)).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let owner = try xclipOwner(on: desktop, bytes, target: "application/octet-stream")
        try waitUntil(5, "B lists A's type") { try xclipOut(on: b, "TARGETS").text.contains("application/octet-stream") }
        XCTAssertEqual(try xclipOut(on: b, "application/octet-stream").stdout, bytes, "5 MB from A's live owner to B")
        stop(owner)
        let back = try xclipOwner(on: b, bytes.reversed(), target: "application/octet-stream")
        defer { stop(back) }
        try waitUntil(5, "A lists B's type") { try xclipOut(on: desktop, "TARGETS").text.contains("application/octet-stream") }
        XCTAssertEqual(try xclipOut(on: desktop, "application/octet-stream").stdout, bytes.reversed())

        let jpeg = desktop.home + "/peer.jpeg"
        let made = try run("/usr/bin/python3", [peer("images.py"), "make", "jpeg", jpeg])
        XCTAssertEqual(made.status, 0, made.stderr)
        let picture = try xclipOwner(on: b, Array(try Data(contentsOf: URL(fileURLWithPath: jpeg))), target: "image/jpeg")
        defer { stop(picture) }
        var png: [UInt8] = []
        try waitUntil(5, "A serves B's picture as PNG") {
            png = try xclipOut(on: desktop, "image/png").stdout
            return png.starts(with: [0x89, 0x50, 0x4E, 0x47])
        }
    }

    func testANamedPasteboardCrossesAndPrimaryStaysOnItsSide() throws {
        try pb("copy", "-P", "notes", "a named copy")
        try waitUntil(5, "B serves the named pasteboard") { try on(b).run(b.pb, ["paste", "-P", "notes"]).text == "a named copy" }
        let primary = try desktop.runner.start("xclip", ["-quiet", "-i", "-selection", "primary"], stdin: Array("selected on A".utf8))
        defer { stop(primary) }
        try waitUntil(5, "xclip owns PRIMARY on A") { try run("xclip", ["-o", "-selection", "primary"]).text == "selected on A" }
        try pb("copy", "sentinel after PRIMARY")
        try waitUntil(5, "B serves the sentinel") { try xclipOut(on: b).text == "sentinel after PRIMARY" }
        XCTAssertNotEqual(try on(b).run("xclip", ["-o", "-selection", "primary"]).text, "selected on A",
                          "PRIMARY is not shared unless both run with --share-primary")
    }

    func testSensitiveAndLocalOnlyContentNeverCrosses() throws {
        try pb("copy", "before the secret")
        try waitUntil(5, "B serves the copy") { try xclipOut(on: b).text == "before the secret" }
        let countB = try countOn(b)
        try pb("copy", "--sensitive", "hunter2")
        try waitUntil(5, "B stops serving the older copy") { try xclipOut(on: b).status != 0 }
        XCTAssertEqual(try countOn(b), countB + 1, "B learns that the pasteboard changed, not what it holds")
        try pb("copy", "--local-only", "stays home")
        XCTAssertEqual(try pb("paste").text, "stays home", "still pasted at home")
        XCTAssertNotEqual(try on(b).run(b.pb, ["paste"]).status, 0)
        for read in [try xclipOut(on: b), try on(b).run(b.pb, ["paste"])] {
            for secret in ["hunter2", "stays home"] { XCTAssertFalse(read.text.contains(secret)) }
        }
        XCTAssertEqual(try countOn(b), countB + 1, "one change seen from B: the content left, none of it crossed")
        XCTAssertFalse((desktop.daemonLog + b.daemonLog).contains("hunter2"))
    }

    func testAPeerDaemonKilledMidTransferCostsOnlyThatPasteAndIsRetried() throws {
        let c = try third()
        defer { c.stop() }
        try pb("peer", "add", remoteSocket(of: c))
        try waitUntil(10, "A is peered with C") { try pb("peer", "list").text.contains("\(remoteSocket(of: c))\tconnected") }
        let file = c.home + "/endless.bin"
        try Data(repeating: 0x65, count: 1 << 20).write(to: URL(fileURLWithPath: file))
        let owner = try on(c).start("/usr/bin/python3", [peer("owner.py"), "CLIPBOARD", "--mode", "endless", "application/x-endless=" + file])
        defer { stop(owner) }
        try waitUntil(10, "A lists C's copy") { try xclipOut(on: desktop, "TARGETS").text.contains("application/x-endless") }
        let reader = try BackgroundRun("/usr/bin/xclip", ["-o", "-selection", "clipboard", "-t", "application/x-endless"],
                                       environment: desktop.environment)
        try waitUntil(10, "A is fetching from C") { try status()["fetches"] == "1" }
        let killed = Date()
        c.stopDaemon(signal: SIGKILL)
        let finished = reader.finish(timeout: 20)
        XCTAssertNotEqual(finished.status, 0, "refused, never hung")
        XCTAssertLessThan(Date().timeIntervalSince(killed), 2.5, "at once, not at the fetch deadline")
        XCTAssertTrue(desktop.daemon?.isRunning == true)
        try waitUntil(10, "C is listed disconnected") { try pb("peer", "list").text.contains("\(remoteSocket(of: c))\tdisconnected\t") }
        try pb("copy", "after C died")
        try waitUntil(5, "B still serves A's copies") { try xclipOut(on: b).text == "after C died" }
        XCTAssertEqual(try status()["fetches"], "0")
        try pb("peer", "remove", remoteSocket(of: c))
        XCTAssertFalse(try pb("peer", "list").text.contains(remoteSocket(of: c)))
    }

    func testALoopOfThreeDaemonsCountsEachCopyOnceEverywhere() throws {
        let c = try third()
        defer { c.stop() }
        // A → B (the suite's), B → C, C → A: a loop.
        let addBC = try on(b).run(b.pb, ["peer", "add", remoteSocket(of: c)])
        XCTAssertEqual(addBC.status, 0, addBC.stderr)
        let addCA = try on(c).run(c.pb, ["peer", "add", remoteSocket(of: desktop)])
        XCTAssertEqual(addCA.status, 0, addCA.stderr)
        try waitUntil(10, "the loop is closed") {
            try on(b).run(b.pb, ["peer", "list"]).text.contains(remoteSocket(of: c) + "\tconnected")
                && on(c).run(c.pb, ["peer", "list"]).text.contains(remoteSocket(of: desktop) + "\tconnected")
        }
        try pb("copy", "settle")
        try waitUntil(5, "C serves A's copy") { try xclipOut(on: c).text == "settle" }
        let before = [try countOn(desktop), try countOn(b), try countOn(c)]

        let owner = try xclipOwner(on: desktop, Array("round the loop".utf8))
        defer { stop(owner) }
        try waitUntil(5, "B and C serve A's copy") { try xclipOut(on: b).text == "round the loop" && xclipOut(on: c).text == "round the loop" }
        let fromC = try xclipOwner(on: c, Array("from C".utf8))
        defer { stop(fromC) }
        try waitUntil(5, "A and B serve C's copy") { try xclipOut(on: desktop).text == "from C" && xclipOut(on: b).text == "from C" }
        try on(b).run(b.pb, ["copy", "sentinel from B"])
        try waitUntil(5, "A and C serve B's sentinel") {
            try xclipOut(on: desktop).text == "sentinel from B" && xclipOut(on: c).text == "sentinel from B"
        }
        XCTAssertEqual([try countOn(desktop), try countOn(b), try countOn(c)], before.map { $0 + 3 }, "three copies, three counts each")
        XCTAssertEqual(try on(b).run(b.pb, ["peer", "remove", remoteSocket(of: c)]).status, 0)
    }

    func testPeersAreListedKeptAcrossARestartAndRemoved() throws {
        let list = try pb("peer", "list").text
        XCTAssertEqual(list, "\(remoteB)\tconnected\t\n")
        XCTAssertTrue(try on(b).run(b.pb, ["peer", "list"]).text.hasPrefix("(accepted) pasteboardd"), "B lists who connected")
        let again = try desktop.runner.run(desktop.pb, ["peer", "add", remoteB])
        XCTAssertEqual(again.status, 1)
        XCTAssertTrue(again.stderr.contains("a peer already"), again.stderr)
        let own = try desktop.runner.run(desktop.pb, ["peer", "add", remoteSocket(of: desktop)])
        XCTAssertEqual(own.status, 0, own.stderr)
        try waitUntil(10, "its own socket is refused") { try pb("peer", "list").text.contains("this pasteboardd's own") }
        try pb("peer", "remove", remoteSocket(of: desktop))
        let missing = try desktop.runner.run(desktop.pb, ["peer", "remove", "/nowhere.sock"])
        XCTAssertEqual(missing.status, 1)
        XCTAssertTrue(missing.stderr.contains("not a peer"), missing.stderr)
        let remotely = try on(b).run(b.pb, ["peer", "list"], environment: ["PASTEBOARD_SOCKET": remoteB])
        XCTAssertNotEqual(remotely.status, 0, "peers are managed on the control socket only")

        XCTAssertEqual(desktop.stopDaemon(), 0)
        XCTAssertEqual(try String(contentsOfFile: desktop.home + "/state/pasteboard/peers", encoding: .utf8), remoteB + "\n")
        try desktop.startDaemon()
        try waitUntil(10, "the peer is back after the restart") { try pb("peer", "list").text.hasPrefix("\(remoteB)\tconnected") }
        try pb("copy", "after the restart")
        try waitUntil(5, "B serves it") { try xclipOut(on: b).text == "after the restart" }
    }
}

extension Runner {
    /// Runs `executable` with `extra` added to this runner's environment.
    func run(_ executable: String, _ arguments: [String], environment extra: [String: String]) throws -> RunResult {
        var environment = self.environment
        for (key, value) in extra { environment[key] = value }
        return try Runner(environment: environment).run(executable, arguments)
    }
}
