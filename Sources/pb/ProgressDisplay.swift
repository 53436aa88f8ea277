// SPDX-License-Identifier: Apache-2.0
import CLISupport
import SystemSupport

/// Draws a transfer's `ProgressMeter` on standard error: the I/O around the pure meter. Only when standard
/// error is a terminal (`start` gives nil otherwise: nothing is ever drawn into a file or a pipe), never on
/// standard output.
final class ProgressDisplay {
    private var meter = ProgressMeter()
    private let clock: any MonotonicClock
    private let started: MonotonicInstant
    private var bytes = 0
    private var total: Int?
    private let write: (String) -> Void

    /// The display drawing now, if any: `Output.error` ends its line first, so a message never lands inside it.
    nonisolated(unsafe) static var active: ProgressDisplay?

    init(clock: any MonotonicClock = SystemClock(), write: @escaping (String) -> Void) {
        self.clock = clock
        self.write = write
        started = clock.now()
    }

    /// A display for a transfer that starts now, when standard error is a terminal; nil otherwise.
    static func start() -> ProgressDisplay? {
        guard FileDescriptor.standardError.isTerminal else { return nil }
        let display = ProgressDisplay { try? FileDescriptor.standardError.writeAll(Array($0.utf8)) }
        active = display
        return display
    }

    /// `done` bytes of `total` so far: redrawn if the meter says so.
    func update(_ done: Int, _ total: Int?) {
        bytes = done
        self.total = total
        if let text = meter.update(bytes: done, total: total, elapsed: clock.now() - started) { write(text) }
    }

    /// Ends the line, if one was drawn (with the last figures); then draws nothing more.
    func finish() {
        if let text = meter.finish(bytes: bytes, total: total, elapsed: clock.now() - started) { write(text) }
        if ProgressDisplay.active === self { ProgressDisplay.active = nil }
    }
}
