// SPDX-License-Identifier: Apache-2.0
import Foundation
import SystemSupport

/// A peer program that takes commands and answers them as JSON, one object a line each way (the
/// real-application drivers in Tests/EndToEndTests/Peers). Its standard error goes to a file, for
/// failure messages; it is stopped by its PID.
public final class JSONLinePeer: @unchecked Sendable {
    public let process: Process
    public let errorsPath: String
    private let input: FileHandle
    private let output: LineReader

    /// Starts `executable` with `arguments` in `environment`, its standard error going to `errorsPath`.
    public init(_ executable: String, _ arguments: [String], environment: [String: String], errorsPath: String) throws {
        process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = environment
        let stdin = Pipe(), stdout = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        _ = FileManager.default.createFile(atPath: errorsPath, contents: nil)
        process.standardError = FileHandle(forWritingAtPath: errorsPath)
        self.errorsPath = errorsPath
        // A peer that exits must give our writes EPIPE, not kill the test process with SIGPIPE.
        try Signals.ignore(.pipe)
        try process.run()
        input = stdin.fileHandleForWriting
        output = LineReader(stdout.fileHandleForReading)
    }

    /// What the peer wrote to standard error, its last `lines` lines.
    public func errors(lines: Int = 30) -> String {
        let text = (try? String(contentsOfFile: errorsPath, encoding: .utf8)) ?? ""
        return text.split(separator: "\n", omittingEmptySubsequences: false).suffix(lines).joined(separator: "\n")
    }

    /// The next line the peer prints, as a JSON object; throws if none comes within `timeout` seconds
    /// or it is not an object.
    public func read(timeout: Double) throws -> [String: Any] {
        guard let line = try output.line(timeout: timeout) else {
            throw FixtureError("no answer within \(Int(timeout)) s (peer \(process.isRunning ? "running" : "exited")); its stderr:\n\(errors())")
        }
        guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
            throw FixtureError("not a JSON object: \(line)\nits stderr:\n\(errors())")
        }
        return object
    }

    /// Sends `command` as one JSON line and returns the answer (within `timeout` seconds).
    public func send(_ command: [String: Any], timeout: Double) throws -> [String: Any] {
        let line = try JSONSerialization.data(withJSONObject: command) + Data("\n".utf8)
        try FileDescriptor(rawValue: input.fileDescriptor).writeAll(Array(line))
        return try read(timeout: timeout)
    }

    /// Closes the peer's standard input (its cue to finish) and waits up to `timeout` seconds for it to
    /// exit; then SIGTERM, and SIGKILL 10 s later, by its PID. Returns its exit status.
    @discardableResult
    public func stop(timeout: Double = 60) -> Int32 {
        try? input.close()
        for (signal, wait) in [(Int32(0), timeout), (SIGTERM, 10), (SIGKILL, 10)] {
            if signal != 0 && process.isRunning { kill(process.processIdentifier, signal) }
            let deadline = Date().addingTimeInterval(wait)
            while process.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
            if !process.isRunning { break }
        }
        process.waitUntilExit()
        return process.terminationStatus
    }
}
