// SPDX-License-Identifier: Apache-2.0
import Foundation
import SystemSupport
import TestSupport
import XCTest

/// Copy from a remote shell: `pb copy` asks the terminal in front of the user to copy (OSC 52). End to
/// end with a real terminal on the suite's Xvfb — xterm, allowed to set selections — whose CLIPBOARD
/// pasteboardd sees change and `pb paste` reads; the exact bytes, passthrough and limits on a pseudo
/// terminal made by util-linux's `script`.
final class TerminalCopyTests: DesktopTestCase {
    let text = "naïve € over OSC 52"

    /// Runs `command` (a shell command line) in an xterm that honours OSC 52 and waits until CLIPBOARD
    /// changed; returns the status the command wrote. The xterm is stopped by its PID.
    func runInXterm(_ command: String) throws -> String {
        let xterm = try requireTool("xterm", package: "xterm")
        let status = desktop.home + "/xterm-status-" + UUID().uuidString.prefix(8)
        let script = desktop.home + "/xterm-\(UUID().uuidString.prefix(8)).sh"
        // The shell stays (reading the terminal) so that xterm keeps owning CLIPBOARD while the test reads it.
        try "#!/bin/sh\n\(command)\necho \"$?\" > '\(status)'\nread hold\n".write(toFile: script, atomically: true, encoding: .utf8)
        XCTAssertEqual(chmod(script, 0o755), 0)
        var environment = desktop.environment
        environment["LC_ALL"] = "C.UTF-8"
        let before = try count()
        let terminal = try Runner(environment: environment).start(xterm, ["-u8", "-xrm", "XTerm*allowWindowOps: true", "-e", script])
        defer { stop(terminal) }
        try waitUntil(20, "xterm set CLIPBOARD") { try count() != before }
        try waitUntil(10, "the command wrote its status") { FileManager.default.fileExists(atPath: status) }
        return try String(contentsOfFile: status, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    func testXtermCopiesWhatPbCopyOSC52SendsAndPasteboarddSeesIt() throws {
        let status = try runInXterm("printf '%s' '\(text)' | '\(desktop.pb)' copy --osc52")
        XCTAssertEqual(status, "0")
        XCTAssertEqual(try pb("paste").text, text)
        try waitUntil(10, "pasteboardd recorded it") {
            try pb("history", "list", "--limit", "1").text.hasSuffix("\t\(text)\n")
        }
    }

    func testWithNoDaemonAndNoDisplayPbCopyGoesThroughTheTerminal() throws {
        // As over SSH: no $DISPLAY, and no pasteboardd at the control socket pb looks for.
        let elsewhere = desktop.home + "/no-daemon-here"
        try FileManager.default.createDirectory(atPath: elsewhere, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let status = try runInXterm("printf 'over ssh\\n' | env -u DISPLAY XDG_RUNTIME_DIR='\(elsewhere)' '\(desktop.pb)' copy -n")
        XCTAssertEqual(status, "0")
        XCTAssertEqual(try pb("paste").text, "over ssh")
    }

    // MARK: - The bytes, on a pseudo terminal

    /// Runs `command` through `/bin/sh` on a pseudo-terminal (`script`), as in an SSH session: returns what
    /// reached the terminal and the command's status.
    func onTerminal(_ command: String, environment extra: [String: String] = [:]) throws -> (output: [UInt8], status: Int32) {
        let script = try requireTool("script", package: "bsdutils")
        var environment = desktop.environment
        environment.removeValue(forKey: "DISPLAY")
        environment.removeValue(forKey: "TMUX")
        environment.removeValue(forKey: "STY")
        environment.merge(extra) { $1 }
        let result = try Runner(environment: environment).run(script, ["-qec", command, "/dev/null"])
        return (result.stdout, result.status)
    }

    func testTheTerminalGetsTheSequenceWrappedForTmuxOrScreenAndOnlyIt() throws {
        let plain = try onTerminal("printf hi | '\(desktop.pb)' copy --osc52 > /dev/null")
        XCTAssertEqual(plain.status, 0)
        XCTAssertEqual(plain.output, Array("\u{1B}]52;c;aGk=\u{07}".utf8), "to the terminal itself, with standard output elsewhere")
        let tmux = try onTerminal("printf hi | '\(desktop.pb)' copy --osc52 -p", environment: ["TMUX": "/tmp/tmux-0/default,1,0"])
        XCTAssertEqual(tmux.output, Array("\u{1B}Ptmux;\u{1B}\u{1B}]52;p;aGk=\u{07}\u{1B}\\".utf8))
        let screen = try onTerminal("printf hi | '\(desktop.pb)' copy --osc52", environment: ["STY": "1.pts-0.host"])
        XCTAssertEqual(screen.output, Array("\u{1B}P\u{1B}]52;c;aGk=\u{07}\u{1B}\\".utf8))
    }

    func testTooMuchForATerminalOrNoTerminalIsAClearErrorAndNothingIsSent() throws {
        let over = try onTerminal("head -c 75001 /dev/zero | tr '\\0' x | '\(desktop.pb)' copy --osc52")
        XCTAssertEqual(over.status, 1)
        XCTAssertEqual(String(decoding: over.output, as: UTF8.self),
                       "pb: 75001 bytes is more than a terminal takes through OSC 52 (75000 bytes, 100000 base64 characters); nothing was copied\r\n")
        let far = try onTerminal("head -c 1000000 /dev/zero | '\(desktop.pb)' copy --osc52")
        XCTAssertEqual(far.status, 1)
        XCTAssertTrue(String(decoding: far.output, as: UTF8.self).hasPrefix("pb: standard input is more than a terminal takes through OSC 52"))
        let most = try onTerminal("head -c 75000 /dev/zero | tr '\\0' x | '\(desktop.pb)' copy --osc52")
        XCTAssertEqual(most.status, 0)
        XCTAssertEqual(most.output.count, 7 + 100_000 + 1, "75000 bytes fit")

        let setsid = try requireTool("setsid", package: "util-linux")
        var environment = desktop.environment
        environment.removeValue(forKey: "DISPLAY")
        let detached = try Runner(environment: environment).run(setsid, ["-w", desktop.pb, "copy", "--osc52"], input: Array("x".utf8))
        XCTAssertEqual(detached.status, 1)
        XCTAssertEqual(detached.stderr, "pb: there is no terminal to copy through: OSC 52 needs pb to run in one\n")
        // Without a terminal, a copy with no daemon says what it always said.
        environment["XDG_RUNTIME_DIR"] = desktop.home + "/no-daemon-here-either"
        let noDaemon = try Runner(environment: environment).run(setsid, ["-w", desktop.pb, "copy"], input: Array("x".utf8))
        XCTAssertEqual(noDaemon.status, 1)
        XCTAssertTrue(noDaemon.stderr.contains("pasteboardd is not running"), noDaemon.stderr)
    }
}
