// SPDX-License-Identifier: Apache-2.0
import ControlProtocol
@testable import Pasteboard
import PasteboardCore
import SystemSupport
import XCTest

/// A daemon older than the copy in pieces (`beginCopy`, `copyChunk`, `commitCopy`) answers `beginCopy` as it answers
/// any kind it does not know — `badRequest` with its decoder's own message — and the library then sends the copy
/// whole: the stream read to its end, one `setItems`, no chunk sent. The older daemon is this test's server on a
/// real socket: it decodes with the real `ControlRequest` decoder and refuses the kinds from 0x0050 on as a decoder
/// without them throws.
final class CopyInPiecesFallbackTests: XCTestCase {
    /// Gives `bytes` in pieces of at most 100,000 bytes, as a pipe does.
    final class Pieces: ByteStream {
        var rest: ArraySlice<UInt8>
        init(_ bytes: [UInt8]) { rest = bytes[...] }
        func read(maximum: Int) throws -> [UInt8] {
            let piece = Array(rest.prefix(min(maximum, 100_000)))
            rest = rest.dropFirst(piece.count)
            return piece
        }
    }

    /// What the older daemon saw, written by its thread before it fulfils the expectation the test waits for.
    final class Seen: @unchecked Sendable {
        let listener: UnixListener
        var kinds: [UInt16] = []
        var copied: [PasteboardItem] = []
        init(_ listener: UnixListener) { self.listener = listener }
    }

    func testAnOlderDaemonIsSentTheCopyWhole() throws {
        let directory = NSTemporaryDirectory() + "older-daemon-" + UUID().uuidString.prefix(8)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/control.sock"
        let listener = try UnixListener(path: path)
        defer { try? listener.close() }
        let data = (0..<700_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }

        let seen = Seen(listener)
        let served = expectation(description: "the older daemon answered the copy")
        let server = Thread { [seen] in
            let listener = seen.listener
            guard (try? Poller.wait([PollRequest(listener.fileDescriptor, .readable)], timeoutMilliseconds: 10_000)) != nil,
                  let client = try? listener.accept() else { return }
            defer { try? client.close() }
            var decoder = FrameDecoder()
            while seen.copied.isEmpty {
                guard (try? Poller.wait([PollRequest(client, .readable)], timeoutMilliseconds: 10_000))?.first?.isEmpty == false,
                      case .data(let bytes)? = try? client.readAvailable(max: 1 << 20) else { return }
                decoder.append(bytes[...])
                while let body = try? decoder.nextFrame() {
                    let kind = UInt16(body[1]) | UInt16(body[2]) << 8
                    seen.kinds.append(kind)
                    let answer: ControlResponse
                    if kind >= 0x0050 {
                        answer = .error(code: .badRequest, message: "\(ControlProtocolError.unknownKind(kind, direction: "request"))")
                    } else {
                        switch try? ControlRequest.decode(body: body) {
                        case .hello?: answer = .hello(version: 1, daemonPID: 1, daemonVersion: "pasteboardd 0.0.9")
                        case .setItems(_, let items, _)?:
                            seen.copied = items
                            answer = .changeCount(pasteboard: "general", count: 8)
                        default: answer = .error(code: .badRequest, message: "not expected here")
                        }
                    }
                    _ = try? client.writeAll(answer.encode())
                }
            }
            served.fulfill()
        }
        server.start()

        let board = Pasteboard(name: .general, environment: [ForwardedSocket.socketVariable: path])
        let count = try board.setItem(streaming: [.whole(Representation(type: .html, data: Array("<b>b</b>".utf8))),
                                                  .stream(PasteboardType("application/x-piped"), Pieces(data))],
                                      options: PasteboardOptions())
        wait(for: [served], timeout: 20)
        XCTAssertEqual(count, 8)
        XCTAssertEqual(seen.kinds, [0x0001, 0x0050, 0x0002], "hello, the refused begin, then the copy whole: no chunk was sent")
        XCTAssertEqual(seen.copied.count, 1)
        XCTAssertEqual(seen.copied.first?.types, [.html, PasteboardType("application/x-piped")])
        XCTAssertEqual(seen.copied.first?.data(for: PasteboardType("application/x-piped")), data, "the stream read to its end")
    }
}
