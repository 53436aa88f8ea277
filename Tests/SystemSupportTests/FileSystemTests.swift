// SPDX-License-Identifier: Apache-2.0
import SystemSupport
import XCTest

final class AtomicFileTests: XCTestCase {
    func testWritesContentWithOwnerOnlyModeAndLeavesNoTemporaryFile() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("history.bin")
        try AtomicFile.write([0, 1, 2, 255], to: path)
        XCTAssertEqual(try FileSystem.readFile(path, limit: 100), [0, 1, 2, 255])
        XCTAssertEqual(try FileSystem.status(path).permissions, 0o600)
        XCTAssertEqual(try FileSystem.listDirectory(directory.path), ["history.bin"])

        try AtomicFile.write(Array("replaced".utf8), to: path)
        XCTAssertEqual(try FileSystem.readFile(path, limit: 100), Array("replaced".utf8))
        XCTAssertEqual(try FileSystem.listDirectory(directory.path), ["history.bin"])
    }

    func testSegmentsAreWrittenAsTheirConcatenation() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("kept")
        let big = [UInt8](repeating: 7, count: 100_000)
        try AtomicFile.write(segments: [[1, 2], big, [], [3]], to: path)
        XCTAssertEqual(try FileSystem.readFile(path, limit: 1 << 20), [1, 2] + big + [3])
        XCTAssertEqual(try FileSystem.listDirectory(directory.path), ["kept"])
    }

    func testALinkNamesTheSameFileAndReplacesWhatWasThereAtOnce() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let entry = directory.file("entry"), kept = directory.file("kept")
        try AtomicFile.write(Array("old".utf8), to: kept)
        try AtomicFile.write(Array("new content".utf8), to: entry)
        try AtomicFile.link(entry, to: kept)
        XCTAssertEqual(try FileSystem.readFile(kept, limit: 100), Array("new content".utf8))
        XCTAssertEqual(try FileSystem.status(kept).inode, try FileSystem.status(entry).inode, "one copy on disk")
        try FileSystem.removeFile(entry)
        XCTAssertEqual(try FileSystem.readFile(kept, limit: 100), Array("new content".utf8), "the link outlives the entry")
        XCTAssertEqual(try FileSystem.listDirectory(directory.path), ["kept"], "no temporary link left")
        XCTAssertThrowsError(try AtomicFile.link(directory.file("missing"), to: kept))
        XCTAssertEqual(try FileSystem.readFile(kept, limit: 100), Array("new content".utf8), "a failed link changes nothing")
    }

    func testFailureLeavesNoTemporaryFileBehind() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("in-the-way")
        try FileSystem.createDirectory(path)  // rename(2) cannot replace a directory with a file.
        XCTAssertThrowsError(try AtomicFile.write([1], to: path))
        XCTAssertEqual(try FileSystem.listDirectory(directory.path), ["in-the-way"])
        XCTAssertThrowsError(try AtomicFile.write([1], to: directory.file("missing/file")))
    }

    func testTemporaryFilesOfKilledWritersAreRemovedAndOthersKept() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        // A PID above the kernel's maximum (4194304) never runs: the writer that made this file is gone.
        let dead = ".clipboard.archive.tmp-9999999-0"
        let live = ".counts.tmp-\(ProcessIdentity.processID)-0"    // this process could be writing it
        let init1 = ".history.tmp-1-0"                              // PID 1 always runs
        let unrelated = [".hidden", ".x.tmp-12", ".x.tmp-abc-0", "data.tmp-9999999-0", "clipboard.archive"]
        for name in [dead, live, init1] + unrelated { try AtomicFile.write([1, 2, 3], to: directory.file(name)) }
        XCTAssertEqual(AtomicFile.removeAbandonedTemporaryFiles(in: directory.path), 1)
        XCTAssertEqual(Set(try FileSystem.listDirectory(directory.path)), Set([live, init1] + unrelated))
        XCTAssertEqual(AtomicFile.removeAbandonedTemporaryFiles(in: directory.file("missing")), 0)
    }

    func testReadFileHonoursTheLimit() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("big")
        try AtomicFile.write([UInt8](repeating: 0, count: 100_000), to: path)
        XCTAssertEqual(try FileSystem.readFile(path, limit: 100_000).count, 100_000)
        XCTAssertThrowsError(try FileSystem.readFile(path, limit: 99_999)) { error in
            XCTAssertNotNil(error as? SystemError)
        }
    }

    func testCreateDirectoryWithIntermediatesAndListing() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let nested = directory.file("a/b/c")
        try FileSystem.createDirectory(nested, mode: 0o700, intermediate: true)
        try FileSystem.createDirectory(nested, mode: 0o700, intermediate: true)  // Already there: fine.
        XCTAssertEqual(try FileSystem.status(nested).kind, .directory)
        XCTAssertEqual(try FileSystem.status(nested).permissions, 0o700)
        XCTAssertEqual(try FileSystem.listDirectory(directory.path), ["a"])
        XCTAssertThrowsError(try FileSystem.createDirectory(nested)) { error in
            XCTAssertEqual((error as? Errno)?.code, .fileExists)
        }
        try FileSystem.removeFile(directory.file("nothing"), ignoreMissing: true)
        XCTAssertEqual(FileSystem.parentDirectory(of: "/a/b"), "/a")
        XCTAssertEqual(FileSystem.parentDirectory(of: "/a"), "/")
        XCTAssertEqual(FileSystem.parentDirectory(of: "b"), ".")
    }
}

final class XDGDirectoriesTests: XCTestCase {
    func testPathsFollowTheXDGVariables() throws {
        let directories = XDGDirectories(environment: [
            "XDG_RUNTIME_DIR": "/run/user/1000/", "XDG_STATE_HOME": "/s", "XDG_CONFIG_HOME": "/c", "HOME": "/home/u",
        ], userID: 1000)
        XCTAssertEqual(directories.runtime, "/run/user/1000/pasteboard")
        XCTAssertEqual(directories.controlSocket, "/run/user/1000/pasteboard/control.sock")
        XCTAssertFalse(directories.usesRuntimeFallback)
        XCTAssertEqual(try directories.state, "/s/pasteboard")
        XCTAssertEqual(try directories.config, "/c/pasteboard")
    }

    func testDefaultsWhenVariablesAreUnsetOrRelative() throws {
        let directories = XDGDirectories(environment: ["HOME": "/home/u", "XDG_CONFIG_HOME": "relative/path"], userID: 1000)
        XCTAssertEqual(directories.runtime, "/tmp/pasteboard-1000")
        XCTAssertTrue(directories.usesRuntimeFallback)
        XCTAssertEqual(try directories.state, "/home/u/.local/state/pasteboard")
        XCTAssertEqual(try directories.config, "/home/u/.config/pasteboard", "a relative XDG path is ignored")
        XCTAssertThrowsError(try XDGDirectories(environment: [:]).config) { error in
            XCTAssertEqual(error as? SystemError, .missingEnvironment(name: "HOME"))
        }
    }

    func testRuntimeFallbackIsCreatedOwnerOnly() throws {
        let base = try TemporaryDirectory()
        defer { base.remove() }
        let directories = XDGDirectories(environment: [:], fallbackBase: base.path)
        let path = try directories.createRuntime()
        XCTAssertEqual(path, base.path + "/pasteboard-\(ProcessIdentity.userID)")
        let status = try FileSystem.status(path)
        XCTAssertEqual(status.kind, .directory)
        XCTAssertEqual(status.permissions, 0o700)
        XCTAssertEqual(status.ownerID, ProcessIdentity.userID)
        XCTAssertEqual(try directories.createRuntime(), path, "an existing safe directory is reused")
    }

    func testRuntimeFallbackThatOthersCanReachIsRefused() throws {
        let base = try TemporaryDirectory()
        defer { base.remove() }
        let directories = XDGDirectories(environment: [:], fallbackBase: base.path)
        try FileSystem.createDirectory(directories.runtime, mode: 0o777)
        XCTAssertThrowsError(try directories.createRuntime()) { error in
            guard case SystemError.unsafeDirectory(let path, let reason)? = error as? SystemError else {
                return XCTFail("\(error)")
            }
            XCTAssertEqual(path, directories.runtime)
            XCTAssertTrue(reason.contains("0777"), reason)
        }
        try FileSystem.setPermissions(directories.runtime, 0o750)
        XCTAssertThrowsError(try directories.createRuntime(), "group access is refused too")
    }

    func testRuntimeFallbackOwnedBySomeoneElseOrNotADirectoryIsRefused() throws {
        let base = try TemporaryDirectory()
        defer { base.remove() }
        let directories = XDGDirectories(environment: [:], userID: ProcessIdentity.userID &+ 4242, fallbackBase: base.path)
        try FileSystem.createDirectory(directories.runtime, mode: 0o700)  // Owned by us, not by "uid+4242".
        XCTAssertThrowsError(try directories.createRuntime()) { error in
            XCTAssertTrue("\(error)".contains("owned by uid"), "\(error)")
        }

        let mine = XDGDirectories(environment: [:], fallbackBase: base.path)
        try AtomicFile.write([], to: mine.runtime)
        XCTAssertThrowsError(try mine.createRuntime()) { error in
            XCTAssertTrue("\(error)".contains("not a directory"), "\(error)")
        }
    }

    func testRuntimeFallbackThatIsASymbolicLinkIsRefused() throws {
        let base = try TemporaryDirectory()
        defer { base.remove() }
        let directories = XDGDirectories(environment: [:], fallbackBase: base.path)
        try FileSystem.createDirectory(base.file("elsewhere"), mode: 0o700)
        try FileSystem.createSymbolicLink(at: directories.runtime, pointingTo: base.file("elsewhere"))
        XCTAssertThrowsError(try directories.createRuntime()) { error in
            XCTAssertEqual(error as? SystemError,
                           .unsafeDirectory(path: directories.runtime, reason: "it is not a directory (symbolicLink)"))
        }
    }

    func testRuntimeUnderXDGRuntimeDir() throws {
        let base = try TemporaryDirectory()
        defer { base.remove() }
        let directories = XDGDirectories(environment: ["XDG_RUNTIME_DIR": base.path])
        XCTAssertEqual(try directories.createRuntime(), base.path + "/pasteboard")
        XCTAssertEqual(try FileSystem.status(base.path + "/pasteboard").permissions, 0o700)
        let state = XDGDirectories(environment: ["XDG_STATE_HOME": base.path + "/state/deep"])
        XCTAssertEqual(try state.createState(), base.path + "/state/deep/pasteboard")
        XCTAssertEqual(try FileSystem.status(base.path + "/state/deep/pasteboard").kind, .directory)
    }
}

final class SystemdNotifierTests: XCTestCase {
    func testNotifiesAPathSocket() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("notify")
        let systemd = try UnixDatagramSocket.bound(to: .path(path))
        defer { try? systemd.close() }

        let notifier = SystemdNotifier(environment: ["NOTIFY_SOCKET": path])
        XCTAssertTrue(notifier.isEnabled)
        try notifier.ready(status: "Serving CLIPBOARD")
        XCTAssertEqual(try systemd.receive().map { String(decoding: $0, as: UTF8.self) }, "READY=1\nSTATUS=Serving CLIPBOARD")
        try notifier.stopping()
        XCTAssertEqual(try systemd.receive().map { String(decoding: $0, as: UTF8.self) }, "STOPPING=1")
        XCTAssertNil(try systemd.receive())
    }

    func testNotifiesAnAbstractSocket() throws {
        let name = "pasteboard-test-\(ProcessIdentity.processID)-\(UInt32.random(in: 0...UInt32.max))"
        let systemd = try UnixDatagramSocket.bound(to: .abstract(name))
        defer { try? systemd.close() }
        let notifier = SystemdNotifier(environment: ["NOTIFY_SOCKET": "@" + name])
        XCTAssertEqual(notifier.address, .abstract(name))
        try notifier.watchdog()
        XCTAssertEqual(try systemd.receive().map { String(decoding: $0, as: UTF8.self) }, "WATCHDOG=1")
    }

    func testDoesNothingWithoutNotifySocket() throws {
        let notifier = SystemdNotifier(environment: [:])
        XCTAssertFalse(notifier.isEnabled)
        try notifier.notify("READY=1")
        XCTAssertFalse(SystemdNotifier(environment: ["NOTIFY_SOCKET": "relative"]).isEnabled)
    }

    func testWatchdogIntervalOnlyForUs() {
        XCTAssertEqual(SystemdNotifier(environment: ["WATCHDOG_USEC": "3000000"]).watchdogInterval, .seconds(3))
        XCTAssertEqual(SystemdNotifier(environment: ["WATCHDOG_USEC": "3000000", "WATCHDOG_PID": "42"], processID: 42).watchdogInterval, .seconds(3))
        XCTAssertNil(SystemdNotifier(environment: ["WATCHDOG_USEC": "3000000", "WATCHDOG_PID": "41"], processID: 42).watchdogInterval)
        XCTAssertNil(SystemdNotifier(environment: ["WATCHDOG_USEC": "0"]).watchdogInterval)
        XCTAssertNil(SystemdNotifier(environment: [:]).watchdogInterval)
    }
}
