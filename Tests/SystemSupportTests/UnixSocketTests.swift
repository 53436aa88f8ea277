// SPDX-License-Identifier: Apache-2.0
import SystemSupport
import XCTest

final class UnixSocketTests: XCTestCase {
    func testListenerAcceptsAClientAndSeesItsCredentials() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("control.sock")
        let listener = try UnixListener(path: path)
        defer { try? listener.close() }

        XCTAssertEqual(try FileSystem.status(path).kind, .socket)
        XCTAssertEqual(try FileSystem.status(path).permissions, 0o600)
        XCTAssertTrue(try listener.fileDescriptor.isCloseOnExec)
        XCTAssertTrue(try listener.fileDescriptor.isNonBlocking)
        XCTAssertNil(try listener.accept(), "nobody is connecting yet")

        let client = try UnixSocket.connect(path: path)
        defer { try? client.close() }
        XCTAssertTrue(try client.isCloseOnExec)
        XCTAssertFalse(try client.isNonBlocking)
        XCTAssertEqual(try Poller.wait([PollRequest(listener.fileDescriptor, .readable)], timeoutMilliseconds: 1000), [.readable])
        let server = try XCTUnwrap(try listener.accept())
        defer { try? server.close() }
        XCTAssertTrue(try server.isCloseOnExec)
        XCTAssertTrue(try server.isNonBlocking)

        let credentials = try peerCredentials(of: server)
        XCTAssertEqual(credentials.uid, ProcessIdentity.userID)
        XCTAssertEqual(credentials.gid, ProcessIdentity.groupID)
        XCTAssertEqual(credentials.pid, ProcessIdentity.processID)

        try client.writeAll(Array("ping".utf8))
        XCTAssertEqual(try Poller.wait([PollRequest(server, .readable)], timeoutMilliseconds: 1000), [.readable])
        XCTAssertEqual(try server.readAvailable(), .data(Array("ping".utf8)))
        XCTAssertEqual(try server.readAvailable(), .wouldBlock)
        try client.close()
        XCTAssertEqual(try server.readAvailable(), .endOfFile)
    }

    func testCloseRemovesTheSocketFile() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("control.sock")
        let listener = try UnixListener(path: path)
        try listener.close()
        XCTAssertFalse(FileSystem.fileExists(path))
        XCTAssertThrowsError(try UnixSocket.connect(path: path)) { error in
            XCTAssertEqual((error as? Errno)?.code, .noSuchFileOrDirectory)
        }
    }

    func testStaleSocketFileIsReplaced() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("control.sock")
        let crashed = try UnixListener(path: path)
        try crashed.fileDescriptor.close()  // A crash: the file stays, nobody listens.
        XCTAssertTrue(FileSystem.fileExists(path))
        XCTAssertThrowsError(try UnixSocket.connect(path: path)) { error in
            XCTAssertEqual((error as? Errno)?.code, .connectionRefused)
        }

        let listener = try UnixListener(path: path)
        defer { try? listener.close() }
        let client = try UnixSocket.connect(path: path)
        defer { try? client.close() }
        _ = try Poller.wait([PollRequest(listener.fileDescriptor, .readable)], timeoutMilliseconds: 1000)
        XCTAssertNotNil(try listener.accept())
    }

    func testLiveDaemonIsNotDisplaced() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("control.sock")
        let first = try UnixListener(path: path)
        defer { try? first.close() }

        XCTAssertThrowsError(try UnixListener(path: path)) { error in
            XCTAssertEqual((error as? Errno)?.code, .addressInUse)
        }
        // The first listener still owns the path and serves.
        let client = try UnixSocket.connect(path: path)
        defer { try? client.close() }
        XCTAssertEqual(try Poller.wait([PollRequest(first.fileDescriptor, .readable)], timeoutMilliseconds: 1000), [.readable])
    }

    func testSomethingElseInTheWayIsLeftAlone() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("control.sock")
        try AtomicFile.write(Array("notes".utf8), to: path)
        XCTAssertThrowsError(try UnixListener(path: path)) { error in
            XCTAssertEqual((error as? Errno)?.code, .addressInUse)
        }
        XCTAssertEqual(try FileSystem.readFile(path, limit: 100), Array("notes".utf8))
    }

    func testPathLongerThanSunPathIsAClearError() throws {
        let path = "/tmp/" + String(repeating: "p", count: 200) + ".sock"
        XCTAssertThrowsError(try UnixListener(path: path)) { error in
            XCTAssertEqual(error as? SystemError, .pathTooLong(path: path, maximum: 107))
            XCTAssertTrue("\(error)".contains("sun_path"))
        }
        XCTAssertThrowsError(try UnixSocket.connect(path: path)) { error in
            XCTAssertEqual(error as? SystemError, .pathTooLong(path: path, maximum: 107))
        }
        XCTAssertEqual(UnixSocketAddress.maximumPathLength, 107)
    }

    func testSocketPairCarriesCredentials() throws {
        let (a, b) = try UnixSocket.pair()
        defer { try? a.close(); try? b.close() }
        XCTAssertEqual(try peerCredentials(of: a).uid, ProcessIdentity.userID)
        try a.writeAll([9])
        try UnixSocket.shutdownWriting(a)
        XCTAssertEqual(try b.readToEnd(limit: 10), [9])
    }
}
