// SPDX-License-Identifier: Apache-2.0
import Foundation
import SystemSupport
import TestSupport
import XCTest

/// A test case with its own Xvfb, XDG directories and pasteboardd, shared by the tests of one class.
/// Tests that need X run in CI (`CI=true`) and fail there if X is missing; elsewhere they are skipped
/// with the reason only when Xvfb is not installed.
class DesktopTestCase: XCTestCase {
    nonisolated(unsafe) static var desktops: [ObjectIdentifier: Desktop] = [:]

    /// Whether this class's tests start pasteboardd.
    class var startsDaemon: Bool { true }

    var desktop: Desktop { Self.desktops[ObjectIdentifier(Self.self)]! }

    override func setUpWithError() throws {
        try super.setUpWithError()
        if Self.desktops[ObjectIdentifier(Self.self)] == nil {
            if Tools.path(of: "Xvfb") == nil && !Tools.isCI {
                throw XCTSkip(SkipLog.record(name, "Xvfb is not installed; `make test` installs it"))
            }
            let desktop = try Desktop()
            if Self.startsDaemon { try desktop.startDaemon() }
            Self.desktops[ObjectIdentifier(Self.self)] = desktop
        }
        if Self.startsDaemon && desktop.daemon?.isRunning != true {
            try desktop.startDaemon()
        }
    }

    override class func tearDown() {
        desktops.removeValue(forKey: ObjectIdentifier(self))?.stop()
        super.tearDown()
    }

    // MARK: Helpers

    /// Runs pb and asserts it succeeded.
    @discardableResult
    func pb(_ arguments: String..., input: [UInt8] = [], file: StaticString = #filePath, line: UInt = #line) throws -> RunResult {
        try pb(arguments, input: input, file: file, line: line)
    }

    @discardableResult
    func pb(_ arguments: [String], input: [UInt8] = [], file: StaticString = #filePath, line: UInt = #line) throws -> RunResult {
        let result = try desktop.runner.run(desktop.pb, arguments, input: input)
        XCTAssertEqual(result.status, 0, "pb \(arguments.joined(separator: " ")): \(result.stderr)", file: file, line: line)
        return result
    }

    func run(_ tool: String, _ arguments: [String], input: [UInt8] = [], timeout: Double = 30) throws -> RunResult {
        try desktop.runner.run(tool, arguments, input: input, timeout: timeout)
    }

    /// The changeCount `pb count` reports; throws when it reports none (a test never compares a count it
    /// could not read).
    func count(_ extra: String..., file: StaticString = #filePath, line: UInt = #line) throws -> UInt64 {
        let result = try desktop.runner.run(desktop.pb, ["count"] + extra)
        XCTAssertEqual(result.status, 0, result.stderr, file: file, line: line)
        return try XCTUnwrap(UInt64(result.text.trimmingCharacters(in: .whitespacesAndNewlines)),
                             "pb count printed \(result.text.debugDescription)", file: file, line: line)
    }

    /// The test requestor (python-xlib) with `arguments`, decoded from its JSON line.
    func requestor(_ arguments: String...) throws -> [String: Any] {
        let script = peer("requestor.py")
        let result = try run("/usr/bin/python3", [script] + arguments)
        XCTAssertEqual(result.status, 0, result.stderr)
        let object = try JSONSerialization.jsonObject(with: Data(result.stdout))
        return object as? [String: Any] ?? [:]
    }

    /// Waits until `condition` holds, checking every 20 ms, for at most `seconds`.
    func waitUntil(_ seconds: Double = 10, _ what: String, _ condition: () throws -> Bool) throws {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if try condition() { return }
            Thread.sleep(forTimeInterval: 0.02)
        }
        XCTFail("timed out after \(seconds) s waiting until \(what)")
    }

    /// Starts a foreground owner (e.g. `xclip -quiet`) and waits until the changeCount moved, i.e.
    /// until it owns the selection.
    func startOwner(_ tool: String, _ arguments: [String], input: [UInt8], countArguments: [String] = []) throws -> Process {
        let before = try desktop.runner.run(desktop.pb, ["count"] + countArguments).text
        let process = try desktop.runner.start(tool, arguments, stdin: input)
        try waitUntil(10, "\(tool) owns the selection") {
            try desktop.runner.run(desktop.pb, ["count"] + countArguments).text != before
        }
        return process
    }

    /// The path of a tool a test drives. Missing, it fails the test in CI (`make test` installs `package`)
    /// and skips it elsewhere, through the skip log.
    func requireTool(_ tool: String, package: String) throws -> String {
        if let path = Tools.path(of: tool) { return path }
        if Tools.isCI { throw FixtureError("\(tool) is not installed: `make test` must install \(package)") }
        throw XCTSkip(SkipLog.record(name, "\(tool) is not installed (Debian package \(package); `make test` installs it)"))
    }

    /// Starts pb with `arguments` in the background, its output collected; `environment` replaces the
    /// desktop's. Wait for it with `finish(_:)`.
    func startPB(_ arguments: [String], environment: [String: String]? = nil) throws -> BackgroundRun {
        try BackgroundRun(desktop.pb, arguments, environment: environment ?? desktop.environment)
    }

    /// Starts `executable` on the desktop with its standard output on a pipe (a watcher, a toolkit owner);
    /// stop it with `stop(_:)`.
    func startReading(_ executable: String, _ arguments: [String]) throws -> (Process, LineReader) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = desktop.environment
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        return (process, LineReader(output.fileHandleForReading))
    }

    /// A file of `size` bytes in the desktop's home, the same for the same `name` every run (`SeededGenerator`),
    /// and its bytes.
    func randomFile(_ size: Int, name: String) throws -> (path: String, data: [UInt8]) {
        var generator = SeededGenerator.forTest(name)
        var data = [UInt8](repeating: 0, count: size)
        data.withUnsafeMutableBytes { raw in
            let words = raw.bindMemory(to: UInt64.self)
            for i in words.indices { words[i] = generator.next() }
        }
        let path = desktop.home + "/" + name
        try Data(data).write(to: URL(fileURLWithPath: path))
        return (path, data)
    }

    /// A headless sway for a suite's Wayland tests: an error in CI or wherever sway is installed, a skip (through
    /// the skip log) where it is not.
    func startSway(xwayland: Bool = false) throws -> Sway {
        if xwayland { _ = try requireTool("Xwayland", package: "xwayland") }
        do { return try Sway(xwayland: xwayland) } catch {
            if Tools.isCI || Tools.path(of: "sway") != nil { throw error }
            throw XCTSkip(SkipLog.record(name, "\(error)"))
        }
    }

    func stop(_ process: Process) {
        if process.isRunning { kill(process.processIdentifier, SIGTERM) }
        process.waitUntilExit()
    }
}

extension Array where Element == UInt8 {
    init(_ string: String) { self = Array(string.utf8) }
}

/// A program started in the background with its standard output and error collected to files (so it never
/// blocks on a full pipe), waited for with a timeout and stopped by its PID if it overruns.
final class BackgroundRun {
    let process = Process()
    private let outputPath: String
    private let errorPath: String

    init(_ executable: String, _ arguments: [String], environment: [String: String]) throws {
        let base = NSTemporaryDirectory() + "pb-run-" + UUID().uuidString
        outputPath = base + ".out"
        errorPath = base + ".err"
        _ = FileManager.default.createFile(atPath: outputPath, contents: nil)
        _ = FileManager.default.createFile(atPath: errorPath, contents: nil)
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = environment
        process.standardInput = FileHandle(forReadingAtPath: "/dev/null")
        process.standardOutput = FileHandle(forWritingAtPath: outputPath)
        process.standardError = FileHandle(forWritingAtPath: errorPath)
        try process.run()
    }

    /// Waits at most `timeout` seconds for it to exit (then SIGKILL to its PID) and returns what it did.
    func finish(timeout: Double = 30) -> RunResult {
        let process = self.process
        let killer = DispatchWorkItem { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        DispatchQueue.global().asyncAfter(deadline: .now() + timeout, execute: killer)
        process.waitUntilExit()
        killer.cancel()
        defer {
            try? FileManager.default.removeItem(atPath: outputPath)
            try? FileManager.default.removeItem(atPath: errorPath)
        }
        let status = process.terminationReason == .uncaughtSignal ? -process.terminationStatus : process.terminationStatus
        return RunResult(status: status, stdout: Array((try? Data(contentsOf: URL(fileURLWithPath: outputPath))) ?? Data()),
                         stderr: (try? String(contentsOfFile: errorPath, encoding: .utf8)) ?? "")
    }
}

