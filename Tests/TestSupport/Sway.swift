// SPDX-License-Identifier: Apache-2.0
import Foundation
import SystemSupport

/// A private headless Wayland compositor for one test suite: sway (wlroots) with the headless backend, no
/// input devices and the pixman renderer, in a runtime directory of its own. sway refuses to run as root, so
/// under root it runs as `nobody` (setpriv); its socket is reached by absolute path (`WAYLAND_DISPLAY` may be
/// one), which any user can connect to. Stopped by its PID.
public final class Sway: @unchecked Sendable {
    public private(set) var process: Process
    /// The compositor's socket: what `WAYLAND_DISPLAY` is set to.
    public private(set) var socket: String
    public let runtimeDirectory: String
    /// Whether sway runs XWayland (`xwayland enable`: started on the first X client's connection).
    public let xwayland: Bool

    /// Starts sway and waits (at most 10 s) until its socket exists. With `xwayland`, sway serves an XWayland
    /// display too (`xwaylandDisplay()`); without, `xwayland disable`.
    public convenience init(xwayland: Bool = false) throws {
        let directory = NSTemporaryDirectory() + "sway-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        let (process, socket) = try Self.start(in: directory, xwayland: xwayland)
        self.init(process: process, socket: socket, directory: directory, xwayland: xwayland)
    }

    private init(process: Process, socket: String, directory: String, xwayland: Bool) {
        self.process = process
        self.socket = socket
        runtimeDirectory = directory
        self.xwayland = xwayland
    }

    /// The XWayland display sway serves (as `DISPLAY` names it), reachable by this process: asked of sway through
    /// its IPC socket (`swaymsg exec`, which runs with sway's own `DISPLAY`), and — sway running as `nobody` under
    /// root — opened to this user with `xhost +si:localuser:` (XWayland wants a cookie from anyone else).
    public func xwaylandDisplay() throws -> String {
        guard xwayland else { throw FixtureError("this sway runs without XWayland") }
        guard let swaymsg = Tools.path(of: "swaymsg") else { throw FixtureError("swaymsg (sway) is not installed") }
        let file = runtimeDirectory + "/xwayland-display"
        let user = String(cString: getpwuid(getuid()).pointee.pw_name)
        // sway splits a command at `;`: the shell commands are a script of their own, run with sway's environment.
        let script = runtimeDirectory + "/xwayland-display.sh"
        try "xhost +si:localuser:\(user) >/dev/null 2>&1\necho \"$DISPLAY\" > \(file).part && mv \(file).part \(file)\n"
            .write(toFile: script, atomically: true, encoding: .utf8)
        chmod(script, 0o644)
        let command = "sh " + script
        let deadline = Date().addingTimeInterval(10)
        // The IPC socket comes a moment after the Wayland one: asked again until sway answers.
        var asked: RunResult?
        while asked?.status != 0 {
            guard Date() < deadline else {
                throw FixtureError("swaymsg exec failed: \(asked.map { $0.text + $0.stderr } ?? "no IPC socket")")
            }
            if let ipc = (try? FileManager.default.contentsOfDirectory(atPath: runtimeDirectory))?.first(where: { $0.hasPrefix("sway-ipc.") }) {
                asked = try Runner(environment: ["PATH": "/usr/bin:/bin"]).run(swaymsg, ["-s", runtimeDirectory + "/" + ipc, "exec", command], timeout: 10)
            }
            if asked?.status != 0 { usleep(50_000) }
        }
        while Date() < deadline {
            if let name = try? String(contentsOfFile: file, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines), !name.isEmpty {
                return name
            }
            usleep(20_000)
        }
        throw FixtureError("sway did not say its XWayland display within 10 s")
    }

    /// Kills sway (SIGKILL: a compositor that crashes) and starts it again in the same runtime directory, where
    /// it makes the same socket; returns once the socket is there.
    public func restart() throws {
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        for name in (try? FileManager.default.contentsOfDirectory(atPath: runtimeDirectory)) ?? [] where name.hasPrefix("wayland-") {
            try? FileManager.default.removeItem(atPath: runtimeDirectory + "/" + name)
        }
        (process, socket) = try Self.start(in: runtimeDirectory, xwayland: xwayland)
    }

    private static func start(in directory: String, xwayland: Bool) throws -> (Process, String) {
        guard let sway = Tools.path(of: "sway") else {
            throw FixtureError("sway is not installed (make test installs it: apt-get install sway)")
        }
        let config = directory + "/config"
        try ("output HEADLESS-1 resolution 640x480\nxwayland " + (xwayland ? "enable" : "disable") + "\n")
            .write(toFile: config, atomically: true, encoding: .utf8)
        let asRoot = getuid() == 0
        if asRoot {
            // nobody:nogroup owns the runtime directory and reads the config.
            chown(directory, 65534, 65534)
            chown(config, 65534, 65534)
        }
        let process = Process()
        let environment = ["HOME": directory, "XDG_RUNTIME_DIR": directory, "WLR_BACKENDS": "headless",
                           "WLR_LIBINPUT_NO_DEVICES": "1", "WLR_RENDERER": "pixman", "PATH": "/usr/bin:/bin"]
        if asRoot {
            guard let setpriv = Tools.path(of: "setpriv") else { throw FixtureError("setpriv (util-linux) is needed to run sway as nobody") }
            process.executableURL = URL(fileURLWithPath: setpriv)
            process.arguments = ["--reuid=65534", "--regid=65534", "--clear-groups", "--", sway, "-c", config]
        } else {
            process.executableURL = URL(fileURLWithPath: sway)
            process.arguments = ["-c", config]
        }
        process.environment = environment
        process.standardOutput = FileHandle(forWritingAtPath: "/dev/null")
        process.standardError = FileHandle(forWritingAtPath: "/dev/null")
        try process.run()
        let deadline = Date().addingTimeInterval(10)
        var found: String?
        while found == nil {
            guard process.isRunning else { throw FixtureError("sway exited with status \(process.terminationStatus) before making its socket") }
            guard Date() < deadline else {
                kill(process.processIdentifier, SIGTERM)
                throw FixtureError("sway made no socket within 10 s")
            }
            found = (try? FileManager.default.contentsOfDirectory(atPath: directory))?
                .first { $0.hasPrefix("wayland-") && !$0.hasSuffix(".lock") }
            if found == nil { _ = try? Poller.wait([], timeoutMilliseconds: 20) }
        }
        return (process, directory + "/" + found!)
    }

    /// Stops sway by its PID (SIGTERM; SIGKILL if it is still there 5 s later: a sway signalled while it starts
    /// may not have its handler yet) and waits for it; removes its runtime directory.
    public func stop() {
        if process.isRunning {
            kill(process.processIdentifier, SIGTERM)
            let deadline = Date().addingTimeInterval(5)
            while process.isRunning && Date() < deadline { usleep(10_000) }
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(atPath: runtimeDirectory)
    }

    deinit { stop() }
}
