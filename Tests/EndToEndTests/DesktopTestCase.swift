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

    func stop(_ process: Process) {
        if process.isRunning { kill(process.processIdentifier, SIGTERM) }
        process.waitUntilExit()
    }
}

extension Array where Element == UInt8 {
    init(_ string: String) { self = Array(string.utf8) }
}
