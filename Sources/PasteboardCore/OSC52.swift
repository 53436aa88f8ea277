// SPDX-License-Identifier: Apache-2.0
import RichText

/// The terminal's clipboard escape, OSC 52 (`ESC ] 52 ; c ; BASE64 BEL`): a program in a terminal — over
/// SSH, with no X display and no pasteboardd — asks the terminal in front of the user to put text on that
/// machine's clipboard, as tmux, Neovim and many tools do. xterm (with `allowWindowOps`), kitty, Alacritty,
/// foot, WezTerm, iTerm2 and Windows Terminal honour it.
///
/// Inside tmux or GNU screen the sequence is wrapped for passthrough to the terminal outside: tmux's
/// `ESC P tmux; … ESC \` with every ESC inside doubled (tmux 3.3 and later pass it on with
/// `set -g allow-passthrough on`), screen's `ESC P … ESC \` in pieces of at most 76 bytes, since screen
/// keeps at most 768 bytes of one string.
public enum OSC52 {
    /// Which selection the terminal sets: `c` (CLIPBOARD) or `p` (PRIMARY).
    public enum Selection: String, Sendable {
        case clipboard = "c"
        case primary = "p"
    }

    /// What the terminal runs inside, from the environment.
    public enum Multiplexer: Equatable, Sendable {
        case none, tmux, screen

        /// tmux sets `$TMUX`, screen sets `$STY` in the shells it starts.
        public init(environment: [String: String]) {
            if let tmux = environment["TMUX"], !tmux.isEmpty {
                self = .tmux
            } else if let sty = environment["STY"], !sty.isEmpty {
                self = .screen
            } else {
                self = .none
            }
        }
    }

    /// The most base64 characters one sequence carries: what terminals accept (hterm and many others stop
    /// at 100000; tmux, vim-oscyank and Neovim's clipboard provider use the same bound).
    public static let maximumEncodedLength = 100_000
    /// The most bytes of text one copy through the terminal carries: 75000, which base64 makes 100000.
    public static let maximumBytes = maximumEncodedLength / 4 * 3

    /// Text over `maximumBytes`.
    public struct TooLarge: Error, Equatable, Sendable, CustomStringConvertible {
        public var byteCount: Int
        public var description: String {
            "\(byteCount) bytes is more than a terminal takes through OSC 52 (\(OSC52.maximumBytes) bytes, "
                + "\(OSC52.maximumEncodedLength) base64 characters)"
        }
    }

    /// The bytes to write to the terminal to put `text` on `selection`.
    public static func sequence(for text: [UInt8], selection: Selection = .clipboard,
                                multiplexer: Multiplexer = .none) throws(TooLarge) -> [UInt8] {
        guard text.count <= maximumBytes else { throw TooLarge(byteCount: text.count) }
        let escape: UInt8 = 0x1B
        let osc = [escape] + Array("]52;\(selection.rawValue);".utf8) + Base64.encodedBytes(text) + [0x07]
        let stringTerminator: [UInt8] = [escape, UInt8(ascii: "\\")]
        switch multiplexer {
        case .none:
            return osc
        case .tmux:
            return [escape] + Array("Ptmux;".utf8) + osc.flatMap { $0 == escape ? [escape, escape] : [$0] } + stringTerminator
        case .screen:
            var wrapped: [UInt8] = []
            var start = 0
            while start < osc.count {
                let end = min(start + 76, osc.count)
                wrapped += [escape, UInt8(ascii: "P")] + osc[start..<end] + stringTerminator
                start = end
            }
            return wrapped
        }
    }
}
