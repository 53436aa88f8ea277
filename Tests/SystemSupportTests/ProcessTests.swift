import Glibc
import SystemSupport
import XCTest

final class SignalTests: XCTestCase {
    func testSignalDescriptorDeliversARaisedSignal() throws {
        let signals = try SignalDescriptor(signals: [.hangup, .user1])
        defer { try? signals.close() }
        XCTAssertTrue(try signals.fileDescriptor.isCloseOnExec)
        XCTAssertEqual(try signals.readPending(), [])

        try Signals.raise(.hangup)
        XCTAssertEqual(try Poller.wait([PollRequest(signals.fileDescriptor, .readable)], timeoutMilliseconds: 1000), [.readable])
        XCTAssertEqual(try signals.readPending(), [.hangup])
        XCTAssertEqual(try signals.readPending(), [], "read once")

        try Signals.raise(.user1)
        try Signals.raise(.hangup)
        XCTAssertEqual(Set(try signals.readPending()), [.hangup, .user1])
    }

    func testSignalNames() {
        XCTAssertEqual(Signal.terminate.description, "SIGTERM")
        XCTAssertEqual(Signal.child.description, "SIGCHLD")
    }
}

final class ChildProcessTests: XCTestCase {
    func testSpawnAndWaitReportTheExitCode() throws {
        let pid = try ChildProcess.spawn(argv: ["sh", "-c", "exit 3"])
        XCTAssertGreaterThan(pid, 0)
        XCTAssertEqual(try ChildProcess.wait(pid), .exited(3))
    }

    func testEnvironmentAndStandardInputReachTheChild() throws {
        let (readEnd, writeEnd) = try FileDescriptor.pipe()
        let (resultRead, resultWrite) = try FileDescriptor.pipe()
        let pid = try ChildProcess.spawn(
            argv: ["sh", "-c", "read line; printf '%s/%s' \"$line\" \"$PB_TEST\""],
            environment: ["PB_TEST": "naïve", "PATH": Environment.value("PATH") ?? "/usr/bin:/bin"],
            stdin: readEnd, stdout: resultWrite
        )
        try readEnd.close()
        try resultWrite.close()
        try writeEnd.writeAll(Array("hello\n".utf8))
        try writeEnd.close()
        XCTAssertEqual(String(decoding: try resultRead.readToEnd(limit: 100), as: UTF8.self), "hello/naïve")
        try resultRead.close()
        XCTAssertEqual(try ChildProcess.wait(pid), .exited(0))
    }

    func testChildStartsWithDefaultSignalHandling() throws {
        // Even though this process blocks SIGHUP (signalfd) and ignores SIGPIPE, a child dies of them.
        _ = try SignalDescriptor(signals: [.hangup])
        try Signals.ignore(.pipe)
        let pid = try ChildProcess.spawn(argv: ["sh", "-c", "kill -HUP $$; exit 0"])
        XCTAssertEqual(try ChildProcess.wait(pid), .signaled(.hangup))
    }

    func testReapAnyCollectsFinishedChildrenWithoutBlocking() throws {
        while try ChildProcess.reapAny() != nil {}
        XCTAssertNil(try ChildProcess.reapAny())
        let pid = try ChildProcess.spawn(argv: ["true"])
        var reaped: (processID: Int32, status: ExitStatus)?
        let clock = SystemClock()
        let deadline = clock.now() + .seconds(10)
        while reaped == nil && clock.now() < deadline {
            reaped = try ChildProcess.reapAny()
            if reaped == nil { _ = try Poller.wait([], timeoutMilliseconds: 5) }
        }
        XCTAssertEqual(reaped?.processID, pid)
        XCTAssertEqual(reaped?.status, .exited(0))
    }

    func testMissingProgramIsAnError() {
        XCTAssertThrowsError(try ChildProcess.spawn(argv: ["pasteboard-no-such-program"])) { error in
            XCTAssertEqual((error as? Errno)?.code, .noSuchFileOrDirectory)
        }
    }
}

final class EnvironmentTests: XCTestCase {
    func testReadsTheProcessEnvironment() {
        XCTAssertNotNil(Environment.value("PATH"))
        XCTAssertEqual(Environment.all["PATH"], Environment.value("PATH"))
        XCTAssertNil(Environment.value("PASTEBOARD_SURELY_UNSET_VARIABLE"))
    }

    func testJournalStreamMustMatchStandardError() throws {
        let status = try FileDescriptor.standardError.status()
        XCTAssertTrue(Journal.stderrIsJournal(environment: ["JOURNAL_STREAM": "\(status.device):\(status.inode)"]))
        XCTAssertFalse(Journal.stderrIsJournal(environment: ["JOURNAL_STREAM": "\(status.device):\(status.inode &+ 1)"]))
        XCTAssertFalse(Journal.stderrIsJournal(environment: ["JOURNAL_STREAM": "garbage"]))
        XCTAssertFalse(Journal.stderrIsJournal(environment: [:]))
    }
}

final class OpenFileLimitTests: XCTestCase {
    func testTheSoftLimitIsRaisedToTheHardLimit() throws {
        let (_, hard) = try OpenFileLimit.current()
        let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
        var saved = rlimit()
        XCTAssertEqual(getrlimit(resource, &saved), 0)
        defer { _ = setrlimit(resource, &saved) }
        // As systemd starts a service: a soft limit far below the hard one.
        var lowered = rlimit(rlim_cur: 256, rlim_max: saved.rlim_max)
        XCTAssertEqual(setrlimit(resource, &lowered), 0)
        XCTAssertEqual(try OpenFileLimit.current().soft, 256)
        XCTAssertEqual(try OpenFileLimit.raiseToHardLimit(), hard)
        XCTAssertEqual(try OpenFileLimit.current().soft, hard)
        XCTAssertEqual(try OpenFileLimit.raiseToHardLimit(), hard, "raising again changes nothing")
    }
}
