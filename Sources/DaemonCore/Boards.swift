// SPDX-License-Identifier: Apache-2.0
import PasteboardCore
import SystemSupport
import XTypes

/// One watched selection: a pasteboard, its count and what the daemon serves for it.
struct Board {
    let name: PasteboardName
    let selection: Atom
    /// The root-window property the count is published in.
    let countProperty: Atom
    var counter: ChangeCounter
    /// Set while the daemon owns the selection.
    var served: ServedContent?
    /// Paste-once content: cleared after the first paste's requests go quiet.
    var pasteOnce = false
    var pasteOnceDeadline: MonotonicInstant?
    /// Expiring content (`pb copy --expire`): when to clear it, and the count it was served at — it is
    /// cleared only if the pasteboard did not change meanwhile.
    var expiry: (deadline: MonotonicInstant, count: UInt64)?
    /// Set while the compositor's bridge owns the selection for the seat's (`XWaylandRelay`): no change of
    /// this display's, nor its letting go.
    var relayOwned = false
}

/// The pasteboards the daemon watches, by selection atom and by name, with their counts: published on the
/// root window as `_PASTEBOARD_CHANGE_COUNT_<NAME>` (CARDINAL/32) and saved in the count store.
///
/// Looking a board up never creates one; `watch` does, explicitly.
final class Boards {
    private let x: any XDisplay
    private let ownerWindow: WindowID
    private let log: Logger
    private(set) var bySelection: [Atom: Board] = [:]
    /// Where counts survive restarts.
    var countStore = CountStore(directory: nil)
    /// Counts of pasteboards no longer watched, kept so a re-created one never repeats a value.
    var retiredCounts: [PasteboardName: UInt64] = [:]

    init(x: any XDisplay, ownerWindow: WindowID, log: Logger) {
        self.x = x
        self.ownerWindow = ownerWindow
        self.log = log
    }

    subscript(selection: Atom) -> Board? {
        get { bySelection[selection] }
        set { bySelection[selection] = newValue }
    }

    /// The board of `name`, if watched.
    func board(named name: PasteboardName) -> Board? { bySelection.values.first { $0.name == name } }
    func selection(of name: PasteboardName) -> Atom? { board(named: name)?.selection }
    var count: Int { bySelection.count }
    /// Every board, by name.
    var all: [Board] { bySelection.values.sorted { $0.name.rawValue < $1.name.rawValue } }

    /// Every pasteboard's count, those no longer watched included.
    var counts: [PasteboardName: UInt64] {
        var counts = retiredCounts
        for board in bySelection.values { counts[board.name] = board.counter.count }
        return counts
    }

    /// Starts watching `name` (all three XFixes masks) and continues its count from the value published
    /// on the root window by an earlier run, or from `persistedCount`, whichever is larger.
    func watch(_ name: PasteboardName, persistedCount: UInt64 = 0) {
        let selection = x.intern(name.rawValue)
        guard bySelection[selection] == nil else { return }
        let countProperty = x.intern(PasteboardName.changeCountPropertyPrefix + name.rawValue)
        // The root property, when the server kept it, is exact: every count reached the server before anyone
        // was told it (`publish` waits for the server). Without it (a new server) the saved count is used: exact
        // after a clean stop, a little ahead after a crash (CountStore's lease), never behind.
        var counter = ChangeCounter(count: max(persistedCount, retiredCounts[name] ?? 0))
        let published = x.getProperty(x.root, countProperty, delete: false, maximumBytes: 8)
        if let value = published.value, value.type == x.atoms.cardinal, let first = value.atoms.first {
            counter = ChangeCounter(count: UInt64(first.rawValue))
        }
        retiredCounts[name] = nil
        bySelection[selection] = Board(name: name, selection: selection, countProperty: countProperty, counter: counter)
        x.watchSelection(selection, on: ownerWindow)
        publish(selection)
    }

    /// Stops watching `name`; its count is kept as retired. Returns the board as it was.
    @discardableResult
    func unwatch(_ name: PasteboardName) -> Board? {
        guard let board = board(named: name) else { return nil }
        x.watchSelection(board.selection, on: ownerWindow, mask: [])
        x.deleteProperty(x.root, board.countProperty)
        retiredCounts[name] = board.counter.count
        bySelection[board.selection] = nil
        return board
    }

    /// Saves (ahead) and publishes the count of `selection`'s board. Done by the server before any client
    /// hears of the count (one round trip): a crash after that cannot lose it, and a client told the count
    /// (pb copy) that reads the property (pb count) sees it.
    func publish(_ selection: Atom) {
        guard let board = bySelection[selection] else { return }
        do { try countStore.record(counts) } catch {
            log.limited(.warning, key: "count-store", "cannot save change counts: \(error)")
        }
        x.changeProperty(x.root, board.countProperty,
                         PropertyValue(type: x.atoms.cardinal, longs: [UInt32(truncatingIfNeeded: board.counter.count)]))
        x.sync()
    }

    /// Raises `name`'s count to `count` when it is behind (a change another endpoint counted: one pasteboard,
    /// one count) and publishes it; false when the pasteboard is not watched.
    @discardableResult
    func adopt(_ count: UInt64, for name: PasteboardName) -> Bool {
        guard let board = board(named: name) else { return false }
        guard board.counter.count < count else { return true }
        bySelection[board.selection]?.counter.raise(toAtLeast: count)
        publish(board.selection)
        return true
    }

    /// Saves the exact counts (a clean stop: the next start continues from them, not from the lease).
    func saveCountsExactly() {
        do { try countStore.saveExactly(counts) } catch {
            log.warning("cannot save change counts: \(error)")
        }
    }
}
