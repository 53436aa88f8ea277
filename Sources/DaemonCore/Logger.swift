// SPDX-License-Identifier: Apache-2.0
import SystemSupport

/// The daemon's log: one line per event that matters, to standard error, never clipboard content.
///
/// When standard error is the journal (`$JOURNAL_STREAM` matches it), each line carries an sd-daemon
/// `<N>` priority prefix so journald files it at the right level.
public final class Logger {
    public enum Level: Int, Comparable, Sendable {
        case error = 3, warning = 4, notice = 5, info = 6, debug = 7
        public static func < (a: Level, b: Level) -> Bool { a.rawValue < b.rawValue }
    }

    private let prefixPriorities: Bool
    public var threshold: Level
    private var suppressed: [String: Int] = [:]
    private let write: (String) -> Void

    public init(environment: [String: String], verbose: Bool) {
        prefixPriorities = Journal.stderrIsJournal(environment: environment)
        threshold = verbose ? .debug : .info
        write = { line in try? FileDescriptor.standardError.writeAll(Array(line.utf8)) }
    }

    /// A log whose lines (each ending in a newline, with the `pasteboardd: ` prefix) go to `sink`: for tests.
    public init(threshold: Level = .debug, sink: @escaping (String) -> Void) {
        prefixPriorities = false
        self.threshold = threshold
        write = sink
    }

    public func log(_ level: Level, _ message: String) {
        guard level <= threshold else { return }
        write((prefixPriorities ? "<\(level.rawValue)>" : "pasteboardd: ") + message + "\n")
    }

    public func error(_ message: String) { log(.error, message) }
    public func warning(_ message: String) { log(.warning, message) }
    public func notice(_ message: String) { log(.notice, message) }
    public func info(_ message: String) { log(.info, message) }
    /// The message is made only when debug lines are written (`--verbose`): a line per request costs nothing otherwise.
    public func debug(_ message: @autoclosure () -> String) {
        guard threshold >= .debug else { return }
        log(.debug, message())
    }

    /// Logs the first few occurrences of a recurring event (keyed by `key`), then one line per
    /// thousand, so that a hostile peer cannot flood the journal.
    public func limited(_ level: Level, key: String, _ message: @autoclosure () -> String) {
        let n = suppressed[key, default: 0] + 1
        suppressed[key] = n
        if n <= 5 {
            log(level, message() + (n == 5 ? " (further occurrences summarised)" : ""))
        } else if n % 1000 == 0 {
            log(level, message() + " (\(n) occurrences so far)")
        }
    }
}
