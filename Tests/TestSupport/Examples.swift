// SPDX-License-Identifier: Apache-2.0
import Foundation

/// The example programs of docs/examples: a package of their own that depends on this one by path, built the way
/// a user's program is (`swift build --package-path docs/examples`), into `.build/examples` so that neither this
/// package's build nor a `.build` inside docs/examples is touched. Built at most once per test process; tests in
/// other processes at the same time wait on SwiftPM's lock of that directory, then find it built.
public enum Examples {
    /// The checkout's root (this file is Tests/TestSupport/Examples.swift).
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path

    nonisolated(unsafe) private static var built: Result<String, FixtureError>?
    private static let lock = NSLock()

    /// The path of the example program `name`, building the examples package first if this process has not.
    /// Throws with SwiftPM's output when the package does not build: an example that no longer compiles
    /// against the library is a failure, never a skip.
    public static func program(_ name: String) throws -> String {
        lock.lock()
        defer { lock.unlock() }
        if built == nil { built = build() }
        return try built!.get() + "/" + name
    }

    private static func build() -> Result<String, FixtureError> {
        let scratch = root + "/.build/examples"
        let swift = ProcessInfo.processInfo.environment["SWIFT"].flatMap { $0.isEmpty ? nil : $0 } ?? "swift"
        // The build plan is made again each time: a plan cached in the examples' scratch directory once missed a
        // target this package's manifest had gained since (a new C door: "no such module"), and the plan of a
        // package this small costs a second or two.
        let arguments = ["build", "--package-path", root + "/docs/examples", "--scratch-path", scratch,
                         "--disable-build-manifest-caching"]
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [swift] + arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        do { try process.run() } catch { return .failure(FixtureError("could not run \(swift): \(error)")) }
        let log = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            return .failure(FixtureError("\(swift) \(arguments.joined(separator: " ")) failed:\n\(log.suffix(4000))"))
        }
        return .success(scratch + "/debug")
    }
}
