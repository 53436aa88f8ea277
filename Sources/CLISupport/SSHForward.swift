// SPDX-License-Identifier: Apache-2.0
import PasteboardCore

/// The options of `pb ssh`'s ssh that forward this pasteboardd's remote socket to the session's socket on the
/// host (`ForwardedSocket`) and name the session to the remote shell; where the session goes through a master
/// connection, they are the master's (`SSHMaster`). ssh takes the first value it is given of an option, so these
/// come first and win over an ssh_config's; `SendEnv` adds to the config's list rather than replacing it.
public enum SSHForward {
    /// The options for a session named `session`, forwarding to `localSocket` (this user's `remote.sock`).
    public static func forwardOptions(session: String, localSocket: String) -> [String] {
        // Without the forward pb on the host would find no pasteboard: better ssh says so and stops.
        ["-o", "ExitOnForwardFailure=yes",
         "-o", "SendEnv=\(ForwardedSocket.sessionVariable)",
         "-o", "RemoteForward=\(quoted(ForwardedSocket.path(session: session))) \(quoted(localSocket))"]
    }

    /// `ssh`, `forwardOptions` and `arguments` as given: what `pb ssh` runs when it finds no host in them
    /// (`ssh -V`, a usage error of ssh's), with no master connection and nothing to clean up after.
    public static func argv(passing arguments: [String], session: String, localSocket: String) -> [String] {
        ["ssh"] + forwardOptions(session: session, localSocket: localSocket) + arguments
    }

    /// A path as ssh_config reads a value: in double quotes, so that spaces and colons stay in it.
    static func quoted(_ path: String) -> String { "\"" + path + "\"" }

    // MARK: - pb ssh --peer

    /// ssh's one-letter options that take a value (ssh(1)'s synopsis, OpenSSH 9): the value is attached (`-p22`)
    /// or the next argument.
    static let optionsWithValues: Set<Character> = Set("BbcDEeFIiJLlmOoPpQRSWw")

    /// `arguments` (as `pb ssh` takes them) cut into ssh's options, the host and the remote command; nil when no
    /// host is found.
    public static func split(_ arguments: [String]) -> (options: [String], host: String, command: [String])? {
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            if argument == "--" {
                guard index + 1 < arguments.count else { return nil }
                return (Array(arguments[..<index]), arguments[index + 1], Array(arguments[(index + 2)...]))
            }
            guard argument.hasPrefix("-"), argument.count > 1 else {
                return (Array(arguments[..<index]), argument, Array(arguments[(index + 1)...]))
            }
            // Flags may be grouped (-tA); the first that takes a value ends the group, its value attached or next.
            var takesNext = false
            for (offset, letter) in argument.dropFirst().enumerated() where optionsWithValues.contains(letter) {
                takesNext = offset == argument.count - 2
                break
            }
            index += takesNext ? 2 : 1
        }
        return nil
    }

    /// The command run on the host first, to learn where its pasteboardd's remote socket is: prints the host's
    /// runtime directory (as pasteboardd there finds it) and whether a socket is there.
    public static let runtimeQuery =
        #"d="${XDG_RUNTIME_DIR:-/run/user/$(id -u)}"; if [ -S "$d/pasteboard/remote.sock" ]; then echo "socket $d/pasteboard/remote.sock"; else echo "none $d/pasteboard/remote.sock"; fi"#

    /// What the host answered `runtimeQuery`: its remote socket's path, or why peering cannot be set up.
    public static func remoteSocket(fromQueryOutput output: String) -> Result<String, UsageError> {
        let line = output.split(separator: "\n").last.map(String.init) ?? ""
        if line.hasPrefix("socket /") { return .success(String(line.dropFirst("socket ".count))) }
        if line.hasPrefix("none /") {
            return .failure(UsageError("no pasteboardd listens on the host (\(line.dropFirst("none ".count)) is not a socket): start pasteboardd there first", command: "ssh"))
        }
        return .failure(UsageError("the host did not say where its pasteboardd listens (got '\(line.prefix(200))')", command: "ssh"))
    }

}
