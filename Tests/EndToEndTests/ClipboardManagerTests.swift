// SPDX-License-Identifier: Apache-2.0
import Foundation
import TestSupport
import XCTest

/// A test owner (Peers/owner.py) holding a selection until it is stopped.
struct TestOwner {
    let process: Process
    let output: LineReader
    /// Where its standard error goes, for failure messages.
    let errors: String
    var errorText: String { (try? String(contentsOfFile: errors, encoding: .utf8)) ?? "" }

    /// The file whose creation makes an owner started with `then:` replace itself.
    let trigger: String

    /// Asks an owner started with `then:` to destroy its window and own the selection again at once.
    func replace() {
        _ = FileManager.default.createFile(atPath: trigger, contents: nil)
    }

    /// Stops it by its PID (its window, and so its ownership, dies with it).
    func exit() {
        if process.isRunning { kill(process.processIdentifier, SIGTERM) }
        process.waitUntilExit()
    }
}

extension DesktopTestCase {
    func peer(_ name: String) -> String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Peers/\(name)").path
    }

    /// Starts owner.py on `selection` with `targets` (name and bytes) and waits until it owns it.
    /// Starts Peers/owner.py owning `selection` with `targets`; `refuse` are listed in TARGETS but refused,
    /// and with `save` the owner asks the clipboard manager to save them (SAVE_TARGETS) and exits once answered.
    /// `markedAsDaemon`: the owner's window is marked as that pasteboardd process's (on this host).
    func startTestOwner(_ selection: String = "CLIPBOARD", mode: String = "serve", windowClass: String? = nil,
                        then: [(String, [UInt8])] = [], refuse: [String] = [], save: Bool = false,
                        markedAsDaemon: Int32? = nil, targets: [(String, [UInt8])]) throws -> TestOwner {
        func specs(_ list: [(String, [UInt8])]) throws -> [String] {
            try list.map { name, bytes in
                let path = desktop.home + "/owner-\(UUID().uuidString.prefix(8))"
                try Data(bytes).write(to: URL(fileURLWithPath: path))
                return "\(name)=\(path)"
            }
        }
        let targetSpecs = try specs(targets)
        let trigger = desktop.home + "/trigger-\(UUID().uuidString.prefix(8))"
        let thenOptions = try specs(then).flatMap { ["--then", $0] } + (then.isEmpty ? [] : ["--trigger", trigger])
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = [peer("owner.py"), selection, "--mode", mode] + (windowClass.map { ["--class", $0] } ?? [])
            + thenOptions + refuse.flatMap { ["--refuse", $0] } + (save ? ["--save"] : [])
            + (markedAsDaemon.map { ["--mark-daemon", "\($0)"] } ?? []) + targetSpecs
        process.environment = desktop.environment
        let output = Pipe()
        process.standardInput = FileHandle(forReadingAtPath: "/dev/null")
        process.standardOutput = output
        let errors = desktop.home + "/owner-\(UUID().uuidString.prefix(6)).err"
        _ = FileManager.default.createFile(atPath: errors, contents: nil)
        process.standardError = FileHandle(forWritingAtPath: errors)
        try process.run()
        let reader = LineReader(output.fileHandleForReading)
        let line = try reader.line()
        XCTAssertEqual(line, "ready", "owner.py: \((try? String(contentsOfFile: errors, encoding: .utf8)) ?? "")")
        return TestOwner(process: process, output: reader, errors: errors, trigger: trigger)
    }

    func status() throws -> [String: String] {
        var pairs: [String: String] = [:]
        for line in try pb("status").text.split(separator: "\n") {
            let parts = line.split(separator: ":", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            if parts.count == 2 { pairs[parts[0]] = parts[1] }
        }
        return pairs
    }

    /// Waits until pasteboardd has read the current CLIPBOARD owner (its snapshot is in history).
    func waitForSnapshot(containing preview: String) throws {
        try waitUntil(10, "the snapshot of '\(preview)' is in history") { try pb("history").text.contains(preview) }
    }
}

/// Read early, own late: content outlives the application that copied it, with every target, without
/// the daemon ever taking the clipboard from a live owner.
final class ClipboardManagerTests: DesktopTestCase {
    let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52, 1, 2, 3, 0, 255]

    func testContentSurvivesItsOwnerWithEveryTargetAndTheCountDoesNotMove() throws {
        let owner = try startTestOwner(targets: [("UTF8_STRING", Array("survivor ✓".utf8)), ("text/html", Array("<b>survivor</b>".utf8)),
                                                 ("image/png", png), ("application/x-private", [0, 1, 2, 3])])
        try waitForSnapshot(containing: "survivor")
        XCTAssertEqual(try status()["owned.CLIPBOARD"], "no", "no eager re-own while the owner lives")
        let countWhileOwned = try count()
        owner.exit()
        try waitUntil(10, "pasteboardd took over") { try status()["owned.CLIPBOARD"] == "yes" }
        XCTAssertEqual(try count(), countWhileOwned, "re-serving the same content is not a change")
        XCTAssertEqual(try run("xclip", ["-o", "-selection", "clipboard"]).text, "survivor ✓")
        XCTAssertEqual(try run("xclip", ["-o", "-selection", "clipboard", "-t", "text/html"]).text, "<b>survivor</b>")
        XCTAssertEqual(try run("xclip", ["-o", "-selection", "clipboard", "-t", "image/png"]).stdout, png)
        XCTAssertEqual(try run("xclip", ["-o", "-selection", "clipboard", "-t", "application/x-private"]).stdout, [0, 1, 2, 3])
        XCTAssertEqual(try run("xsel", ["-b", "-o"]).text, "survivor ✓")
    }

    func testXclipAndXselOwnersThatExitLeaveTheirText() throws {
        for (tool, arguments) in [("xclip", ["-quiet", "-i", "-selection", "clipboard"]), ("xsel", ["-b", "-i", "-n"])] {
            let owner = try startOwner(tool, arguments, input: Array("left by \(tool)".utf8))
            try waitForSnapshot(containing: "left by \(tool)")
            stop(owner)
            try waitUntil(10, "pasteboardd took over from \(tool)") { try run(desktop.pb, ["paste"]).text == "left by \(tool)" }
        }
    }

    /// A 1,000-byte target name (LibreOffice's object descriptor names the document's path), a target over
    /// its cap and one the owner refuses, beside good text, on a real X server: the copy is kept with every
    /// target that can be, served after the owner exits, and counted once; one log line names what was left
    /// out and why.
    func testATargetThatCannotBeKeptCostsOnlyItself() throws {
        let (long, targets) = try restartWithSmallCapsAndTargetsThatCannotAllBeKept()
        let owner = try startTestOwner(refuse: ["application/x-refused"], targets: targets)
        try waitForSnapshot(containing: "kept text")
        let countWhileOwned = try count()
        owner.exit()
        try waitUntil(10, "pasteboardd took over") { try status()["owned.CLIPBOARD"] == "yes" }
        XCTAssertEqual(try count(), countWhileOwned, "the takeover is not a change")
        try assertKeptWhatCouldBeKept(long: long)
    }

    /// The same owner asking the manager to save its targets (SAVE_TARGETS, as GTK does on exit).
    func testSaveTargetsKeepsWhatCanBeKept() throws {
        let (long, targets) = try restartWithSmallCapsAndTargetsThatCannotAllBeKept()
        let countBefore = try count()
        let owner = try startTestOwner(refuse: ["application/x-refused"], save: true, targets: targets)
        XCTAssertEqual(try owner.output.line(), "saved", "owner.py: \(owner.errorText)\n\(desktop.daemonLog)")
        owner.exit()
        XCTAssertEqual(try status()["owned.CLIPBOARD"], "yes")
        XCTAssertEqual(try count(), countBefore + 1, "the owner's copy is one change; saving it is none")
        try assertKeptWhatCouldBeKept(long: long)
    }

    private func restartWithSmallCapsAndTargetsThatCannotAllBeKept() throws -> (String, [(String, [UInt8])]) {
        desktop.stopDaemon()
        try FileManager.default.createDirectory(atPath: desktop.home + "/config/pasteboard", withIntermediateDirectories: true)
        let config = desktop.home + "/config/pasteboard/config.json"
        try "{\"maxTextBytes\": 65536}".write(toFile: config, atomically: true, encoding: .utf8)
        try desktop.startDaemon(logging: true)
        try FileManager.default.removeItem(atPath: config)
        addTeardownBlock { [desktop] in
            desktop.stopDaemon()
            try? desktop.startDaemon()
        }
        let long = #"application/x-openoffice-objectdescriptor-xml;windows_formatname="Star Object Descriptor (XML)";"#
            + #"displayname="file:///"# + String(repeating: "a-directory/", count: 70) + #"document.fodt""#
        XCTAssertGreaterThan(long.utf8.count, 900)
        return (long, [("UTF8_STRING", Array("kept text ✓".utf8)), (long, Array("<descriptor/>".utf8)),
                       ("application/x-big", [UInt8](repeating: 0x62, count: 200_000)), ("text/html", Array("<b>kept</b>".utf8))])
    }

    private func assertKeptWhatCouldBeKept(long: String, file: StaticString = #filePath, line: UInt = #line) throws {
        XCTAssertEqual(try run("xclip", ["-o", "-selection", "clipboard"]).text, "kept text ✓", file: file, line: line)
        XCTAssertEqual(try run("xclip", ["-o", "-selection", "clipboard", "-t", long]).text, "<descriptor/>", file: file, line: line)
        XCTAssertEqual(try pb("paste", "-t", "html").text, "<b>kept</b>", file: file, line: line)
        let types = try pb("types").text.split(separator: "\n").map(String.init)
        XCTAssertTrue(types.contains(long), "\(types)", file: file, line: line)
        XCTAssertFalse(types.contains("application/x-big") || types.contains("application/x-refused"), "\(types)", file: file, line: line)
        let log = desktop.daemonLog
        let lines = log.split(separator: "\n").filter { $0.contains("kept CLIPBOARD without") }
        XCTAssertEqual(lines.count, 1, "one line for the change: \(log)", file: file, line: line)
        let said = String(lines.first ?? "")
        XCTAssertTrue(said.contains("application/x-big: the data (200000 bytes) is larger than the cap of 65536 bytes"), said, file: file, line: line)
        XCTAssertTrue(said.contains("application/x-refused: the owner does not offer that type"), said, file: file, line: line)
        XCTAssertFalse(log.contains("kept text") || log.contains("bbbb"), "never content: \(log)", file: file, line: line)
        XCTAssertFalse(log.contains("no target could be read"), log, file: file, line: line)
    }

    func testGTKStoreHandsOverTextAndHTML() throws {
        let result = try run("/usr/bin/python3", [peer("handover.py"), "gtk", "GTK ✓", "<i>GTK</i>"], timeout: 60)
        XCTAssertEqual(result.text, "stored\n", result.stderr)
        XCTAssertEqual(try pb("paste").text, "GTK ✓")
        XCTAssertEqual(try pb("paste", "-t", "text/html").text, "<i>GTK</i>")
        XCTAssertTrue(try pb("types").text.contains("text/html"))
    }

    func testQtHandsOverOnExit() throws {
        let result = try run("/usr/bin/python3", [peer("handover.py"), "qt", "Qt ✓", "<u>Qt</u>"], timeout: 60)
        XCTAssertEqual(result.text, "exiting\n", result.stderr)
        XCTAssertEqual(try pb("paste").text, "Qt ✓")
        XCTAssertTrue(try pb("paste", "-t", "text/html").text.contains("<u>Qt</u>"))
    }

    func testANewOwnerWithinTheGuardIsNotClobbered() throws {
        let owner = try startTestOwner(then: [("UTF8_STRING", Array("the new owner".utf8))],
                                       targets: [("UTF8_STRING", Array("the old owner".utf8))])
        defer { owner.exit() }
        try waitForSnapshot(containing: "the old owner")
        XCTAssertTrue(owner.process.isRunning, "owner.py: \(owner.errorText)")
        owner.replace()
        XCTAssertEqual(try owner.output.line(), "replaced", "owner.py: \(owner.errorText)")
        // The daemon reads the new owner too; by then a (wrong) takeover would have happened.
        try waitForSnapshot(containing: "the new owner")
        XCTAssertEqual(try pb("paste").text, "the new owner")
        XCTAssertEqual(try status()["owned.CLIPBOARD"], "no")
    }

    func testNoTakeoverAfterAClear() throws {
        let owner = try startTestOwner(targets: [("UTF8_STRING", Array("to be cleared".utf8))])
        try waitForSnapshot(containing: "to be cleared")
        let before = try count()
        try pb("clear")
        owner.exit()
        XCTAssertEqual(try count(), before + 1)
        XCTAssertEqual(try run(desktop.pb, ["paste"]).status, 2, "a cleared clipboard stays empty")
        XCTAssertEqual(try status()["owned.CLIPBOARD"], "no")
    }

    func testSecretsAreServedButNeverStoredOrRestored() throws {
        let secret = "hunter2-\(UUID().uuidString.prefix(8))"
        let owner = try startTestOwner(targets: [("UTF8_STRING", Array(secret.utf8)), ("x-kde-passwordManagerHint", Array("secret".utf8))])
        XCTAssertEqual(try pb("paste").text, secret, "served while its owner lives")
        let before = try count()
        owner.exit()
        try waitUntil(10, "the clipboard is empty after the password manager left") { try run(desktop.pb, ["paste"]).status == 2 }
        XCTAssertEqual(try count(), before + 1, "it emptied: one change")
        // pb copy --sensitive: served, never stored.
        let other = "s3cret-\(UUID().uuidString.prefix(8))"
        try pb("copy", "--sensitive", input: Array(other.utf8))
        XCTAssertEqual(try pb("paste").text, other)
        XCTAssertTrue(try pb("types").text.contains("x-kde-passwordManagerHint"), "other managers are told too")
        XCTAssertFalse(try pb("history").text.contains(secret))
        XCTAssertFalse(try pb("history").text.contains(other))
        for secretText in [secret, other] {
            let grep = try run("grep", ["-r", "-l", secretText, desktop.home + "/state"])
            XCTAssertEqual(grep.status, 1, "no file under the state directory holds a secret: \(grep.text)")
        }
    }

    func testAStalledOwnerDelaysNoOtherPaste() throws {
        let owner = try startTestOwner(mode: "silent", targets: [("UTF8_STRING", Array("never".utf8))])
        defer { owner.exit() }
        // The snapshot waits on the silent owner; the daemon meanwhile serves everything else.
        try pb("copy", "-p", input: Array("primary still works".utf8))
        XCTAssertEqual(try run("xclip", ["-o", "-selection", "primary"]).text, "primary still works")
        XCTAssertEqual(try status()["snapshots"], "1", "the snapshot of the silent owner is still waiting meanwhile")
    }

    func testHistoryListShowCopyDeleteClear() throws {
        try pb("copy", input: Array("history one".utf8))
        try pb("copy", input: Array("history two".utf8))
        let listing = try pb("history").text.split(separator: "\n")
        XCTAssertTrue(listing[0].hasSuffix("history two") && listing[1].hasSuffix("history one"), "\(listing)")
        XCTAssertEqual(try pb("history", "show", "1").text, "history one")
        try pb("history", "copy", "1")
        XCTAssertEqual(try run("xclip", ["-o", "-selection", "clipboard"]).text, "history one")
        try pb("history", "delete", "0")
        try pb("history", "clear")
        XCTAssertEqual(try pb("history").text, "")
        let archives = try FileManager.default.contentsOfDirectory(atPath: desktop.home + "/state/pasteboard/history")
        XCTAssertEqual(archives.filter { $0.hasSuffix(".archive") }, [], "clearing removes the files too")
        XCTAssertEqual(try run(desktop.pb, ["history", "show", "0"]).status, 2)
    }

    /// A copy with rich text and no plain text — an owner offering only HTML, RTF copied by type — is listed in
    /// history by its text, not as "[text/html]".
    func testARichTextOnlyCopyIsListedByItsText() throws {
        let owner = try startOwner("xclip", ["-quiet", "-i", "-selection", "clipboard", "-t", "text/html"],
                                   input: Array("<p>from <b>another</b>\napplication</p>".utf8))
        defer { stop(owner) }
        try waitForSnapshot(containing: "from another application")
        try pb("copy", "-t", "rtf", input: Array(#"{\rtf1\ansi copied \b by type\b0\par}"#.utf8))
        let listing = try pb("history").text.split(separator: "\n")
        XCTAssertTrue(listing[0].hasSuffix("\ttext/rtf\tpb\tcopied by type"), "who copied, then the preview: \(listing)")
        XCTAssertTrue(listing[1].hasSuffix("\ttext/html\txclip\tfrom another application"), "\(listing)")
    }

    func testARepeatedCopyIsOneHistoryEntry() throws {
        try pb("history", "clear")
        let big = (0..<(3 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ $0 >> 9) }
        let file = desktop.home + "/dedup.bin"
        try Data(big).write(to: URL(fileURLWithPath: file))
        try pb("copy", "-t", "application/x-dedup=\(file)")
        try pb("copy", "-t", "application/x-dedup=\(file)")
        XCTAssertEqual(try pb("history").text.split(separator: "\n").count, 1, "the same copy twice is one entry")
        var changed = big
        changed[big.count - 1] ^= 1
        try Data(changed).write(to: URL(fileURLWithPath: file))
        try pb("copy", "-t", "application/x-dedup=\(file)")
        XCTAssertEqual(try pb("history").text.split(separator: "\n").count, 2, "one byte at the end makes it another")
        try pb("copy", "-t", "application/x-other=\(file)")
        XCTAssertEqual(try pb("history").text.split(separator: "\n").count, 3, "the same bytes under another type too")
        XCTAssertEqual(try pb("history", "show", "1", "-t", "application/x-dedup").stdout, changed)
    }

    func testPauseStopsRecording() throws {
        try pb("pause")
        defer { _ = try? pb("resume") }
        try pb("copy", input: Array("not recorded".utf8))
        XCTAssertFalse(try pb("history").text.contains("not recorded"))
        XCTAssertEqual(try status()["recording"], "paused")
        try pb("resume")
        try pb("copy", input: Array("recorded again".utf8))
        XCTAssertTrue(try pb("history").text.contains("recorded again"))
    }
}

extension RunResult {
    subscript(key: String) -> String? {
        for line in text.split(separator: "\n") where line.hasPrefix(key + ":") {
            return line.dropFirst(key.count + 1).trimmingCharacters(in: .whitespaces)
        }
        return nil
    }
}

/// The freedesktop clipboard-manager protocol with misbehaving or competing peers.
final class ManagerProtocolTests: DesktopTestCase {
    override class var startsDaemon: Bool { false }

    override func tearDown() {
        desktop.stopDaemon()
        super.tearDown()
    }

    func testAnotherManagerIsNeverRobbed() throws {
        // Another manager holds CLIPBOARD_MANAGER before pasteboardd starts.
        let other = try startTestOwner("CLIPBOARD_MANAGER", mode: "silent", targets: [])
        defer { other.exit() }
        let before = try requestor("manager-owner")["owner"] as? Int
        try desktop.startDaemon()
        try pb("copy", input: Array("anything".utf8))
        XCTAssertEqual(try requestor("manager-owner")["owner"] as? Int, before, "CLIPBOARD_MANAGER still belongs to the other manager")
    }

    func testItBecomesTheManagerWhenNobodyIs() throws {
        try desktop.startDaemon()
        try waitUntil(10, "pasteboardd owns CLIPBOARD_MANAGER") { try XCTUnwrap(requestor("manager-owner")["owner"] as? Int, "the requestor reports the owner") != 0 }
    }

    func testAClientThatDiesMidSaveLeavesNothingTaken() throws {
        try desktop.startDaemon()
        try waitUntil(10, "pasteboardd owns CLIPBOARD_MANAGER") { try XCTUnwrap(requestor("manager-owner")["owner"] as? Int, "the requestor reports the owner") != 0 }
        let owner = try startTestOwner(mode: "silent", targets: [("UTF8_STRING", Array("never saved".utf8))])
        defer { owner.exit() }
        // The client asks for a save and vanishes; its owner never answers the manager's reads.
        XCTAssertEqual(try requestor("save-and-die")["asked"] as? Bool, true)
        XCTAssertEqual(try status()["owned.CLIPBOARD"], "no")
        XCTAssertTrue(desktop.daemon?.isRunning == true)
        try pb("copy", input: Array("still serving".utf8))
        XCTAssertEqual(try run("xclip", ["-o", "-selection", "clipboard"]).text, "still serving")
    }

    func testAnOwnerThatDiesMidINCRLeavesTheDaemonServing() throws {
        try desktop.startDaemon()
        // 4 MiB of text arrives by INCR in 64 KiB chunks; the owner is killed while the daemon reads.
        let big = [UInt8](repeating: 0x62, count: 4 << 20)
        let owner = try startTestOwner(targets: [("UTF8_STRING", big)])
        kill(owner.process.processIdentifier, SIGKILL)
        owner.process.waitUntilExit()
        try waitUntil(15, "the snapshot gave up") { try status()["snapshots"] == "0" }
        XCTAssertTrue(desktop.daemon?.isRunning == true)
        try pb("copy", input: Array("after the crash".utf8))
        XCTAssertEqual(try pb("paste").text, "after the crash")
    }

    /// Writes `json` as the configuration of the daemon started next; the returned path is for removal.
    private func configure(_ json: String) throws -> String {
        let directory = desktop.home + "/config/pasteboard"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try json.write(toFile: directory + "/config.json", atomically: true, encoding: .utf8)
        return directory + "/config.json"
    }

    func testAnOwnerWhoseINCRNeverEndsIsAbandonedAndNothingIsKept() throws {
        let config = try configure("{\"maxTextBytes\": 65536, \"maxSnapshotBytes\": 131072, \"ownerTimeoutMs\": 500}")
        defer { try? FileManager.default.removeItem(atPath: config) }
        try desktop.startDaemon()
        // 1 MiB sent again and again: over the 64 KiB cap the daemon drains, and must stop draining.
        let before = try status()["count.CLIPBOARD"]
        let owner = try startTestOwner(mode: "endless", targets: [("UTF8_STRING", [UInt8](repeating: 0x65, count: 1 << 20))])
        defer { owner.exit() }
        // The count moves where the snapshot starts: from then on, "0 snapshots" means it ended.
        try waitUntil(10, "the daemon saw the new owner") { try status()["count.CLIPBOARD"] != before }
        try waitUntil(10, "the snapshot stopped reading") { try status()["snapshots"] == "0" }
        XCTAssertFalse(try pb("history").text.contains("eeee"), "nothing of the endless target is recorded")
        try pb("copy", input: Array("still serving".utf8))
        XCTAssertEqual(try pb("paste").text, "still serving")
    }

    func testAnINCRChunkOfTheWrongFormatIsNotKeptWithAHole() throws {
        let config = try configure("{\"maxTextBytes\": 2097152, \"ownerTimeoutMs\": 500}")
        defer { try? FileManager.default.removeItem(atPath: config) }
        try desktop.startDaemon()
        // 1 MiB in sixteen 64 KiB chunks, the second with format 32: the others must not be kept.
        let before = try status()["count.CLIPBOARD"]
        let owner = try startTestOwner(mode: "hole", targets: [("UTF8_STRING", [UInt8](repeating: 0x68, count: 1 << 20))])
        try waitUntil(10, "the daemon saw the new owner") { try status()["count.CLIPBOARD"] != before }
        try waitUntil(10, "the snapshot ended") { try status()["snapshots"] == "0" }
        owner.exit()
        XCTAssertFalse(try pb("history").text.contains("hhhh"), "a target with a missing chunk is not recorded")
        try waitUntil(5, "the clipboard is empty once the owner left") { try status()["owned.CLIPBOARD"] == "no" }
    }

    func testWatchRunsACommandPerChangeWithTheStateInItsEnvironment() throws {
        try desktop.startDaemon()
        let log = desktop.home + "/watch.log"
        let process = Process()
        process.executableURL = URL(fileURLWithPath: desktop.pb)
        process.arguments = ["watch", "-b", "/bin/sh", "-c", "printf '%s %s %s ' \"$CLIPBOARD_STATE\" \"$PASTEBOARD_NAME\" \"$CLIPBOARD_TYPE\" >> \(log); cat >> \(log); echo >> \(log)"]
        process.environment = desktop.environment
        try process.run()
        defer { stop(process) }
        try waitUntil(10, "pb watch is registered") { try status()["watchers"] == "1" }
        try pb("copy", input: Array("watched text".utf8))
        try pb("clear")
        try waitUntil(10, "the command ran twice") {
            ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").split(separator: "\n").count >= 2
        }
        let lines = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n").map(String.init)
        XCTAssertEqual(lines[0], "data CLIPBOARD text/plain;charset=utf-8 watched text")
        XCTAssertEqual(lines[1], "clear CLIPBOARD  ")
    }
}
