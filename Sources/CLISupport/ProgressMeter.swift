// SPDX-License-Identifier: Apache-2.0

/// What `pb copy` and `pb paste` draw on standard error, when it is a terminal, while a large transfer goes:
/// one line, rewritten in place (`\r`, then erase to the end of the line), with the bytes so far, of the total
/// when it is known, and the rate. Nothing at all for a transfer that ends within `delay`; after that at most
/// one redraw per `interval`, and a last one ended with a newline when the transfer ends.
///
/// A value without I/O or clock: the caller tells it the time since the transfer began (its own clock, a test's
/// numbers) and writes what it returns.
public struct ProgressMeter: Sendable {
    /// How long a transfer goes before anything is drawn.
    public static let delay: Duration = .seconds(1)
    /// The least time between two redraws (at most 10 a second).
    public static let interval: Duration = .milliseconds(100)

    /// When the line was last drawn (time since the start), nil while nothing was.
    private var lastDrawn: Duration?

    public init() {}

    /// Whether anything was drawn (and so the line must be ended).
    public var hasDrawn: Bool { lastDrawn != nil }

    /// What to write for `bytes` done of `total` (nil: unknown) at `elapsed` since the start: the line, rewritten,
    /// once `delay` has passed and `interval` has passed since the last redraw; nil otherwise.
    public mutating func update(bytes: Int, total: Int?, elapsed: Duration) -> String? {
        guard elapsed >= Self.delay else { return nil }
        if let lastDrawn, elapsed - lastDrawn < Self.interval { return nil }
        lastDrawn = elapsed
        return "\r" + Self.line(bytes: bytes, total: total, elapsed: elapsed) + Self.eraseToEndOfLine
    }

    /// What to write when the transfer ends (or fails, before its message): the line with the last figures
    /// and a newline, if anything was drawn; nil if nothing was (a short transfer leaves no trace).
    public mutating func finish(bytes: Int, total: Int?, elapsed: Duration) -> String? {
        guard hasDrawn else { return nil }
        lastDrawn = nil
        return "\r" + Self.line(bytes: bytes, total: total, elapsed: elapsed) + Self.eraseToEndOfLine + "\n"
    }

    /// ECMA-48's EL (erase in line, to its end): what a shorter line leaves of a longer one is cleared.
    static let eraseToEndOfLine = "\u{1B}[K"

    /// The figures: "12.0 MiB of 64.0 MiB (18 %), 8.0 MiB/s", or "12.0 MiB, 8.0 MiB/s" with no total. The
    /// rate is the mean since the start; none before any time has passed.
    public static func line(bytes: Int, total: Int?, elapsed: Duration) -> String {
        var text = size(bytes)
        if let total {
            let percent = total > 0 ? min(100, Int((Double(bytes) * 100 / Double(total)).rounded(.down))) : 100
            text += " of \(size(total)) (\(percent) %)"
        }
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        if seconds > 0 { text += ", \(size(Int((Double(bytes) / seconds).rounded(.down))))/s" }
        return text
    }

    /// A byte count in binary units, one decimal from KiB up: "512 B", "1.5 KiB", "64.0 MiB", "1.0 GiB".
    public static func size(_ bytes: Int) -> String {
        let units = ["KiB", "MiB", "GiB", "TiB"]
        guard bytes >= 1024 else { return "\(bytes) B" }
        var value = Double(bytes) / 1024
        var unit = 0
        while value >= 1024 && unit < units.count - 1 {
            value /= 1024
            unit += 1
        }
        let tenths = Int((value * 10).rounded(.down))
        return "\(tenths / 10).\(tenths % 10) \(units[unit])"
    }
}
