// SPDX-License-Identifier: Apache-2.0
import PasteboardCore
import SystemSupport
import XTypes

/// What the clipboard manager knows and means to do, as one value: for each pasteboard the phase of its
/// current content ("read early, own late"), the kept content being restored at start, the PRIMARY debounce,
/// the SAVE_TARGETS request in progress, whether the daemon is the clipboard manager (or waits to be), and
/// whether recording is paused.
///
/// Pure: every transition is a method returning what the manager must do; `ClipboardManager` carries it out
/// against X, the snapshotter and the disk.
struct ManagerState {
    /// The content of one pasteboard at change `count`, as the manager knows it.
    enum Phase: Equatable {
        /// Being read; `takeOverAt` is the vanished owner's selection time once its owner went away
        /// meanwhile (the server still answered).
        case reading(count: UInt64, takeOverAt: Timestamp?)
        /// Read (or written by the daemon itself): served again if its owner goes away.
        case read(count: UInt64, content: PasteboardContent)
        /// Its owner went away: the daemon takes over at `due` — after the events already received, so a
        /// successor's SetSelectionOwner among them wins — claiming the selection as of `ownerTime`, the
        /// vanished owner's own selection time, so a successor that takes it again with that time or later
        /// (Wine destroys its window and owns the clipboard again) wins over the daemon whatever the order.
        case takeoverDue(count: UInt64, content: PasteboardContent, due: MonotonicInstant, ownerTime: Timestamp)
        /// Secret (marked by a password manager, written as sensitive, or set by an excluded application):
        /// never read, kept or taken over.
        case secret(count: UInt64)
        /// Could not be read.
        case unreadable(count: UInt64)

        var count: UInt64 {
            switch self {
            case .reading(let count, _), .read(let count, _), .takeoverDue(let count, _, _, _), .secret(let count),
                 .unreadable(let count): count
            }
        }
    }

    /// A SAVE_TARGETS request being carried out: the requestor waits for the reply.
    struct SaveRequest: Equatable {
        var request: SelectionRequest
        /// Where the reply goes.
        var property: Atom
    }

    private(set) var phases: [PasteboardName: Phase] = [:]
    /// When PRIMARY's content is read, once a drag-select settles.
    var primaryDue: MonotonicInstant?
    var save: SaveRequest?
    /// Set while the daemon owns CLIPBOARD_MANAGER.
    var managerAcquiredAt: Timestamp?
    /// While paused nothing is read, recorded or taken over.
    var paused = false
    /// Another pasteboardd is this display's clipboard manager (two daemons serve overlapping sets of
    /// displays): it takes over the copies whose owners go away; this one only reads and bridges them.
    var anotherDaemonManages = false
    /// A pasteboardd's window holds CLIPBOARD_MANAGER — a live daemon's, or a gone one's the X server has not yet
    /// seen go: the daemon takes it as soon as the server reports it free (set to None, its window destroyed, its
    /// client closed), unless another client takes it first.
    var managerSelectionAwaited = false

    /// Where restoring a pasteboard's kept content stands.
    enum Restore: Equatable {
        /// Its pasteboard is still owned by the window of a pasteboardd that is gone (killed, and this daemon
        /// started before the X server saw its connection close): restored when the server reports that owner
        /// gone.
        case awaitingOwnerGone(PasteboardContent)
        /// Asked of the server, not confirmed yet.
        case underWay
    }
    /// The kept content being restored at start, per pasteboard. Anyone setting the pasteboard meanwhile (a copy,
    /// a clear) ends it: a live copy is never replaced by kept content.
    private(set) var restores: [PasteboardName: Restore] = [:]

    /// Restoring `name` starts now (it is unowned) or once its dead daemon's window is gone.
    mutating func restoreStarted(_ name: PasteboardName, _ restore: Restore) { restores[name] = restore }
    /// Restoring `name` ended, restored or not.
    mutating func restoreEnded(_ name: PasteboardName) { restores[name] = nil }
    /// True while restoring `name` is under way: nobody set it since.
    func isRestoring(_ name: PasteboardName) -> Bool { restores[name] == .underWay }

    func phase(of name: PasteboardName) -> Phase? { phases[name] }

    /// Keeps `replacement` — the same content, its large representations in a file — in place of what was read
    /// or written for `name` at `count`, if that is still the phase; true when it did.
    mutating func adopt(_ name: PasteboardName, count: UInt64, _ replacement: PasteboardContent) -> Bool {
        switch phases[name] {
        case .read(count, let content) where replacement.hasSameShape(as: content):
            phases[name] = .read(count: count, content: replacement)
        case .takeoverDue(count, let content, let due, let ownerTime) where replacement.hasSameShape(as: content):
            phases[name] = .takeoverDue(count: count, content: replacement, due: due, ownerTime: ownerTime)
        default:
            return false
        }
        return true
    }

    /// Who the owner's window says copied the content of each pasteboard, at which change.
    private var ownerSources: [PasteboardName: (count: UInt64, source: ContentSource?)] = [:]

    /// Another client took `name` at change `count`, its window naming `source`: true when its content is to be
    /// read (not paused, not from an excluded application).
    mutating func foreignOwner(_ name: PasteboardName, count: UInt64, excluded: Bool, source: ContentSource? = nil) -> Bool {
        ownerSources[name] = (count, source)
        restores[name] = nil
        if excluded {
            phases[name] = .secret(count: count)
            return false
        }
        phases[name] = .reading(count: count, takeOverAt: nil)
        return !paused
    }

    /// What to do once a snapshot of `name` at `count` ended.
    enum AfterSnapshot: Equatable {
        /// A newer change superseded it: nothing.
        case ignore
        /// Keep the content (history, archive); `takeOverAt` the vanished owner's time when it is already gone.
        case keep(PasteboardContent, takeOverAt: Timestamp?)
        /// Secret: keep nothing, remove what was kept; `countChange` when its owner is already gone.
        case secret(countChange: Bool)
        /// Unreadable: `countChange` when its owner is already gone (nothing will take over).
        case unreadable(countChange: Bool)
    }

    mutating func snapshotEnded(_ name: PasteboardName, count: UInt64, _ outcome: Snapshotter.Outcome) -> AfterSnapshot {
        guard let phase = phases[name], phase.count == count else { return .ignore }
        var ownerTime: Timestamp?
        if case .reading(_, let time) = phase { ownerTime = time }
        let ownerGone = ownerTime != nil
        switch outcome {
        case .complete(var content, _, _):
            content.source = Self.source(of: content, window: ownerSources[name].flatMap { $0.count == count ? $0.source : nil })
            phases[name] = .read(count: count, content: content)
            return .keep(content, takeOverAt: ownerTime)
        case .secret:
            phases[name] = .secret(count: count)
            return .secret(countChange: ownerGone)
        case .failed:
            phases[name] = .unreadable(count: count)
            return .unreadable(countChange: ownerGone)
        }
    }

    /// Who copied content read from an owner: the name `org.nspasteboard.source` gives when the owner offers it
    /// (with the process the window names), else what its window names (`SourceLookup`).
    static func source(of content: PasteboardContent, window: ContentSource?) -> ContentSource? {
        guard let declared = content.declaredSource else { return window ?? content.source }
        return ContentSource(application: declared, processID: window?.processID)
    }

    /// What to do when the owner of `name` went away.
    enum AfterOwnerVanished: Equatable {
        /// Not the manager's business: the change is counted as the pasteboard emptied.
        case notManaged
        /// The owner was a gone daemon's window the restore waited for: restore `content` now, claimed as of that
        /// owner's time. Not a change.
        case restore(PasteboardContent)
        /// The restore under way takes the emptied pasteboard's place (the server had seen the gone daemon's
        /// window go before the restore asked, and said so only now): not a change.
        case restoring
        /// The daemon takes over at `due` with the content it read.
        case takeOver(due: MonotonicInstant)
        /// Still reading what the server answers: decide once read.
        case decideWhenRead
    }

    /// The owner of `name` went away at change `currentCount` (the count the board has now); `ownerTime` is
    /// the time it had taken the selection at (XFixes' selection timestamp).
    mutating func ownerVanished(_ name: PasteboardName, currentCount: UInt64?, ownerTime: Timestamp, now: MonotonicInstant,
                                readInProgress: Bool) -> AfterOwnerVanished {
        switch restores[name] {
        case .awaitingOwnerGone(let content):
            restores[name] = .underWay
            return .restore(content)
        case .underWay:
            return .restoring
        case nil:
            break
        }
        guard name == .general, !paused, !anotherDaemonManages, let phase = phases[name], phase.count == currentCount else {
            return .notManaged
        }
        switch phase {
        case .read(let count, let content):
            phases[name] = .takeoverDue(count: count, content: content, due: now, ownerTime: ownerTime)
            return .takeOver(due: now)
        case .reading(let count, _) where readInProgress:
            phases[name] = .reading(count: count, takeOverAt: ownerTime)
            return .decideWhenRead
        default:
            return .notManaged
        }
    }

    /// The daemon took `name` with content of its own (pb copy, the library).
    mutating func daemonOwned(_ name: PasteboardName, count: UInt64, content: PasteboardContent) {
        restores[name] = nil
        phases[name] = content.isSensitive ? .secret(count: count) : .read(count: count, content: content)
    }

    /// `name` was cleared: its content is forgotten and never brought back.
    mutating func cleared(_ name: PasteboardName) {
        phases[name] = nil
        restores[name] = nil
    }

    /// A takeover to carry out: the content, claimed as of the vanished owner's time.
    struct Takeover: Equatable {
        var name: PasteboardName
        var content: PasteboardContent
        var ownerTime: Timestamp
    }

    /// Takeovers that are due, taken out of the state; content stays known as read.
    mutating func takeDueTakeovers(now: MonotonicInstant) -> [Takeover] {
        var due: [Takeover] = []
        for (name, phase) in phases {
            if case .takeoverDue(let count, let content, let at, let ownerTime) = phase, at <= now {
                phases[name] = .read(count: count, content: content)
                if !paused { due.append(Takeover(name: name, content: content, ownerTime: ownerTime)) }
            }
        }
        return due.sorted { $0.name.rawValue < $1.name.rawValue }
    }

    /// The earliest of the takeovers and the PRIMARY debounce.
    var nextDeadline: MonotonicInstant? {
        var earliest = Earliest()
        earliest.add(primaryDue)
        for phase in phases.values { if case .takeoverDue(_, _, let due, _) = phase { earliest.add(due) } }
        return earliest.value
    }
}
