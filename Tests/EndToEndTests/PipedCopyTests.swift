// SPDX-License-Identifier: Apache-2.0
import Foundation
import TestSupport
import XCTest

/// `producer | pb copy` (issue 23): a pipe whose length is known only at its end is sent in pieces as it is read
/// (`beginCopy`, `copyChunk`s, `commitCopy`), so pb never holds it whole; a short one is still one request. Checked
/// against the real pasteboardd, xclip reading back, and pb run by Peers/transfer.py with a real `cat` producer in
/// its pipeline, its memory sampled, Ctrl-C sent to the pipeline's process group as a terminal sends it.
final class PipedCopyTests: DesktopTestCase {
    var remoteSocket: String { desktop.home + "/runtime/pasteboard/remote.sock" }

    func sha256(_ bytes: [UInt8]) throws -> String {
        String(try run("/usr/bin/sha256sum", [], input: bytes).text.prefix(64))
    }

    func sha256(ofFile path: String) throws -> String {
        String(try run("/usr/bin/sha256sum", [path]).text.prefix(64))
    }

    /// Sizes either side of where a pipe stops being read whole (256 KiB), up to 64 MiB: each byte-exact through
    /// xclip, each one change.
    func testPipesOfEverySizeArriveByteExactAndCountOnce() throws {
        for size in [1, 256 << 10, (256 << 10) + 1, (256 << 10) + 3, 5_000_000, 64 << 20] {
            let (path, data) = try randomFile(size, name: "piped-\(size).bin")
            let before = try count()
            let copied = try transfer(["--stderr-file", "--pipe", path], ["copy", "-t", "application/x-piped"])
            XCTAssertEqual(copied["status"] as? Int, 0, "\(size) bytes: \(copied)")
            XCTAssertEqual(try count(), before + 1, "\(size) bytes: one change")
            let back = try run("xclip", ["-o", "-selection", "clipboard", "-t", "application/x-piped"], timeout: 120)
            XCTAssertEqual(back.stdout.count, size)
            XCTAssertTrue(back.stdout == data, "\(size) bytes piped into pb copy read back byte-exact by xclip")
        }
    }

    /// pb's peak memory for a 256 MiB pipe stays far below it (before, pb read the pipe whole: over 256 MiB).
    func testA256MiBPipeIsNotHeldInPb() throws {
        let (path, _) = try randomFile(256 << 20, name: "piped-huge.bin")
        let sum = try sha256(ofFile: path)
        let copied = try transfer(["--stderr-file", "--pipe", path], ["copy", "-t", "application/octet-stream"])
        XCTAssertEqual(copied["status"] as? Int, 0, "\(copied)")
        let peak = try XCTUnwrap(copied["vmhwm_kib"] as? Int)
        print("pb copy of a 256 MiB pipe: peak resident memory \(peak) KiB")
        XCTAssertGreaterThan(peak, 1024, "pb itself was measured")
        XCTAssertLessThan(peak, 64 << 10, "pb's peak memory (\(peak) KiB) is well below the pipe's 256 MiB")
        let pasted = try run("/bin/sh", ["-c", "'\(desktop.pb)' paste -t application/octet-stream | sha256sum"], timeout: 120)
        XCTAssertEqual(String(pasted.text.prefix(64)), sum)
    }

    /// A pipe whose copy lasts over a second shows its progress on the terminal: the bytes so far and the rate
    /// (its total is not known), ended with a newline.
    func testAPipedCopyThroughASlowLinkShowsProgress() throws {
        let (path, data) = try randomFile(32 << 20, name: "piped-progress.bin")
        let seen = try transfer(["--slow-link", remoteSocket, "--pipe", path], ["copy", "-t", "application/x-piped"])
        XCTAssertEqual(seen["status"] as? Int, 0, "\(seen)")
        let terminal = try XCTUnwrap(seen["terminal"] as? String)
        XCTAssertTrue(terminal.contains("MiB/s") && terminal.contains("\r"), "bytes so far and the rate: \(terminal.debugDescription)")
        XCTAssertFalse(terminal.contains(" of "), "no total: \(terminal.debugDescription)")
        XCTAssertTrue(terminal.hasSuffix("\r\n"), "ended with a newline: \(terminal.debugDescription)")
        XCTAssertTrue(try run("xclip", ["-o", "-selection", "clipboard", "-t", "application/x-piped"], timeout: 60).stdout == data)
    }

    /// `-n` drops one trailing newline of a streamed pipe (known only at its end), CRLF included, and only one;
    /// pbcopy of a large RTF pipe copies it as RTF, its plain text made at home when asked.
    func testTrimmingAndRTFDetectionWorkOnStreamedInput() throws {
        let body = [UInt8](repeating: 0x61, count: 600_000)
        let directory = desktop.home
        for (ending, kept) in [([0x0D, 0x0A], [UInt8]()), ([0x0A, 0x0A], [0x0A]), ([0x62], [0x62])] as [([UInt8], [UInt8])] {
            let path = directory + "/trim.txt"
            FileManager.default.createFile(atPath: path, contents: Data(body + ending))
            let copied = try transfer(["--stderr-file", "--pipe", path], ["copy", "-n"])
            XCTAssertEqual(copied["status"] as? Int, 0, "\(copied)")
            let pasted = try pb("paste").stdout
            XCTAssertEqual(pasted.count, body.count + kept.count, "\(ending): one newline dropped, no more")
            XCTAssertTrue(Array(pasted.suffix(kept.count + 1)) == [0x61] + kept)
        }
        let rtf = Array("{\\rtf1\\ansi ".utf8) + [UInt8](repeating: 0x7A, count: 400_000) + Array("}".utf8)
        let path = directory + "/big.rtf"
        FileManager.default.createFile(atPath: path, contents: Data(rtf))
        let pbcopy = directory + "/pbcopy"
        try? FileManager.default.removeItem(atPath: pbcopy)
        try FileManager.default.createSymbolicLink(atPath: pbcopy, withDestinationPath: desktop.pb)
        let result = try run("/usr/bin/python3", [peer("transfer.py"), "--stderr-file", "--pipe", path, "--", pbcopy], timeout: 60)
        XCTAssertEqual(result.status, 0, result.stderr)
        let types = try pb("types").text.split(separator: "\n")
        XCTAssertTrue(types.contains("text/rtf") && types.contains("UTF8_STRING"), "\(types)")
        XCTAssertTrue(try run("xclip", ["-o", "-selection", "clipboard", "-t", "text/rtf"], timeout: 60).stdout == rtf, "the RTF as piped")
        let plain = try run("xclip", ["-o", "-selection", "clipboard", "-t", "UTF8_STRING"], timeout: 60).stdout
        XCTAssertTrue(plain == [UInt8](repeating: 0x7A, count: 400_000), "its plain text, made at home (\(plain.count) bytes)")
    }

    /// Ctrl-C at the terminal reaches the producer and pb together: the copy is cut short, the daemon's transfer
    /// (counted while it ran) ends, and the previous content and count stay.
    func testCtrlCOnThePipelineMidCopyLeavesThePreviousContentAndCount() throws {
        let (path, _) = try randomFile(64 << 20, name: "piped-interrupted.bin")
        try pb("copy", "before the pipe")
        let before = try count()
        let seen = try transfer(["--stderr-file", "--slow-link", remoteSocket, "--pipe", path, "--interrupt-after", String(8 << 20),
                                 "--interrupt-group"], ["copy", "-t", "application/x-piped"])
        XCTAssertEqual(seen["status"] as? Int, -Int(SIGINT), "pb ended by the interrupt: \(seen)")
        XCTAssertEqual(seen["transfers_while"] as? Int, 1, "the copy being received counted as a transfer")
        try waitUntil(10, "the daemon's transfer ended") { try transfers() == "0" }
        XCTAssertEqual(try pb("paste").text, "before the pipe", "nothing half-written is served")
        XCTAssertEqual(try count(), before, "nothing counted")
        XCTAssertNotEqual(try run(desktop.pb, ["paste", "-t", "application/x-piped"]).status, 0)
    }

    /// pb killed outright mid-copy (the producer still writing): the same.
    func testPbKilledMidCopyLeavesThePreviousContentAndCount() throws {
        let (path, _) = try randomFile(64 << 20, name: "piped-killed.bin")
        try pb("copy", "before pb was killed")
        let before = try count()
        let seen = try transfer(["--stderr-file", "--slow-link", remoteSocket, "--pipe", path, "--interrupt-after", String(8 << 20),
                                 "--interrupt-signal", "KILL"], ["copy", "-t", "application/x-piped"])
        XCTAssertEqual(seen["status"] as? Int, -Int(SIGKILL), "\(seen)")
        try waitUntil(10, "the daemon's transfer ended") { try transfers() == "0" }
        XCTAssertEqual(try pb("paste").text, "before pb was killed")
        XCTAssertEqual(try count(), before)
        try pb("copy", "after")
        XCTAssertEqual(try pb("paste").text, "after", "the daemon takes copies as before")
    }

    /// A pipe over the daemon's cap (`remoteMaxRequestBytes`, through the remote socket) is refused as soon as it
    /// goes over, with the reason, and nothing of it is kept.
    func testAPipeOverTheCapIsRefusedWithTheReasonAndNothingIsKept() throws {
        desktop.stopDaemon()
        try FileManager.default.createDirectory(atPath: desktop.home + "/config/pasteboard", withIntermediateDirectories: true)
        let config = desktop.home + "/config/pasteboard/config.json"
        try "{\"remoteMaxRequestBytes\": 4194304}".write(toFile: config, atomically: true, encoding: .utf8)
        try desktop.startDaemon()
        try FileManager.default.removeItem(atPath: config)
        addTeardownBlock { [desktop] in
            desktop.stopDaemon()
            try? desktop.startDaemon()
        }
        try pb("copy", "before the large pipe")
        let before = try count()
        let (path, _) = try randomFile(16 << 20, name: "piped-over.bin")
        let seen = try transfer(["--stderr-file", "--socket", remoteSocket, "--pipe", path], ["copy", "-t", "application/x-piped"])
        XCTAssertEqual(seen["status"] as? Int, 1, "\(seen)")
        let stderr = try XCTUnwrap(seen["stderr"] as? String)
        XCTAssertTrue(stderr.contains("over the largest request the daemon takes (4194304 bytes): nothing was copied"), stderr)
        XCTAssertEqual(try pb("paste").text, "before the large pipe")
        XCTAssertEqual(try count(), before)
        try waitUntil(10, "no transfer is left") { try transfers() == "0" }
        // Under the cap, through the same socket, it goes.
        let (small, data) = try randomFile(3 << 20, name: "piped-under.bin")
        let fits = try transfer(["--stderr-file", "--socket", remoteSocket, "--pipe", small], ["copy", "-t", "application/x-piped"])
        XCTAssertEqual(fits["status"] as? Int, 0, "\(fits)")
        XCTAssertTrue(try run("xclip", ["-o", "-selection", "clipboard", "-t", "application/x-piped"], timeout: 60).stdout == data)
    }

    /// A large picture is sent from its file too, its header checked from its first bytes: a PNG copies as PNG
    /// (converted at home when asked), and bytes that are no picture under a picture type are warned about.
    func testALargePictureIsSentFromItsFileWithItsHeaderChecked() throws {
        // A 4096 × 4096 PNG of noise (stored: 48 MiB), made by Python's zlib.
        let path = desktop.home + "/noise.png"
        let made = try run("/usr/bin/python3", ["-c", """
            import os, struct, zlib
            w = h = 4096
            raw = b"".join(b"\\0" + os.urandom(w * 3) for _ in range(h))
            def chunk(kind, data):
                return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xffffffff)
            png = b"\\x89PNG\\r\\n\\x1a\\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)) + chunk(b"IDAT", zlib.compress(raw, 0)) + chunk(b"IEND", b"")
            open(\(String(reflecting: path)), "wb").write(png)
            """])
        XCTAssertEqual(made.status, 0, made.stderr)
        let png = try XCTUnwrap(FileManager.default.contents(atPath: path))
        XCTAssertGreaterThan(png.count, 48 << 20)
        let copied = try transfer(["--stderr-file"], ["copy", path])
        XCTAssertEqual(copied["status"] as? Int, 0, "\(copied)")
        XCTAssertEqual(copied["stderr"] as? String, "", "no warning for a good picture")
        let peak = try XCTUnwrap(copied["vmhwm_kib"] as? Int)
        XCTAssertGreaterThan(peak, 1024, "pb itself was measured")
        XCTAssertLessThan(peak, 24 << 10, "the 48 MiB picture is not read whole into pb (\(peak) KiB)")
        XCTAssertTrue(try run("xclip", ["-o", "-selection", "clipboard", "-t", "image/png"], timeout: 60).stdout == [UInt8](png))
        let bmp = try run("xclip", ["-o", "-selection", "clipboard", "-t", "image/bmp"], timeout: 120)
        XCTAssertEqual(Array(bmp.stdout.prefix(2)), Array("BM".utf8), "converted at home from the whole picture")

        let (noise, _) = try randomFile(1 << 20, name: "not-a-picture.png")
        let warned = try transfer(["--stderr-file"], ["copy", "-t", "image/png=\(noise)"])
        XCTAssertEqual(warned["status"] as? Int, 0, "\(warned)")
        XCTAssertTrue((warned["stderr"] as? String ?? "").contains("not a picture that can be read"), "\(warned)")
    }
}
