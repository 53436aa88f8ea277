// SPDX-License-Identifier: Apache-2.0
import Glibc
import SystemSupport
import XCTest

/// sd_listen_fds(3)'s rules with real descriptors: whose they are, how many, that they are open, and what
/// a passed listening socket must be. The descriptors sit at 500 and up so the test process's own stay
/// untouched.
final class SocketActivationTests: XCTestCase {
    let first: Int32 = 500

    /// Puts `descriptors` at 500, 501, … and returns a closure that closes them again.
    func place(_ descriptors: [FileDescriptor]) throws -> () -> Void {
        for (offset, fd) in descriptors.enumerated() {
            try fd.duplicate(as: FileDescriptor(rawValue: first + Int32(offset)))
            // As a service manager passes them: inheritable.
            XCTAssertEqual(fcntl(first + Int32(offset), F_SETFD, 0), 0)
        }
        return { for offset in descriptors.indices { try? FileDescriptor(rawValue: self.first + Int32(offset)).close() } }
    }

    func take(_ environment: [String: String]) throws -> [FileDescriptor] {
        try SocketActivation.takeListeningDescriptors(environment: environment, firstDescriptor: first)
    }

    func testDescriptorsMeantForThisProcessAreTakenCloseOnExecAndTheVariablesRemoved() throws {
        let (readEnd, writeEnd) = try FileDescriptor.pipe()
        let close = try place([readEnd, writeEnd])
        defer { close(); try? readEnd.close(); try? writeEnd.close() }
        XCTAssertFalse(try FileDescriptor(rawValue: first).isCloseOnExec)
        setenv("LISTEN_PID", "\(ProcessIdentity.processID)", 1)
        setenv("LISTEN_FDS", "2", 1)
        setenv("LISTEN_FDNAMES", "control:other", 1)
        let taken = try take(["LISTEN_PID": "\(ProcessIdentity.processID)", "LISTEN_FDS": "2"])
        XCTAssertEqual(taken.map(\.rawValue), [first, first + 1])
        XCTAssertTrue(try taken.allSatisfy { try $0.isCloseOnExec })
        for name in ["LISTEN_PID", "LISTEN_FDS", "LISTEN_FDNAMES"] {
            XCTAssertNil(Environment.value(name), "\(name) is removed, so no child takes it for its own")
        }
    }

    func testNothingIsTakenWhenTheVariablesAreForAnotherProcessOrAbsent() throws {
        XCTAssertEqual(try take([:]), [])
        XCTAssertEqual(try take(["LISTEN_PID": "1", "LISTEN_FDS": "1"]), [], "inherited from a parent: not ours")
        XCTAssertEqual(try take(["LISTEN_PID": "\(ProcessIdentity.processID)", "LISTEN_FDS": "0"]), [])
    }

    func testMalformedVariablesAreRefusedWithTheReason() {
        let pid = "\(ProcessIdentity.processID)"
        let cases: [([String: String], String)] = [
            (["LISTEN_PID": "abc", "LISTEN_FDS": "1"], "$LISTEN_PID is not a process ID"),
            (["LISTEN_PID": "-5", "LISTEN_FDS": "1"], "$LISTEN_PID is not a process ID"),
            (["LISTEN_PID": pid], "$LISTEN_FDS is not a number of descriptors"),
            (["LISTEN_PID": pid, "LISTEN_FDS": "one"], "$LISTEN_FDS is not a number of descriptors"),
            (["LISTEN_PID": pid, "LISTEN_FDS": "-1"], "$LISTEN_FDS is not a number of descriptors"),
            (["LISTEN_PID": pid, "LISTEN_FDS": "99999999999999999999"], "$LISTEN_FDS is not a number of descriptors"),
            (["LISTEN_PID": pid, "LISTEN_FDS": "65"], "$LISTEN_FDS says 65 descriptors; at most 64 are taken"),
            (["LISTEN_PID": pid, "LISTEN_FDS": "1"], "$LISTEN_FDS names descriptor 500, which is not open"),
        ]
        for (environment, reason) in cases {
            XCTAssertThrowsError(try take(environment), "\(environment)") { error in
                XCTAssertEqual("\(error)", "socket activation: " + reason)
            }
        }
    }

    func testAPassedListeningUnixSocketIsAdoptedAndItsFileLeftToItsOwner() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("control.sock")
        let bound = try UnixListener(path: path)
        defer { try? bound.close() }
        let passed = try UnixListener(adopting: try bound.fileDescriptor.duplicate())
        XCTAssertEqual(passed.path, path)
        XCTAssertFalse(passed.ownsSocketFile)
        XCTAssertTrue(try passed.fileDescriptor.isNonBlocking)
        let client = try UnixSocket.connect(path: path)
        defer { try? client.close() }
        XCTAssertEqual(try Poller.wait([PollRequest(passed.fileDescriptor, .readable)], timeoutMilliseconds: 1000), [.readable])
        let accepted = try XCTUnwrap(try passed.accept())
        try? accepted.close()
        try passed.close()
        XCTAssertTrue(FileSystem.fileExists(path), "the manager listens on it again once we are gone")
    }

    func testWhatIsNotAListeningUnixStreamSocketIsRefused() throws {
        let (readEnd, writeEnd) = try FileDescriptor.pipe()
        let (one, other) = try UnixSocket.pair()
        let datagram = try UnixDatagramSocket()
        defer { for fd in [readEnd, writeEnd, one, other, datagram.fileDescriptor] { try? fd.close() } }
        for fd in [readEnd, one, datagram.fileDescriptor] {
            XCTAssertThrowsError(try UnixListener(adopting: fd)) { error in
                XCTAssertEqual("\(error)", "descriptor \(fd.rawValue): is not a listening Unix stream socket")
            }
        }
    }
}
