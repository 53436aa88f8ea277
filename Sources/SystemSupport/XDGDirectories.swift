// SPDX-License-Identifier: Apache-2.0
/// Where pasteboard keeps its socket, its state and its configuration, following the XDG Base
/// Directory specification, computed from an environment dictionary so tests can isolate it.
///
/// - runtime: `$XDG_RUNTIME_DIR/pasteboard`, or when that is unset (or not absolute)
///   `/tmp/pasteboard-<uid>`. Either directory must be a real directory owned by us with no group or
///   world access; `createRuntime()` makes it 0700 and refuses anything else.
/// - state: `$XDG_STATE_HOME/pasteboard`, else `$HOME/.local/state/pasteboard`.
/// - config: `$XDG_CONFIG_HOME/pasteboard`, else `$HOME/.config/pasteboard`.
///
/// Relative values of the `XDG_*` variables are ignored, as the specification requires.
public struct XDGDirectories: Hashable, Sendable {
    public var environment: [String: String]
    public var userID: UInt32
    /// Where the runtime fallback lives; `/tmp` except in tests.
    public var fallbackBase: String

    /// The name of our subdirectory in each base directory.
    public static let applicationName = "pasteboard"

    public init(environment: [String: String], userID: UInt32 = ProcessIdentity.userID, fallbackBase: String = "/tmp") {
        self.environment = environment
        self.userID = userID
        self.fallbackBase = fallbackBase
    }

    /// The runtime directory's path (nothing is created): sockets live here.
    public var runtime: String {
        if let base = absolute("XDG_RUNTIME_DIR") { return base + "/" + Self.applicationName }
        return runtimeFallback
    }

    /// `/tmp/pasteboard-<uid>`: the runtime directory when `$XDG_RUNTIME_DIR` is unset.
    public var runtimeFallback: String {
        "\(fallbackBase)/\(Self.applicationName)-\(userID)"
    }

    /// Whether `runtime` is the `/tmp` fallback.
    public var usesRuntimeFallback: Bool { absolute("XDG_RUNTIME_DIR") == nil }

    /// The state directory's path (history, persistent pasteboards).
    public var state: String {
        get throws {
            if let base = absolute("XDG_STATE_HOME") { return base + "/" + Self.applicationName }
            return try home() + "/.local/state/" + Self.applicationName
        }
    }

    /// The configuration directory's path (`config.json`).
    public var config: String {
        get throws {
            if let base = absolute("XDG_CONFIG_HOME") { return base + "/" + Self.applicationName }
            return try home() + "/.config/" + Self.applicationName
        }
    }

    /// The control socket's path: `<runtime>/control.sock`.
    public var controlSocket: String { runtime + "/control.sock" }

    /// The remote socket's path, the one meant to be forwarded over SSH: `<runtime>/remote.sock`.
    public var remoteSocket: String { runtime + "/remote.sock" }

    /// Creates the runtime directory (0700) if needed and checks that it is safe to use: a directory,
    /// not a symbolic link, owned by `userID`, with no group or world permission bits. Anything else
    /// throws `SystemError.unsafeDirectory`, since another user could then reach our socket or plant
    /// one. Returns the path.
    ///
    /// The corresponding C functions are `mkdir(2)` and `lstat(2)`.
    @discardableResult
    public func createRuntime() throws -> String {
        let path = runtime
        // Only the last component is created: $XDG_RUNTIME_DIR itself belongs to systemd-logind, and
        // /tmp must already exist. An existing entry is checked below rather than trusted.
        do {
            try FileSystem.createDirectory(path, mode: .ownerAll)
        } catch Errno.Code.fileExists {}
        let status = try FileSystem.status(path, followSymbolicLinks: false)
        guard status.kind == .directory else {
            throw SystemError.unsafeDirectory(path: path, reason: "it is not a directory (\(status.kind))")
        }
        guard status.ownerID == userID else {
            throw SystemError.unsafeDirectory(path: path, reason: "it is owned by uid \(status.ownerID), not \(userID)")
        }
        guard status.permissions.rawValue & 0o077 == 0 else {
            throw SystemError.unsafeDirectory(path: path, reason: "its mode \(status.permissions) lets others in; it must be 0700")
        }
        return path
    }

    /// Creates the state directory and its missing parents (0700). Returns the path.
    @discardableResult
    public func createState() throws -> String {
        let path = try state
        try FileSystem.createDirectory(path, mode: .ownerAll, intermediate: true)
        return path
    }

    private func absolute(_ name: String) -> String? {
        guard let value = environment[name], value.hasPrefix("/") else { return nil }
        var trimmed = Substring(value)
        while trimmed.count > 1 && trimmed.hasSuffix("/") { trimmed = trimmed.dropLast() }
        return trimmed == "/" ? "" : String(trimmed)
    }

    private func home() throws -> String {
        guard let home = absolute("HOME") else { throw SystemError.missingEnvironment(name: "HOME") }
        return home
    }
}
