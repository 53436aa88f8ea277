// SPDX-License-Identifier: Apache-2.0
import PasteboardCore
import XCTest

/// The history picker's lines and what a menu's output chooses.
final class HistoryMenuTests: XCTestCase {
    let now: Int64 = 1_800_000_000

    func testLinesAreNumberedNewestFirstWithAgeAndASafePreview() {
        let lines = HistoryMenu.lines([
            .init(index: 0, time: now - 5, preview: "hello"),
            .init(index: 1, time: now - 600, preview: "3 files: a.txt, b.txt, c"),
            .init(index: 2, time: now - 7200, preview: "image/png 1920×1080"),
            .init(index: 3, time: now - 3 * 86_400, preview: "evil\u{1B}]52;c;AAAA\u{07}\nnext\u{202E}line"),
        ], now: now)
        XCTAssertEqual(lines, [
            "0  5 s ago  hello",
            "1  10 min ago  3 files: a.txt, b.txt, c",
            "2  2 h ago  image/png 1920×1080",
            "3  3 d ago  evil ]52;c;AAAA  next line",
        ])
        let long = HistoryMenu.lines([.init(index: 0, time: now + 30, preview: String(repeating: "x", count: 500))], now: now)[0]
        XCTAssertEqual(long, "0  now  " + String(repeating: "x", count: HistoryMenu.maximumPreviewLength) + "…", "bounded; a future time is now")
    }

    func testWhoCopiedIsShownBeforeThePreview() throws {
        let lines = HistoryMenu.lines([.init(index: 0, time: now - 5, preview: "hello", source: "Gedit"),
                                       .init(index: 1, time: now - 5, preview: "x", source: "evil\nname"),
                                       .init(index: 2, time: now - 5, preview: "y")], now: now)
        XCTAssertEqual(lines, ["0  5 s ago  (Gedit)  hello", "1  5 s ago  (evil name)  x", "2  5 s ago  y"])
        XCTAssertEqual(try HistoryMenu.choice(output: Array("0  5 s ago  (Gedit)  hello\n".utf8), lines: lines), 0)
    }

    func testTheMenusOutputMustBeExactlyOneOfTheLines() {
        let lines = ["0  5 s ago  hello", "1  1 min ago  world", "2  1 min ago  hello"]
        XCTAssertEqual(try HistoryMenu.choice(output: Array("1  1 min ago  world\n".utf8), lines: lines), 1)
        XCTAssertEqual(try HistoryMenu.choice(output: Array("  2  1 min ago  hello  \r\n".utf8), lines: lines), 2, "spaces and CRLF forgiven")
        let refused: [(String, HistoryMenu.ChoiceError)] = [
            ("", .nothingChosen),
            ("\n\n", .nothingChosen),
            ("hello\n", .notAnEntry),
            ("1  1 min ago  worl\n", .notAnEntry),
            ("9  1 min ago  world\n", .notAnEntry),
            ("0  5 s ago  hello\n1  1 min ago  world\n", .severalLines(2)),
        ]
        for (output, expected) in refused {
            XCTAssertThrowsError(try HistoryMenu.choice(output: Array(output.utf8), lines: lines), output) {
                XCTAssertEqual($0 as? HistoryMenu.ChoiceError, expected, output)
            }
        }
        let flood = [UInt8](repeating: 0x41, count: HistoryMenu.maximumOutputBytes + 1)
        XCTAssertThrowsError(try HistoryMenu.choice(output: flood, lines: lines)) {
            XCTAssertEqual($0 as? HistoryMenu.ChoiceError, .tooLong(flood.count))
        }
    }

    func testAutoPicksRofiThenDmenuThenFzfInATerminal() {
        func auto(_ installed: Set<String>, display: Bool, terminal: Bool) -> String? {
            HistoryMenu.command(for: .auto, isInstalled: installed.contains, hasDisplay: display, hasTerminal: terminal)?.first
        }
        XCTAssertEqual(auto(["rofi", "dmenu", "fzf"], display: true, terminal: true), "rofi")
        XCTAssertEqual(auto(["dmenu", "fzf"], display: true, terminal: true), "dmenu")
        XCTAssertEqual(auto(["fzf"], display: true, terminal: true), "fzf")
        XCTAssertEqual(auto(["rofi", "dmenu", "fzf"], display: false, terminal: true), "fzf", "over SSH: no display")
        XCTAssertNil(auto(["fzf"], display: true, terminal: false), "fzf has nowhere to draw")
        XCTAssertNil(auto([], display: true, terminal: true))
        XCTAssertEqual(HistoryMenu.command(for: .command("fzf --filter x"), isInstalled: { _ in false }, hasDisplay: false, hasTerminal: false),
                       ["/bin/sh", "-c", "fzf --filter x"])
    }
}
