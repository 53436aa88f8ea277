// SPDX-License-Identifier: Apache-2.0
import CLISupport
import Pasteboard
import SystemSupport

/// `pb copy --osc52`, and `pb copy` where there is no pasteboardd and no display but a terminal (an SSH
/// session): the terminal in front of the user is asked to copy the text (OSC 52).
extension Runner {
    func copyThroughTerminal(_ request: CopyRequest) -> ExitCode {
        var text: [UInt8]
        do {
            // Two bytes over the limit are read, for a newline -n may drop.
            text = try request.text.map { Array($0.utf8) } ?? FileDescriptor.standardInput.readToEnd(limit: OSC52.maximumBytes + 2)
        } catch SystemError.limitExceeded {
            return fail("standard input is more than a terminal takes through OSC 52 (\(OSC52.maximumBytes) bytes, "
                        + "\(OSC52.maximumEncodedLength) base64 characters); nothing was copied")
        } catch {
            return fail("cannot read the data to copy: \(error)")
        }
        if request.trimNewline { text = trimmingOneNewline(text) }
        return copyThroughTerminal(text, pasteboard: request.pasteboard)
    }

    func copyThroughTerminal(_ text: [UInt8], pasteboard: PasteboardName) -> ExitCode {
        do {
            try TerminalClipboard.copy(text, to: pasteboard == .primary ? .primary : .clipboard)
            return .success
        } catch {
            return fail("\(error)")
        }
    }

    /// Whether a copy pasteboardd could not take goes to the terminal instead: no display to serve it on, X or
    /// Wayland (the daemon's absence is the caller's finding: on a desktop, the user must hear how to start it),
    /// a terminal to ask, and nothing OSC 52 cannot carry.
    func terminalTakes(_ request: CopyRequest) -> Bool {
        (Environment.value("DISPLAY") ?? "").isEmpty && (Environment.value("WAYLAND_DISPLAY") ?? "").isEmpty
            && (request.pasteboard == .general || request.pasteboard == .primary)
            && !request.sensitive && !request.pasteOnce && request.expiresAfterMilliseconds == nil && !request.localOnly
            && TerminalClipboard.isAvailable
    }
}
