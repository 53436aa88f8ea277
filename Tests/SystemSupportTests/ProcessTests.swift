// SPDX-License-Identifier: Apache-2.0
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

    func testWaitingWithATimeoutReturnsTheEndOrNilAndLeavesTheChildRunning() throws {
        let quick = try ChildProcess.spawn(argv: ["sh", "-c", "exit 4"])
        XCTAssertEqual(try ChildProcess.wait(quick, timeoutMilliseconds: 10_000), .exited(4))
        let slow = try ChildProcess.spawn(argv: ["sleep", "30"])
        XCTAssertNil(try ChildProcess.wait(slow, timeoutMilliseconds: 50))
        XCTAssertEqual(kill(slow, 0), 0, "still running, not reaped")
        try Signals.send(.kill, to: slow)
        XCTAssertEqual(try ChildProcess.wait(slow, timeoutMilliseconds: 10_000), .signaled(.kill))
    }

    func testAChildInASessionOfItsOwnWithItsStandardErrorGivenAndItsOwnName() throws {
        let (readEnd, writeEnd) = try FileDescriptor.pipe()
        // Field 6 of /proc/PID/stat is the session; the name in parentheses is argv[0]'s, not the executable's.
        let pid = try ChildProcess.spawn(argv: ["named-by-the-test", "-c", "echo \"$(cut -d' ' -f6 /proc/$$/stat) $$ $0\" >&2"],
                                         executable: "/bin/sh", stderr: writeEnd, newSession: true)
        try writeEnd.close()
        let words = String(decoding: try readEnd.readToEnd(limit: 100), as: UTF8.self).split(separator: " ").map(String.init)
        try readEnd.close()
        XCTAssertEqual(try ChildProcess.wait(pid), .exited(0))
        XCTAssertEqual(words, ["\(pid)", "\(pid)", "named-by-the-test\n"], "the leader of its own session, its stderr ours to read")
        XCTAssertNotEqual(getsid(0), pid)
    }

    func testTheParentsIDAndTheExecutable() throws {
        XCTAssertEqual(ProcessIdentity.parentProcessID, getppid())
        XCTAssertEqual(try FileSystem.resolvedPath(ProcessIdentity.executable), try FileSystem.resolvedPath("/proc/\(getpid())/exe"))
        try ProcessIdentity.signalWhenParentEnds(.terminate)
        try ProcessIdentity.signalWhenParentEnds(Signal(rawValue: 0))   // 0 clears it again
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

    /// Every name in `all` has the value getenv(3) gives (the first of a repeated name), an `=` in a value kept.
    func testEveryVariableHasGetenvsValue() {
        XCTAssertEqual(setenv("PASTEBOARD_TEST_EQUALS", "a=b=c", 1), 0)
        defer { unsetenv("PASTEBOARD_TEST_EQUALS") }
        let all = Environment.all
        XCTAssertEqual(all["PASTEBOARD_TEST_EQUALS"], "a=b=c")
        for (name, value) in all { XCTAssertEqual(value, Environment.value(name), name) }
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

/// Programs run as filters: input fed and output read at once, output bounded; programs found on a path.
final class FilterProcessTests: XCTestCase {
    override func setUpWithError() throws {
        try Signals.ignore(.pipe)   // as pb does: a filter that stops reading gives our write EPIPE
    }


    func testAFilterGetsItsInputAndGivesItsOutputWhateverTheirSizes() throws {
        // 1 MiB each way: more than a pipe holds, so feeding and reading must go on at once.
        let lines = Array(String(repeating: "0123456789abcde\n", count: 65536).utf8)
        let result = try ChildProcess.run(argv: ["cat"], input: lines, outputLimit: 2 << 20)
        XCTAssertEqual(result.status, .exited(0))
        XCTAssertEqual(result.output, lines)
    }

    func testAFilterThatStopsReadingEarlyIsNoError() throws {
        let input = Array(String(repeating: "line\n", count: 200_000).utf8)
        let result = try ChildProcess.run(argv: ["sh", "-c", "head -n 1"], input: input, outputLimit: 100)
        XCTAssertEqual(result.output, Array("line\n".utf8))
        XCTAssertEqual(result.status, .exited(0))
        XCTAssertEqual(try ChildProcess.run(argv: ["sh", "-c", "exit 7"], input: [], outputLimit: 10).status, .exited(7))
    }

    func testAFilterPrintingMoreThanTheLimitIsStoppedAndReported() throws {
        let started = SystemClock().now()
        XCTAssertThrowsError(try ChildProcess.run(argv: ["sh", "-c", "while :; do echo flood; done"], input: [], outputLimit: 4096)) { error in
            XCTAssertEqual(error as? SystemError, .limitExceeded(operation: "the output of sh", limit: 4096))
        }
        XCTAssertLessThan(SystemClock().now() - started, .seconds(10), "stopped by its PID, not waited for")
        XCTAssertThrowsError(try ChildProcess.run(argv: ["pb-no-such-program-\(ProcessIdentity.processID)"], input: [], outputLimit: 10))
    }

    func testExecutablesAreFoundOnTheSearchPath() throws {
        XCTAssertEqual(ChildProcess.executablePath("sh", searchPath: "/nonexistent:/bin"), "/bin/sh")
        XCTAssertNil(ChildProcess.executablePath("sh", searchPath: "/nonexistent"))
        XCTAssertNil(ChildProcess.executablePath("passwd", searchPath: "/etc"), "a file that is not executable")
        XCTAssertNil(ChildProcess.executablePath("bin", searchPath: "/"), "a directory")
        XCTAssertEqual(ChildProcess.executablePath("/bin/sh", searchPath: ""), "/bin/sh")
        XCTAssertNil(ChildProcess.executablePath("", searchPath: "/bin"))
    }
}


final class ProcessIdentityTests: XCTestCase {
    func testARunningProcessRunsAndAnEndedOneDoesNotEvenBeforeItIsReaped() throws {
        XCTAssertTrue(ProcessIdentity.isRunning(ProcessIdentity.processID))
        XCTAssertFalse(ProcessIdentity.isRunning(0), "0 names no one process")
        XCTAssertFalse(ProcessIdentity.isRunning(-1))
        let (readEnd, writeEnd) = try FileDescriptor.pipe()
        let pid = try ChildProcess.spawn(argv: ["sh", "-c", "read line"], stdin: readEnd)
        try readEnd.close()
        XCTAssertTrue(ProcessIdentity.isRunning(pid), "waiting for its input")
        try writeEnd.writeAll(Array("go\n".utf8))
        try writeEnd.close()
        // Ended, not yet reaped: a zombie (its state in /proc/PID/stat is Z).
        let deadline = SystemClock().now() + .seconds(10)
        func state() -> String? {
            (try? FileSystem.readFile("/proc/\(pid)/stat", limit: 1024)).map { String(decoding: $0, as: UTF8.self) }?
                .split(separator: ")").last?.split(separator: " ").first.map(String.init)
        }
        while state() != "Z" && SystemClock().now() < deadline { _ = try Poller.wait([], timeoutMilliseconds: 10) }
        XCTAssertEqual(state(), "Z")
        XCTAssertFalse(ProcessIdentity.isRunning(pid), "a zombie no longer runs")
        XCTAssertEqual(try ChildProcess.wait(pid), .exited(0))
        XCTAssertFalse(ProcessIdentity.isRunning(pid), "reaped: no such process")
    }
}
