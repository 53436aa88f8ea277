// SPDX-License-Identifier: Apache-2.0
import PasteboardCore

/// The ssh command line `pb ssh` runs: the user's arguments as given, after the options that forward this
/// pasteboardd's remote socket to the session's socket on the host (`ForwardedSocket`) and name the session to
/// the remote shell. ssh takes the first value it is given of an option, so these come first and win over an
/// ssh_config's; `SendEnv` adds to the config's list rather than replacing it.
public enum SSHForward {
    /// `ssh` and its arguments for a session named `session`, forwarding to `localSocket` (this user's
    /// `remote.sock`), passing `arguments` (options, host, command) through.
    public static func argv(passing arguments: [String], session: String, localSocket: String) -> [String] {
        ["ssh",
         // Without the forward pb on the host would find no pasteboard: better ssh says so and stops.
         "-o", "ExitOnForwardFailure=yes",
         "-o", "SendEnv=\(ForwardedSocket.sessionVariable)",
         "-o", "RemoteForward=\(quoted(ForwardedSocket.path(session: session))) \(quoted(localSocket))"]
            + arguments
    }

    /// A path as ssh_config reads a value: in double quotes, so that spaces and colons stay in it.
    static func quoted(_ path: String) -> String { "\"" + path + "\"" }
}
