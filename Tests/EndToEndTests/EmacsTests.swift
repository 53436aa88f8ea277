// SPDX-License-Identifier: Apache-2.0
import Foundation
import SystemSupport
import TestSupport
import XCTest

/// Emacs reads the clipboard with `gui-get-selection`, driven here from `emacsclient --eval` as a timer or
/// org-protocol drives it: with no fresh key press, so it asks with the time of the last event it had from the
/// X server, older than the copy it wants. pasteboardd serves it whenever it still owns the clipboard
/// (docs/selections.md "Requests"); it used to refuse it as stale and Emacs read nothing. Debian's emacs-gtk
/// (28.2), as a daemon with a private server socket and a frame on the suite's Xvfb.
final class EmacsTests: DesktopTestCase {
    let text = "naïve € 日本 — read by Emacs"

    /// An Emacs daemon (`emacs -Q --fg-daemon`) with its server socket in the desktop's home and one frame on
    /// the desktop's display; stopped by its PID.
    final class EmacsDaemon {
        let process: Process
        let socket: String
        let emacsclient: String
        let runner: Runner
        /// Where its messages go (in daemon mode, `message` writes to standard error).
        let log: String
        var messages: String { (try? String(contentsOfFile: log, encoding: .utf8)) ?? "" }

        init(emacs: String, emacsclient: String, desktop: Desktop) throws {
            let directory = desktop.home + "/emacs-\(UUID().uuidString.prefix(8))"
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
            socket = directory + "/server"
            self.emacsclient = emacsclient
            runner = desktop.runner
            // Emacs built with libsystemd (Debian's) says READY=1 once its server listens (daemon-initialized).
            let notify = try NotifySocket(directory: directory)
            defer { notify.close() }
            var environment = desktop.environment
            environment["NOTIFY_SOCKET"] = notify.path
            process = Process()
            process.executableURL = URL(fileURLWithPath: emacs)
            process.arguments = ["-Q", "--fg-daemon=\(socket)"]
            process.environment = environment
            process.standardInput = FileHandle(forReadingAtPath: "/dev/null")
            process.standardOutput = FileHandle(forWritingAtPath: "/dev/null")
            log = directory + "/emacs.log"
            _ = FileManager.default.createFile(atPath: log, contents: nil)
            process.standardError = FileHandle(forWritingAtPath: log)
            try process.run()
            do { try notify.waitForReady(process, name: "the Emacs daemon", seconds: 60) } catch {
                stop()
                throw FixtureError("\(error); its messages: \(messages)")
            }
            // A frame on the desktop's display (emacsclient passes its DISPLAY): X selections need one.
            let frame = try runner.run(emacsclient, ["-s", socket, "-c", "-n"], timeout: 60)
            guard frame.status == 0 else {
                stop()
                throw FixtureError("emacsclient -c -n failed (\(frame.status)): \(frame.stderr)")
            }
        }

        /// The last text of the frame's buffer (`*scratch*`, with -Q), as Lisp prints it.
        func bufferEnd() throws -> String {
            try eval("(with-current-buffer (window-buffer (frame-selected-window \(xFrame))) (buffer-substring-no-properties (max 1 (- (point-max) 40)) (point-max)))")
        }

        /// Types `q` into the frame through XTEST (xdotool), as the user's last key press before a copy made
        /// elsewhere, and returns once Emacs has handled it: from then on Emacs asks for selections with that
        /// key press's time. (Without a key press, Emacs 28 asks with the time of an event it gets shortly
        /// after its frame is mapped: a test that copied at once would not be asking with an old time.)
        func typeKey(xdotool: String, waitUntil: (String, () throws -> Bool) throws -> Void) throws {
            let window = try eval("(frame-parameter \(xFrame) 'outer-window-id)").trimmingCharacters(in: CharacterSet(charactersIn: "\""))
            for arguments in [["windowfocus", "--sync", window], ["key", "q"]] {
                let result = try runner.run(xdotool, arguments)
                guard result.status == 0 else { throw FixtureError("xdotool \(arguments.joined(separator: " ")): \(result.stderr)") }
            }
            try waitUntil("Emacs inserted the q typed into its frame") { try bufferEnd().hasSuffix("q\"") }
        }

        /// Emacs's X frame (it also has the daemon's terminal frame).
        let xFrame = "(seq-find (lambda (f) (eq (framep f) 'x)) (frame-list))"

        /// What `emacsclient --eval form` prints, without its newline.
        func eval(_ form: String) throws -> String {
            let result = try runner.run(emacsclient, ["-s", socket, "--eval", form], timeout: 60)
            guard result.status == 0 else { throw FixtureError("emacsclient --eval failed (\(result.status)): \(result.stderr)") }
            return result.text.trimmingCharacters(in: .newlines)
        }

        /// The CLIPBOARD as `gui-get-selection` reads it on Emacs's X frame, as UTF8_STRING; nil when Emacs
        /// got nothing. The text goes through a file written as UTF-8, so what emacsclient prints (Lisp syntax,
        /// the locale's coding) does not matter.
        func clipboard(through file: String) throws -> String? {
            try? FileManager.default.removeItem(atPath: file)
            let form = """
                (let ((x-selection-timeout 10000))
                  (with-selected-frame \(xFrame)
                    (let ((text (gui-get-selection (quote CLIPBOARD) (quote UTF8_STRING))))
                      (if (stringp text)
                          (let ((coding-system-for-write 'utf-8-unix))
                            (write-region text nil "\(file)" nil 'silent)
                            "read")
                        "nothing"))))
                """
            let answer = try eval(form)
            guard answer == "\"read\"" else {
                XCTAssertEqual(answer, "\"nothing\"", "what the form printed")
                return nil
            }
            return try String(contentsOfFile: file, encoding: .utf8)
        }

        /// Stops Emacs: `(kill-emacs)` through its server, then SIGKILL to its PID if it is still running
        /// 10 s later. Not SIGTERM: Emacs 28's handler can deadlock in Xlib when it lands during a redisplay
        /// (seen here: the daemon hung in XSetClipRectangles, waiting for the display lock it held).
        func stop() {
            if process.isRunning {
                _ = try? runner.run(emacsclient, ["-s", socket, "--eval", "(kill-emacs)"], timeout: 10)
            }
            let deadline = Date().addingTimeInterval(10)
            while process.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            process.waitUntilExit()
        }
    }

    /// Emacs on the desktop, the user's last key press in it made before whatever the test copies next.
    func startEmacs() throws -> EmacsDaemon {
        let emacs = try requireTool("emacs", package: "emacs-gtk")
        let emacsclient = try requireTool("emacsclient", package: "emacs-gtk")
        let xdotool = try requireTool("xdotool", package: "xdotool")
        let daemon = try EmacsDaemon(emacs: emacs, emacsclient: emacsclient, desktop: desktop)
        do {
            try daemon.typeKey(xdotool: xdotool) { what, condition in try waitUntil(20, what, condition) }
        } catch {
            daemon.stop()
            throw error
        }
        return daemon
    }

    var readFile: String { desktop.home + "/emacs-read.txt" }

    func testEmacsReadsWhatPbCopiedSinceItsLastEvent() throws {
        let emacs = try startEmacs()
        defer { emacs.stop() }
        try pb("copy", text)
        XCTAssertEqual(try emacs.clipboard(through: readFile), text)
    }

    func testEmacsReadsWhatPasteboarddTookOverFromAnXclipThatExited() throws {
        // Emacs's last event comes before xclip's copy; pasteboardd takes the clipboard over as of xclip's time.
        let emacs = try startEmacs()
        defer { emacs.stop() }
        let owner = try startOwner("xclip", ["-quiet", "-i", "-selection", "clipboard"], input: Array(text.utf8))
        try waitForSnapshot(containing: "read by Emacs")
        stop(owner)
        try waitUntil(10, "pasteboardd took over from xclip") { try status()["owned.CLIPBOARD"] == "yes" }
        XCTAssertEqual(try emacs.clipboard(through: readFile), text)
    }
}
