// SPDX-License-Identifier: Apache-2.0
import Foundation
import TestSupport
import XCTest

/// Copies far larger than one X request travel by INCR in both directions, byte-exact; a requestor
/// that stalls mid-transfer delays no one and is forgotten after the timeout.
final class LargeTransferTests: DesktopTestCase {
    static let size = 64 << 20

    func test64MiBFromPbToXclipAndBack() throws {
        let (path, data) = try randomFile(Self.size, name: "big.bin")
        try pb("copy", "-t", "application/octet-stream=\(path)")
        let viaXclip = try run("xclip", ["-o", "-selection", "clipboard", "-t", "application/octet-stream"], timeout: 120)
        XCTAssertEqual(viaXclip.stdout.count, data.count)
        XCTAssertTrue(viaXclip.stdout == data, "xclip read 64 MiB byte-exact from pasteboardd")
        let viaPb = try pb("paste", "-t", "application/octet-stream")
        XCTAssertTrue(viaPb.stdout == data, "pb paste read 64 MiB byte-exact")
    }

    func test64MiBFromXclipOwnerToPbPaste() throws {
        let (path, data) = try randomFile(Self.size, name: "big-owner.bin")
        let owner = try startOwner("xclip", ["-quiet", "-i", "-selection", "clipboard", "-t", "application/octet-stream", path], input: [])
        defer { stop(owner) }
        let pasted = try run(desktop.pb, ["paste", "-t", "application/octet-stream", "--timeout", "20000"], timeout: 120)
        XCTAssertEqual(pasted.status, 0, pasted.stderr)
        XCTAssertTrue(pasted.stdout == data, "pb paste received 64 MiB from xclip byte-exact")
    }

    /// A large copy the daemon keeps is served from its file once written (status: its bytes are the file's,
    /// none in memory), byte-exact to xclip and pb, whether the daemon took it over from an owner that exited
    /// or restored it after a restart.
    func testALargeKeptCopyIsServedFromItsFileAcrossATakeoverAndARestart() throws {
        let (path, data) = try randomFile(20 << 20, name: "kept.bin")
        let owner = try startOwner("xclip", ["-quiet", "-i", "-selection", "clipboard", "-t", "application/octet-stream", path], input: [])
        try waitUntil(60, "the copy is kept in its file") {
            try pb("history", "list").text.hasPrefix("0\t") && pb("history", "list").text.split(separator: "\n").first?.contains("\t\(data.count) B\t") == true
                && status()["writes"] == "0"
        }
        stop(owner)
        try waitUntil(20, "pasteboardd took over, serving from the file") {
            let status = try status()
            return status["owned.CLIPBOARD"] == "yes" && status["file-bytes.CLIPBOARD"] == String(data.count)
        }
        XCTAssertEqual(try status()["memory-bytes.CLIPBOARD"], "0", "nothing of it held in memory")
        let viaXclip = try run("xclip", ["-o", "-selection", "clipboard", "-t", "application/octet-stream"], timeout: 120)
        XCTAssertTrue(viaXclip.stdout == data, "xclip read it byte-exact from the file (\(viaXclip.stdout.count) bytes)")
        XCTAssertTrue(try pb("paste", "-t", "application/octet-stream").stdout == data, "pb paste too")

        desktop.stopDaemon()
        try desktop.startDaemon()
        XCTAssertEqual(try status()["file-bytes.CLIPBOARD"], String(data.count), "restored without reading it into memory")
        let again = try run("xclip", ["-o", "-selection", "clipboard", "-t", "application/octet-stream"], timeout: 120)
        XCTAssertTrue(again.stdout == data, "the restored copy pastes byte-exact")
    }

    /// The daemon's peak resident set (VmHWM), KiB.
    func daemonPeakKiB() throws -> Int {
        let status = try String(contentsOfFile: "/proc/\(desktop.daemon!.processIdentifier)/status", encoding: .utf8)
        return try XCTUnwrap(status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") }.flatMap { Int($0.split(separator: " ")[1]) },
                             "VmHWM in /proc/PID/status")
    }

    /// xclip's 48 MiB copy (its INCR header gives no size) is read early into its history file as it comes: the
    /// daemon's peak memory never holds it (it held the whole value, grown by doubling, before), and the kept copy
    /// pastes byte-exact once xclip has exited.
    func testALargeXclipCopyIsKeptWithoutEverBeingInTheDaemonsMemory() throws {
        let (path, data) = try randomFile(48 << 20, name: "early.bin")
        let before = try daemonPeakKiB()
        let owner = try startOwner("xclip", ["-quiet", "-i", "-selection", "clipboard", "-t", "application/octet-stream", path], input: [])
        try waitUntil(60, "the copy is kept in the history") {
            try pb("history", "list").text.split(separator: "\n").first?.contains("\t\(data.count) B\t") == true && status()["writes"] == "0"
        }
        let growthMiB = (try daemonPeakKiB() - before) / 1024
        XCTAssertLessThan(growthMiB, 16, "the daemon's peak memory grew by \(growthMiB) MiB keeping 48 MiB")
        stop(owner)
        try waitUntil(20, "pasteboardd took over") { try status()["owned.CLIPBOARD"] == "yes" }
        XCTAssertEqual(try status()["memory-bytes.CLIPBOARD"], "0")
        let pasted = try run("xclip", ["-o", "-selection", "clipboard", "-t", "application/octet-stream"], timeout: 120)
        XCTAssertTrue(pasted.stdout == data, "xclip pasted it byte-exact from the file (\(pasted.stdout.count) bytes)")
    }

    func testStalledINCRRequestorDelaysNoOtherPasteAndIsDroppedAfterTheTimeout() throws {
        let (path, data) = try randomFile(12 << 20, name: "medium.bin")
        try pb("copy", "-t", "application/octet-stream=\(path)")
        // A requestor starts an INCR transfer and never deletes a chunk.
        let script = peer("requestor.py")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = [script, "stall-incr"]
        process.environment = desktop.environment
        let input = Pipe(), output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        defer { try? input.fileHandleForWriting.close(); process.waitUntilExit() }
        let line = try LineReader(output.fileHandleForReading).line() ?? ""
        XCTAssertTrue(line.contains("\"INCR\""), "the stalled requestor got an INCR header: \(line)")
        XCTAssertEqual(try status()["transfers"], "1", "the stalled transfer is in flight")

        // Meanwhile another paste of the same content completes.
        let second = try pb("paste", "-t", "application/octet-stream")
        XCTAssertTrue(second.stdout == data)
        // The stalled transfer's state is freed once the 5 s idle timeout passes.
        try waitUntil(15, "the stalled transfer is dropped") { try status()["transfers"] == "0" }
    }
}
