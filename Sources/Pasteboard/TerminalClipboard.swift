// SPDX-License-Identifier: Apache-2.0
import PasteboardCore
import SystemSupport

/// The clipboard of the terminal in front of the user, through OSC 52 (`OSC52`): how text reaches the
/// user's clipboard from an SSH session, where there is no X display and no pasteboardd. The sequence
/// goes to the controlling terminal (`/dev/tty`), whatever standard output is, wrapped for tmux or screen
/// when `$TMUX` or `$STY` say pb runs inside one.
public enum TerminalClipboard {
    /// Whether there is a controlling terminal to write to.
    public static var isAvailable: Bool { ControllingTerminal.isAvailable }

    /// Asks the terminal to put `text` (UTF-8) on `selection`. Throws `.refused` when the text is over
    /// `OSC52.maximumBytes` (nothing is written) or there is no terminal. Whether the terminal honours the
    /// request, nobody can tell: terminals do not answer it.
    public static func copy(_ text: [UInt8], to selection: OSC52.Selection = .clipboard,
                            environment: [String: String] = Environment.all) throws(PasteboardError) {
        let bytes: [UInt8]
        do { bytes = try OSC52.sequence(for: text, selection: selection, multiplexer: OSC52.Multiplexer(environment: environment)) } catch {
            throw .refused("\(error); nothing was copied")
        }
        let terminal: FileDescriptor
        do { terminal = try ControllingTerminal.openForWriting() } catch {
            throw .refused("there is no terminal to copy through: OSC 52 needs pb to run in one")
        }
        defer { try? terminal.close() }
        do { try terminal.writeAll(bytes) } catch { throw .refused("cannot write to the terminal: \(error)") }
    }
}
