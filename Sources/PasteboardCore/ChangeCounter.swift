// SPDX-License-Identifier: Apache-2.0
import Selection
import XTypes

/// The changeCount of one pasteboard: it moves by one for each change a user would call a change,
/// never goes back and never repeats a value.
///
/// The daemon's own ownership changes are counted when it makes them; the XFixes event that echoes each
/// one back is recognised by (owner, selection time) and not counted again. Every other ownership change
/// counts once.
public struct ChangeCounter: Sendable, Equatable {
    public private(set) var count: UInt64
    private var expectedEchoes: [Echo] = []

    private struct Echo: Equatable, Sendable {
        var ownerIsUs: Bool
        var time: Timestamp
    }

    /// Starts at `count` (0 for a new pasteboard, or the larger of a persisted and a published value).
    public init(count: UInt64 = 0) { self.count = count }

    /// Counts an ownership change the daemon made (taking the selection, or setting it to None)
    /// at server time `time`, and returns the new count.
    public mutating func recordOwnChange(ownerIsUs: Bool, time: Timestamp) -> UInt64 {
        count += 1
        expectEcho(ownerIsUs: ownerIsUs, time: time)
        return count
    }

    /// Registers an ownership change the daemon made that is not a new change (re-serving content it
    /// already had); its echo will not be counted.
    public mutating func recordSilentOwnChange(ownerIsUs: Bool, time: Timestamp) {
        expectEcho(ownerIsUs: ownerIsUs, time: time)
    }

    private mutating func expectEcho(ownerIsUs: Bool, time: Timestamp) {
        expectedEchoes.append(Echo(ownerIsUs: ownerIsUs, time: time))
        // Echoes arrive in order within a few milliseconds; never let a lost one grow the list.
        if expectedEchoes.count > 64 { expectedEchoes.removeFirst(expectedEchoes.count - 64) }
    }

    /// An XFixes SetSelectionOwner event: `ownerIsUs` when the new owner is the daemon's window,
    /// false for another client or None (a clear). Returns true when it counted.
    public mutating func observeOwnerChange(ownerIsUs: Bool, selectionTime: Timestamp) -> Bool {
        if let index = expectedEchoes.firstIndex(of: Echo(ownerIsUs: ownerIsUs, time: selectionTime)) {
            expectedEchoes.remove(at: index)
            return false
        }
        count += 1
        return true
    }

    /// A change that is not an ownership change the daemon made: the owner's window was destroyed or
    /// its client closed and nothing took over. Returns the new count.
    public mutating func recordExternalChange() -> UInt64 {
        count += 1
        return count
    }

    /// Raises the count to at least `floor` (a value persisted or published by an earlier run).
    public mutating func raise(toAtLeast floor: UInt64) {
        count = max(count, floor)
    }
}
