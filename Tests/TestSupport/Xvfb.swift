// SPDX-License-Identifier: Apache-2.0
import Foundation
import SystemSupport

/// Errors from the test fixtures, with what was being attempted.
public struct FixtureError: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// A private X server for one test suite: `Xvfb -displayfd` (or a nested `Xephyr -displayfd`) picks a free
/// display and tells us which; it listens on no TCP port and is stopped by its PID.
public final class Xvfb: @unchecked Sendable {
    public let display: String
    public let process: Process

    /// Starts Xvfb and waits (at most 10 s) until it reports its display number.
    public convenience init(extraArguments: [String] = []) throws {
        try self.init(server: "Xvfb", package: "xvfb", arguments: ["-screen", "0", "640x480x24"] + extraArguments)
    }

    /// Starts Xephyr — a nested X server, as users run one inside their session — in a window on `parent`.
    public static func nestedXephyr(on parent: String) throws -> Xvfb {
        try Xvfb(server: "Xephyr", package: "xserver-xephyr", arguments: ["-screen", "320x240"], environment: ["DISPLAY": parent])
    }

    private init(server: String, package: String, arguments: [String], environment: [String: String] = [:]) throws {
        guard let executable = Tools.path(of: server) else {
            throw FixtureError("\(server) is not installed (make test installs it: apt-get install \(package))")
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        if !environment.isEmpty { process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 } }
        // -noreset: without it the server resets whenever its last client leaves, dropping atoms and root
        // properties and refusing some connections made meanwhile.
        process.arguments = ["-displayfd", "1", "-nolisten", "tcp", "-noreset"] + arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle(forWritingAtPath: "/dev/null")
        try process.run()
        self.process = process
        let fd = FileDescriptor(rawValue: output.fileHandleForReading.fileDescriptor)
        var received: [UInt8] = []
        let deadline = SystemClock().now() + .seconds(10)
        while !received.contains(0x0A) {
            let now = SystemClock().now()
            guard now < deadline else {
                process.terminate()
                throw FixtureError("\(server) did not report a display within 10 s")
            }
            _ = try Poller.wait([PollRequest(fd, .readable)], timeoutMilliseconds: now.millisecondsUntil(deadline))
            var buffer = [UInt8](repeating: 0, count: 64)
            let n = try buffer.withUnsafeMutableBytes { try fd.read(into: $0) }
            if n == 0 { throw FixtureError("\(server) exited before reporting a display") }
            received += buffer[0..<n]
        }
        let number = String(decoding: received, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        display = ":" + number
    }

    /// Stops the server by its PID and waits for it.
    public func stop() {
        if process.isRunning {
            kill(process.processIdentifier, SIGTERM)
            process.waitUntilExit()
        }
    }

    deinit { stop() }
}

/// Where the tools the tests drive live.
public enum Tools {
    /// The absolute path of `name` on `$PATH`, or nil.
    public static func path(of name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for directory in path.split(separator: ":") {
            let candidate = "\(directory)/\(name)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }

    /// The directory holding the built `pb` and `pasteboardd`: `$PASTEBOARD_BIN_DIR`, else the package's
    /// `.build/debug`.
    public static var buildDirectory: String {
        if let dir = ProcessInfo.processInfo.environment["PASTEBOARD_BIN_DIR"], !dir.isEmpty { return dir }
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        return root.appendingPathComponent(".build/debug").path
    }

    /// True when running in CI, where a test that needs X must run and never skip.
    public static var isCI: Bool { ProcessInfo.processInfo.environment["CI"] == "true" }
}
