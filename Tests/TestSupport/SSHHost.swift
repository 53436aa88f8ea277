// SPDX-License-Identifier: Apache-2.0
import Foundation
import SystemSupport

/// A second "host" for the SSH tests, reached with the real OpenSSH client and server: sshd runs once per
/// connection (`sshd -i`, as inetd would) in a network namespace of its own with only a loopback, started by
/// ssh itself through `ProxyCommand` — no TCP port anywhere. A throwaway host key and user key are made per
/// fixture; the "remote" user has a HOME and `XDG_RUNTIME_DIR` of its own (sshd's `SetEnv`) and no display.
/// `ssh -F config remote …` (`sshArguments`) reaches it; so does `pb ssh` with the same arguments.
///
/// Needs root (the namespace, and sshd -i logging in as root) and `/run/sshd` (sshd's privilege-separation
/// directory: made here when missing). Stop it with `stop()`: it removes the namespace it made and its files.
public final class SSHHost: @unchecked Sendable {
    public let directory: String
    /// The remote user's HOME and runtime directory.
    public let home: String
    public var runtime: String { home + "/runtime" }
    public let namespace: String
    public var configPath: String { directory + "/ssh_config" }
    /// What ssh (or `pb ssh`) takes before a command: the config naming the host, and the host.
    public var sshArguments: [String] { ["-F", configPath, "remote"] }

    /// - Parameters:
    ///   - programs: names and paths of programs put first in PATH on the host, as links (pb, pbcopy, pbpaste).
    ///   - path: the rest of PATH on the host.
    ///   - acceptsLocaleVariables: sshd passes on `LANG` and `LC_*` from the client, as Debian's stock sshd does
    ///     (`AcceptEnv LANG LC_*`); false, as upstream's default, passes on none.
    ///   - allowsForwarding: sshd allows Unix-socket forwarding (9.2 needs `AllowTcpForwarding yes` for it too).
    public init(programs: [String: String], path: String = "/usr/local/bin:/usr/bin:/bin", acceptsLocaleVariables: Bool = true,
                allowsForwarding: Bool = true) throws {
        directory = NSTemporaryDirectory() + "pb-ssh-" + UUID().uuidString.prefix(8).lowercased()
        home = directory + "/remote-home"
        namespace = "pbtest-" + UUID().uuidString.prefix(8).lowercased()
        for sub in [directory, home, home + "/runtime", directory + "/bin"] {
            try FileManager.default.createDirectory(atPath: sub, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        }
        for (name, target) in programs {
            try FileManager.default.createSymbolicLink(atPath: directory + "/bin/" + name, withDestinationPath: target)
        }
        try FileManager.default.createDirectory(atPath: "/run/sshd", withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        let runner = Runner(environment: ProcessInfo.processInfo.environment)
        for key in ["hostkey", "userkey"] {
            let made = try runner.run("/usr/bin/ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-C", "pb-test", "-f", directory + "/" + key])
            guard made.status == 0 else { throw FixtureError("ssh-keygen: \(made.stderr)") }
        }
        try FileManager.default.copyItem(atPath: directory + "/userkey.pub", toPath: directory + "/authorized_keys")
        let hostKey = try String(contentsOfFile: directory + "/hostkey.pub", encoding: .utf8).split(separator: " ").prefix(2).joined(separator: " ")
        try "remote \(hostKey)\n".write(toFile: directory + "/known_hosts", atomically: true, encoding: .utf8)
        let forwarding = allowsForwarding ? "yes" : "no"
        try """
            HostKey \(directory)/hostkey
            AuthorizedKeysFile \(directory)/authorized_keys
            PermitRootLogin yes
            StrictModes no
            UsePAM no
            AllowTcpForwarding \(forwarding)
            AllowStreamLocalForwarding \(forwarding)
            \(acceptsLocaleVariables ? "AcceptEnv LANG LC_*" : "")
            SetEnv HOME=\(home) XDG_RUNTIME_DIR=\(home)/runtime PATH=\(directory)/bin:\(path)
            PidFile none
            PrintMotd no
            PrintLastLog no
            LogLevel ERROR

            """.write(toFile: directory + "/sshd_config", atomically: true, encoding: .utf8)
        try """
            Host remote
              ProxyCommand /usr/sbin/ip netns exec \(namespace) /usr/sbin/sshd -i -f \(directory)/sshd_config -E \(directory)/sshd.log
              User root
              IdentityFile \(directory)/userkey
              IdentitiesOnly yes
              UserKnownHostsFile \(directory)/known_hosts
              StrictHostKeyChecking yes
              BatchMode yes
              LogLevel ERROR

            """.write(toFile: configPath, atomically: true, encoding: .utf8)
        let added = try runner.run("/usr/sbin/ip", ["netns", "add", namespace])
        guard added.status == 0 else { throw FixtureError("ip netns add \(namespace): \(added.stderr)") }
        _ = try runner.run("/usr/sbin/ip", ["netns", "exec", namespace, "/usr/sbin/ip", "link", "set", "lo", "up"])
    }

    /// What sshd logged (errors only).
    public var log: String { (try? String(contentsOfFile: directory + "/sshd.log", encoding: .utf8)) ?? "" }

    public func stop() {
        _ = try? Runner(environment: ProcessInfo.processInfo.environment).run("/usr/sbin/ip", ["netns", "delete", namespace])
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Why the tests cannot run here, or nil when they can: root, sshd, ssh and ip are needed.
    public static var missing: String? {
        if getuid() != 0 { return "the SSH tests run sshd and make a network namespace: they need root" }
        for tool in ["/usr/sbin/sshd", "/usr/bin/ssh", "/usr/bin/ssh-keygen", "/usr/sbin/ip"] where !FileManager.default.isExecutableFile(atPath: tool) {
            return "\(tool) is not installed (openssh-server, openssh-client, iproute2; `make test` installs them)"
        }
        return nil
    }
}
