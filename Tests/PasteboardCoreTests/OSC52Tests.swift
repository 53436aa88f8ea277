// SPDX-License-Identifier: Apache-2.0
import PasteboardCore
import XCTest

/// The terminal's clipboard escape: the bytes, the passthrough wrappers, the size limit.
final class OSC52Tests: XCTestCase {
    func testTheSequenceNamesTheSelectionAndEndsWithBEL() throws {
        XCTAssertEqual(try OSC52.sequence(for: Array("hi".utf8)), Array("\u{1B}]52;c;aGk=\u{07}".utf8))
        XCTAssertEqual(try OSC52.sequence(for: Array("hi".utf8), selection: .primary), Array("\u{1B}]52;p;aGk=\u{07}".utf8))
    }

    func testTmuxGetsItsPassthroughWithEveryEscapeDoubled() throws {
        XCTAssertEqual(try OSC52.sequence(for: Array("hi".utf8), multiplexer: .tmux),
                       Array("\u{1B}Ptmux;\u{1B}\u{1B}]52;c;aGk=\u{07}\u{1B}\\".utf8))
    }

    func testScreenGetsItInPiecesItCanHold() throws {
        let text = [UInt8](repeating: UInt8(ascii: "x"), count: 300)
        let plain = try OSC52.sequence(for: text)
        let wrapped = try OSC52.sequence(for: text, multiplexer: .screen)
        // Each piece is ESC P, at most 76 bytes of the sequence, ESC \.
        var pieces: [[UInt8]] = []
        var rest = wrapped[...]
        while !rest.isEmpty {
            XCTAssertEqual(Array(rest.prefix(2)), [0x1B, UInt8(ascii: "P")])
            let end = try XCTUnwrap(rest.indices.dropFirst(2).first { rest[$0] == 0x1B && rest.index(after: $0) < rest.endIndex && rest[rest.index(after: $0)] == UInt8(ascii: "\\") })
            pieces.append(Array(rest[(rest.startIndex + 2)..<end]))
            rest = rest[(end + 2)...]
        }
        XCTAssertEqual(pieces.flatMap { $0 }, plain, "the pieces put together are the sequence")
        XCTAssertTrue(pieces.allSatisfy { $0.count <= 76 && $0.count > 0 })
        XCTAssertEqual(pieces.count, (plain.count + 75) / 76)
    }

    func testTheSizeLimitIsWhatTerminalsTake() throws {
        XCTAssertEqual(OSC52.maximumBytes, 75_000)
        let most = try OSC52.sequence(for: [UInt8](repeating: 0x41, count: OSC52.maximumBytes))
        XCTAssertEqual(most.count, 7 + OSC52.maximumEncodedLength + 1, "ESC ] 5 2 ; c ; … BEL")
        XCTAssertThrowsError(try OSC52.sequence(for: [UInt8](repeating: 0x41, count: OSC52.maximumBytes + 1))) { error in
            XCTAssertEqual((error as? OSC52.TooLarge)?.byteCount, 75_001)
            XCTAssertEqual("\(error)", "75001 bytes is more than a terminal takes through OSC 52 (75000 bytes, 100000 base64 characters)")
        }
    }

    func testTheMultiplexerComesFromTheEnvironment() {
        XCTAssertEqual(OSC52.Multiplexer(environment: ["TMUX": "/tmp/tmux-0/default,123,0", "STY": "1.pts"]), .tmux)
        XCTAssertEqual(OSC52.Multiplexer(environment: ["STY": "1234.pts-0.host"]), .screen)
        XCTAssertEqual(OSC52.Multiplexer(environment: ["TMUX": "", "TERM": "screen"]), .none, "an empty $TMUX is no tmux")
    }
}
