// SPDX-License-Identifier: Apache-2.0
import ControlProtocol
@testable import DaemonCore
import Foundation
import PasteboardCore
import SystemSupport
import XCTest

/// A daemon that cannot start says why: in words that say what fixes it, to each client waiting at the control
/// socket (answered in place of hello, whatever the client sent or did not send), within a bound.
final class StartFailureTests: XCTestCase {
    func testTheReasonsSayWhatFixesThem() {
        XCTAssertEqual(StartFailure.displayNotSet.message,
                       "pasteboardd could not start: DISPLAY is not set (systemctl --user import-environment DISPLAY)")
        XCTAssertEqual(StartFailure.cannotOpenDisplay(":5", .noServer(socket: "/tmp/.X11-unix/X5"), stillTrying: true).message,
                       "pasteboardd could not start: cannot open display :5 (no X server listens at /tmp/.X11-unix/X5); still trying")
        XCTAssertEqual(StartFailure.cannotOpenDisplay(":0", .refused, stillTrying: false).message,
                       "pasteboardd could not start: cannot open display :0 (the X server refused the connection; if it wants a cookie: "
                       + "systemctl --user import-environment XAUTHORITY)")
    }

    func testADisplayIsDiagnosedByItsLocalSocket() throws {
        XCTAssertEqual(DisplayFailure.localSocket(of: try XCTUnwrap(DisplayName("unix:7.1"))), "/tmp/.X11-unix/X7")
        XCTAssertNil(DisplayFailure.localSocket(of: try XCTUnwrap(DisplayName("remote.example:0"))))
        XCTAssertEqual(DisplayFailure.diagnose("remote.example:0"), .remote)
        XCTAssertEqual(DisplayFailure.diagnose("no display"), .malformedName)
        let sockets = (try? String(contentsOfFile: "/proc/net/unix", encoding: .utf8)) ?? ""
        let unused = try XCTUnwrap((700..<800).first { !FileManager.default.fileExists(atPath: "/tmp/.X11-unix/X\($0)")
                                                         && !sockets.contains("/tmp/.X11-unix/X\($0)\n") })
        XCTAssertEqual(DisplayFailure.diagnose(":\(unused)"), .noServer(socket: "/tmp/.X11-unix/X\(unused)"))
    }

    // MARK: Telling the clients

    var directory = ""
    var listener: UnixListener!

    override func setUpWithError() throws {
        directory = NSTemporaryDirectory() + "start-failure-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        listener = try UnixListener(path: directory + "/control.sock")
    }

    override func tearDown() {
        try? listener?.close()
        try? FileManager.default.removeItem(atPath: directory)
    }

    func notice() -> StartFailureNotice {
        StartFailureNotice(listeners: [listener], userID: ProcessIdentity.userID, clock: SystemClock())
    }

    /// What a client reads until the daemon closed the connection, as responses (a reset after them is the end).
    func answers(on client: FileDescriptor) -> [ControlResponse] {
        var decoder = FrameDecoder()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while let n = try? buffer.withUnsafeMutableBytes({ try client.read(into: $0) }), n > 0 { decoder.append(buffer[..<n]) }
        var responses: [ControlResponse] = []
        while let body = try? decoder.nextFrame() { if let response = try? ControlResponse.decode(body: body) { responses.append(response) } }
        return responses
    }

    func testAClientThatSaidHelloIsAnsweredWithTheReasonInPlaceOfHello() throws {
        let client = try UnixSocket.connect(path: listener.path)
        defer { try? client.close() }
        // As pb writes them: the hello and the request in one write.
        try client.writeAll(ControlRequest.hello(version: ControlProtocolVersion.current, client: "pb").encode()
                            + ControlRequest.changeCount(pasteboard: "general").encode())
        XCTAssertEqual(notice().tell(.displayNotSet, patience: .seconds(20)), 1)
        XCTAssertEqual(answers(on: client), [.error(code: .unavailable, message: StartFailure.displayNotSet.message)])
    }

    func testAClientThatSaysNothingIsAnsweredOnceThePatienceRanOut() throws {
        let silent = try UnixSocket.connect(path: listener.path)
        defer { try? silent.close() }
        let overLong = try UnixSocket.connect(path: listener.path)
        defer { try? overLong.close() }
        // A header announcing a 1 MiB frame: no hello will come, so it need not be waited for.
        try overLong.writeAll([0, 0, 16, 0])
        XCTAssertEqual(notice().tell(StartFailure("the test says so"), patience: .milliseconds(200)), 2)
        for client in [silent, overLong] {
            XCTAssertEqual(answers(on: client), [.error(code: .unavailable, message: "pasteboardd could not start: the test says so")])
        }
    }

    func testWithNobodyWaitingNothingIsWaitedFor() {
        XCTAssertEqual(notice().tell(.displayNotSet, patience: .seconds(20)), 0)
    }

    func testAGreetingIsCompleteWithAWholeFrameOrTheCap() {
        var greeting = StartFailureNotice.Greeting()
        let hello = ControlRequest.hello(version: ControlProtocolVersion.current, client: "pb").encode()
        greeting.receive(Array(hello.prefix(5)))
        XCTAssertFalse(greeting.isComplete, "part of a hello")
        greeting.receive(Array(hello.dropFirst(5)))
        XCTAssertTrue(greeting.isComplete)
        // A frame of exactly the cap announced, then its body trickled in: the cap is reached before the frame ends.
        var trickle = StartFailureNotice.Greeting()
        trickle.receive([0x00, 0x10, 0, 0])
        for _ in 0..<(StartFailureNotice.maximumRead - 8) / 4 { trickle.receive([1, 0x80, 0, 0]) }
        XCTAssertFalse(trickle.isComplete, "4 bytes short of the cap")
        trickle.receive([1, 0x80, 0, 0])
        XCTAssertTrue(trickle.isComplete, "reading stops at the cap, frame or not")
    }
}
