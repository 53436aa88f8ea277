// SPDX-License-Identifier: Apache-2.0
import Foundation
import TestSupport
import XCTest

/// Large `pb copy` and `pb paste` through the daemon's sockets as a user at a terminal sees them (issue 23):
/// a progress line on the terminal (standard error), never in the data nor in a file; a copy of a large file
/// sent from the file (pb's memory stays small); a file that changes while it is copied, and Ctrl-C in the
/// middle of either, leave the previous content served and no transfer counted. pb runs under
/// Peers/transfer.py, which gives it a pseudo-terminal, a slow reader or a slow link, and reports.
final class TransferProgressTests: DesktopTestCase {
    static let size = 64 << 20

    var remoteSocket: String { desktop.home + "/runtime/pasteboard/remote.sock" }

    /// `randomFile(_:name:)`'s file and its SHA-256 (what the other side's bytes are checked against).
    func randomFileAndSum(_ size: Int, name: String) throws -> (path: String, sha256: String) {
        let (path, _) = try randomFile(size, name: name)
        let sum = try run("/usr/bin/sha256sum", [path]).text.split(separator: " ").first.map(String.init) ?? ""
        return (path, sum)
    }

    func testAPasteThatLastsOverASecondShowsProgressOnTheTerminalAndNotInTheData() throws {
        let (path, sum) = try randomFileAndSum(Self.size, name: "progress-paste.bin")
        try pb("copy", "-t", "application/octet-stream=\(path)")
        let seen = try transfer(["--slow-reader"], ["paste", "-t", "application/octet-stream"])
        XCTAssertEqual(seen["status"] as? Int, 0, "\(seen)")
        XCTAssertEqual(seen["stdout_bytes"] as? Int, Self.size, "standard output carries the data and nothing else")
        XCTAssertEqual(seen["stdout_sha256"] as? String, sum)
        let terminal = try XCTUnwrap(seen["terminal"] as? String)
        XCTAssertTrue(terminal.contains("\r"), "the line is rewritten in place: \(terminal.debugDescription)")
        XCTAssertTrue(terminal.contains(" of 64.0 MiB ("), "bytes so far of the total: \(terminal.debugDescription)")
        XCTAssertTrue(terminal.contains("MiB/s"), "the rate: \(terminal.debugDescription)")
        XCTAssertTrue(terminal.hasSuffix("64.0 MiB of 64.0 MiB (100 %)" + ratePattern(terminal) + "\u{1B}[K\r\n"),
                      "the last line has the whole transfer and ends with a newline: \(terminal.debugDescription)")
        let redraws = terminal.components(separatedBy: "\r").count - 1
        let seconds = try XCTUnwrap(seen["seconds"] as? Double)
        XCTAssertGreaterThan(seconds, 1.5, "the slow reader made the paste last")
        XCTAssertLessThanOrEqual(Double(redraws), seconds * 10 + 2, "at most 10 redraws a second: \(redraws) in \(seconds) s")
    }

    /// The rate at the end of the last line drawn (", N.N MiB/s"), to compare the rest of it exactly.
    func ratePattern(_ terminal: String) -> String {
        // "\r\n" is one Character in Swift, so the characters are not split at its "\r": the last line is taken
        // from the text without its newlines (it was the line before the last, whose rate may differ).
        let lines = terminal.replacingOccurrences(of: "\n", with: "").components(separatedBy: "\r").filter { !$0.isEmpty }
        guard let last = lines.last, let comma = last.lastIndex(of: ",") else { return "" }
        return String(last[comma...]).replacingOccurrences(of: "\u{1B}[K", with: "")
    }

    func testNothingIsDrawnWhenStandardErrorIsAFileOrThePasteIsShort() throws {
        let (path, sum) = try randomFileAndSum(Self.size, name: "progress-file.bin")
        try pb("copy", "-t", "application/octet-stream=\(path)")
        let toFile = try transfer(["--stderr-file", "--slow-reader"], ["paste", "-t", "application/octet-stream"])
        XCTAssertEqual(toFile["status"] as? Int, 0, "\(toFile)")
        XCTAssertEqual(toFile["stdout_sha256"] as? String, sum)
        XCTAssertEqual(toFile["stderr"] as? String, "", "no progress into a file")

        try pb("copy", "a few bytes")
        let short = try transfer([], ["paste"])
        XCTAssertEqual(short["status"] as? Int, 0, "\(short)")
        XCTAssertEqual(short["stdout_bytes"] as? Int, 11)
        XCTAssertEqual(short["terminal"] as? String, "", "a short paste draws nothing on the terminal")
    }

    func testACopyThroughASlowLinkShowsProgressAndArrivesWhole() throws {
        let (path, sum) = try randomFileAndSum(Self.size, name: "progress-copy.bin")
        let seen = try transfer(["--slow-link", remoteSocket], ["copy", "-t", "application/octet-stream=\(path)"])
        XCTAssertEqual(seen["status"] as? Int, 0, "\(seen)")
        let terminal = try XCTUnwrap(seen["terminal"] as? String)
        XCTAssertTrue(terminal.contains(" of 64.0 MiB ("), "the copy's progress: \(terminal.debugDescription)")
        XCTAssertTrue(terminal.hasSuffix("\r\n"), "ended with a newline: \(terminal.debugDescription)")
        let pasted = try transfer(["--stderr-file"], ["paste", "-t", "application/octet-stream"])
        XCTAssertEqual(pasted["stdout_sha256"] as? String, sum, "the daemon got every byte")
    }

    /// pb copy of a 256 MiB file sends it from the file: pb's peak memory stays far below the file's size
    /// (before this, pb read it whole: over 256 MiB).
    func testACopyOfALargeFileIsSentFromTheFileNotReadIntoMemory() throws {
        let size = 256 << 20
        let (path, sum) = try randomFileAndSum(size, name: "huge.bin")
        let copied = try transfer(["--stderr-file"], ["copy", "-t", "application/octet-stream=\(path)"])
        XCTAssertEqual(copied["status"] as? Int, 0, "\(copied)")
        let peak = try XCTUnwrap(copied["vmhwm_kib"] as? Int)
        print("pb copy of a 256 MiB file: peak resident memory \(peak) KiB")
        XCTAssertGreaterThan(peak, 1024, "pb itself was measured (it ran long enough to be sampled)")
        XCTAssertLessThan(peak, 64 << 10, "pb's peak memory (\(peak) KiB) is well below the file's 256 MiB")
        let stdin = try transfer(["--stderr-file", "--stdin", path], ["copy", "-t", "application/x-from-stdin"])
        XCTAssertEqual(stdin["status"] as? Int, 0, "\(stdin)")
        let fromStdin = try XCTUnwrap(stdin["vmhwm_kib"] as? Int)
        XCTAssertLessThan(fromStdin, 64 << 10, "standard input redirected from the file too (\(fromStdin) KiB)")
        let pasted = try transfer(["--stderr-file"], ["paste", "-t", "application/x-from-stdin"])
        XCTAssertEqual(pasted["stdout_sha256"] as? String, sum, "what was sent from the file is the file")
    }

    func testAFileThatChangesWhileItIsCopiedFailsAndThePreviousContentStays() throws {
        let (path, _) = try randomFileAndSum(Self.size, name: "changing.bin")
        try pb("copy", "before the change")
        let seen = try transfer(["--slow-link", remoteSocket, "--append-after", String(8 << 20), path, "--stderr-file"],
                                ["copy", "-t", "application/octet-stream=\(path)"])
        XCTAssertEqual(seen["status"] as? Int, 1, "\(seen)")
        let stderr = try XCTUnwrap(seen["stderr"] as? String)
        XCTAssertTrue(stderr.contains("changed while it was being copied"), stderr)
        XCTAssertTrue(stderr.contains("\(Self.size) bytes when it was opened, \(Self.size + 1) now"), stderr)
        try waitUntil(10, "no transfer is left") { try transfers() == "0" }
        XCTAssertEqual(try pb("paste").text, "before the change", "the cut-short copy was not kept")
        XCTAssertNotEqual(try run(desktop.pb, ["paste", "-t", "application/octet-stream"]).status, 0)
    }

    func testCtrlCDuringACopyEndsTheDaemonsTransferAndKeepsThePreviousContent() throws {
        let (path, _) = try randomFileAndSum(Self.size, name: "interrupted-copy.bin")
        try pb("copy", "before the interrupted copy")
        let seen = try transfer(["--slow-link", remoteSocket, "--interrupt-after", String(8 << 20)],
                                ["copy", "-t", "application/octet-stream=\(path)"])
        XCTAssertEqual(seen["status"] as? Int, -Int(SIGINT), "pb ended by the interrupt: \(seen)")
        XCTAssertEqual(seen["transfers_while"] as? Int, 1, "the copy being received counted as a transfer")
        try waitUntil(10, "the daemon's transfer ended") { try transfers() == "0" }
        XCTAssertEqual(try pb("paste").text, "before the interrupted copy", "nothing half-written is served")
        XCTAssertNotEqual(try run(desktop.pb, ["paste", "-t", "application/octet-stream"]).status, 0)
        try pb("copy", "after")
        XCTAssertEqual(try pb("paste").text, "after", "the daemon takes copies as before")
    }

    func testCtrlCDuringAPasteThroughTheRemoteSocketEndsItsTransfer() throws {
        let (path, sum) = try randomFileAndSum(Self.size, name: "interrupted-paste.bin")
        try pb("copy", "-t", "application/octet-stream=\(path)")
        let report = try transfer(["--socket", remoteSocket, "--slow-reader", "--interrupt-after", String(8 << 20)],
                                  ["paste", "-t", "application/octet-stream"])
        XCTAssertEqual(report["status"] as? Int, -Int(SIGINT), "\(report)")
        XCTAssertEqual(report["transfers_while"] as? Int, 1, "the paste through the remote socket counted while it ran")
        try waitUntil(10, "the daemon's transfer ended") { try transfers() == "0" }
        let again = try transfer(["--stderr-file"], ["paste", "-t", "application/octet-stream"])
        XCTAssertEqual(again["stdout_sha256"] as? String, sum, "the content is still served whole")
    }
}
