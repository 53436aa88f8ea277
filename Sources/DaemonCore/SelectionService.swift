// SPDX-License-Identifier: Apache-2.0
import PasteboardCore
import Selection
import SystemSupport
import XTypes

/// Why the daemon could not change a selection for a client.
public enum OwnershipError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Another client set the selection with a later time before the daemon's request was processed.
    case lostRace(PasteboardName)
    case connectionLost
    case notWatched(PasteboardName)

    public var description: String {
        switch self {
        case .lostRace(let name): "another client took \(name) at the same moment"
        case .connectionLost: "the X connection was lost"
        case .notWatched(let name): "pasteboard \(name) is not served by this daemon"
        }
    }
}

/// What a change left on the pasteboard, for watchers (`CLIPBOARD_STATE` in wl-paste's terms).
enum ChangeState: String, Sendable {
    /// The daemon serves new content.
    case data
    /// The daemon serves secret content.
    case sensitive
    /// A client (or `pb clear`) set the owner to None.
    case clear
    /// Another client owns it now.
    case foreign
    /// The owner's window died or its client closed: nobody owns it.
    case empty
    /// The named pasteboard was removed: pasteboardd no longer serves or counts it.
    case removed
    /// The clipboard manager read another application's copy (told as `foreign` before): its types, source and
    /// patterns are known now. Not a change: only `watchEvents` clients are told.
    case kept
}

/// What watchers are told of a change: the pasteboard, its count and state, and what is known of the content —
/// its types and picture when the daemon serves it, who copied it, the patterns of its text.
struct ChangeNotice: Equatable {
    var name: PasteboardName
    var count: UInt64
    var state: ChangeState
    var types: [PasteboardType] = []
    var image: ImageSummary? = nil
    var source: ContentSource? = nil
    /// Nil while unknown (another application's copy not read yet) and for secret content.
    var patterns: TextPatterns? = nil

    /// The notice of content the daemon serves (or read): secret content names neither its types' picture nor
    /// its patterns.
    static func serving(_ name: PasteboardName, count: UInt64, _ content: PasteboardContent, state: ChangeState) -> ChangeNotice {
        ChangeNotice(name: name, count: count, state: state, types: content.types,
                     image: content.isSensitive ? nil : content.imageSummary(), source: content.source,
                     patterns: content.isSensitive ? nil : content.textPatterns())
    }
}

/// The X side of the daemon, as one facade over its parts: `Boards` (what is watched and counted),
/// `OwnershipChanges` (taking and clearing selections with real server times), `RequestServer` (answering
/// requestors, conversions off the loop) and `IncrTransfers`; it routes each X event to the part it
/// concerns and traces X errors to their cause.
///
/// Every method runs on the event loop's thread. Nothing here blocks except the single round trip that
/// confirms an ownership change (`XGetSelectionOwner`) and reading a MULTIPLE request's pair list.
final class SelectionService {
    typealias Completion = (Result<UInt64, OwnershipError>) -> Void

    /// How long after a paste-once content's last data request the pasteboard is cleared: one paste
    /// is often several requests (Firefox makes many), so the first one does not clear it at once.
    static let pasteOnceQuietPeriod: Duration = .milliseconds(300)

    let x: any XDisplay
    let ownerWindow: WindowID
    let boards: Boards
    let serials: SerialLabels
    let transfers: IncrTransfers
    let executor: PlanExecutor
    let server: RequestServer
    private let ownership: OwnershipChanges
    private let clock: any MonotonicClock
    private let log: Logger
    let table: ConversionTable

    /// Called after a pasteboard's count moved (and when the manager read another application's copy: `kept`).
    var onChange: ((ChangeNotice) -> Void)?
    /// Finds which application a window belongs to (owners, requestors).
    let sources: SourceLookup
    /// The clipboard manager: snapshots, takeover, CLIPBOARD_MANAGER, history (nil: none).
    weak var manager: ClipboardManager?
    /// The compositor's own bridge on this display, when the daemon serves the compositor's seat too: its taking
    /// a pasteboard `relayShares` is the seat's selection shown on X, and its letting go the seat's emptying —
    /// neither a change of this display (the seat counts them).
    var relay: XWaylandRelay?
    var relayShares: (PasteboardName) -> Bool = { _ in false }
    /// The relay took `name` (`lost`: what the daemon served there until then, if it did).
    var onRelayTook: ((PasteboardName, ServedContent?) -> Void)?

    /// - Parameter conversions: the conversion worker, shared by every display's service.
    init(x: any XDisplay, clock: any MonotonicClock, transferTimeout: Duration, conversionTimeout: Duration,
         conversions: Conversions, table: ConversionTable = .standard, log: Logger) {
        self.x = x
        self.clock = clock
        self.log = log
        self.table = table
        sources = SourceLookup(x: x)
        ownerWindow = x.createWindow(eventMask: [.propertyChange])
        serials = SerialLabels(x: x)
        boards = Boards(x: x, ownerWindow: ownerWindow, log: log)
        transfers = IncrTransfers(x: x, clock: clock, log: log, serials: serials, timeout: transferTimeout)
        executor = PlanExecutor(x: x, ownerWindow: ownerWindow, serials: serials, transfers: transfers, log: log)
        server = RequestServer(x: x, clock: clock, log: log, boards: boards, executor: executor,
                               conversions: conversions, conversionTimeout: conversionTimeout)
        ownership = OwnershipChanges(x: x, ownerWindow: ownerWindow, serials: serials)
        server.onPaste = { [weak self] selection in self?.notePaste(on: selection) }
    }

    /// The INCR chunk size in use.
    var chunkSize: Int { executor.responder.chunkSize }

    func count(of name: PasteboardName) -> UInt64? { boards.board(named: name)?.counter.count }
    func isOwned(_ name: PasteboardName) -> Bool { boards.board(named: name)?.served != nil }
    /// The content the daemon serves for `name`, if it owns it and has its bytes (not while it serves another
    /// endpoint's change whose types are fetched on request).
    func content(of name: PasteboardName) -> PasteboardContent? {
        guard let served = boards.board(named: name)?.served, !served.isRemote else { return nil }
        return served.content
    }

    /// Serves `name`'s change `count` from `replacement` — the same content, its large representations in a
    /// file — when that change is still what the daemon serves (`ServedContent.adopt`); true when it did.
    func adopt(_ name: PasteboardName, count: UInt64, _ replacement: PasteboardContent) -> Bool {
        guard let board = boards.board(named: name), board.counter.count == count, let served = board.served,
              !served.isRemote else { return false }
        return served.adopt(replacement)
    }

    /// Stops watching and serving `name` (a named pasteboard being removed): releases it if owned.
    func unwatch(_ name: PasteboardName) {
        guard let board = boards.board(named: name) else { return }
        if let served = board.served {
            if x.selectionOwner(board.selection) == ownerWindow {
                x.setSelectionOwner(board.selection, owner: .none, time: served.acquiredAt)
            }
            server.contentEnded(served)
        }
        boards.unwatch(name)
    }

    // MARK: - Changing ownership

    /// How the daemon takes a pasteboard: the content, and what kind of change it is.
    struct Ownership {
        var content: PasteboardContent
        /// Types served on behalf of another endpoint, fetched from it on request.
        var remote: ServedContent.RemoteTypes?
        /// Re-serves content the daemon already had (a takeover, a restore) or serves another endpoint's
        /// change (`mirrorOf` names it): not a new change of this display.
        var silent = false
        var pasteOnce = false
        var expiresAfter: Duration?
        /// The endpoint whose change this serves, for the log.
        var mirrorOf: String?
        /// Asked once the server time arrived, just before the selection is set: false gives the change up (it
        /// completes as `lostRace`). A restore is given up when a copy was seen meanwhile.
        var stillWanted: (() -> Bool)?
    }

    /// Takes `name` with `content`. Completes with the new changeCount once the server confirmed the
    /// daemon as owner, so that a client told "done" can paste at once. `silent` re-serves content the
    /// daemon already had (a takeover, a restore): not a new change. `at` claims the selection as of that
    /// server time (a takeover: the vanished owner's time) instead of asking the server for the current one.
    ///
    /// Content that `expiresAfter` is cleared that long after it is served (+1, watchers told `clear`), but
    /// only if the pasteboard did not change meanwhile.
    func own(_ name: PasteboardName, content: PasteboardContent, silent: Bool = false, pasteOnce: Bool = false,
             expiresAfter: Duration? = nil, at time: Timestamp? = nil, completion: @escaping Completion) {
        own(name, Ownership(content: content, silent: silent, pasteOnce: pasteOnce, expiresAfter: expiresAfter), at: time,
            completion: completion)
    }

    func own(_ name: PasteboardName, _ ownership: Ownership, at time: Timestamp? = nil, completion: @escaping Completion) {
        guard let selection = boards.selection(of: name) else { return completion(.failure(.notWatched(name))) }
        let change = OwnershipChanges.Request.own(selection, ownership, completion)
        if let time {
            ownershipChanged(self.ownership.carryOut(change, at: time), time: time)
        } else {
            self.ownership.request(change)
        }
    }

    /// Takes `selection` (not a pasteboard) for the daemon's window with a real server time, or as of `time`
    /// (its vanished owner's: a successor that took it at that time or later wins); the completion gets that
    /// time, or nil if another client holds it with a later time.
    func acquire(_ selection: Atom, at time: Timestamp? = nil, completion: @escaping (Timestamp?) -> Void) {
        if let time {
            ownershipChanged(ownership.carryOut(.acquire(selection, completion), at: time), time: time)
        } else {
            ownership.request(.acquire(selection, completion))
        }
    }

    /// Sets `name`'s owner to None (the pasteboard becomes empty). `silent`: not a change of this display
    /// (another endpoint's clear, served here too): not counted, nobody told.
    func clear(_ name: PasteboardName, silent: Bool = false, completion: @escaping Completion) {
        guard let selection = boards.selection(of: name) else { return completion(.failure(.notWatched(name))) }
        ownership.request(.clear(selection, silent: silent, completion))
    }

    /// Counts a change that no ownership event counted: the owner vanished and nothing took over.
    func countExternalChange(_ name: PasteboardName) {
        guard let selection = boards.selection(of: name) else { return }
        let count = boards[selection]!.counter.recordExternalChange()
        boards.publish(selection)
        onChange?(ChangeNotice(name: name, count: count, state: .empty))
    }

    private func serverTimeArrived(_ time: Timestamp) {
        guard let change = ownership.serverTimeArrived(time) else { return }
        ownershipChanged(change, time: time)
    }

    private func ownershipChanged(_ change: OwnershipChanges.Outcome, time: Timestamp) {
        switch change {
        case .acquired(let completion, let time):
            completion(time)
        case .owned(let selection, let ownership, let completion):
            guard var board = boards[selection] else { return }
            var content = ownership.content
            // Standing in for an application gone (a takeover, a restore, a save), the daemon says who copied.
            if ownership.silent && ownership.remote == nil && ownership.mirrorOf == nil { Self.declareSource(&content) }
            if let old = board.served { server.contentEnded(old) }
            let served = ServedContent(content: content, remote: ownership.remote, acquiredAt: time, table: table, names: x.contentNames())
            board.served = served
            board.pasteOnce = ownership.pasteOnce
            board.pasteOnceDeadline = nil
            board.expiry = nil
            if ownership.silent {
                board.counter.recordSilentOwnChange(ownerIsUs: true, time: time)
                boards[selection] = board
                if let origin = ownership.mirrorOf {
                    log.info("serving \(board.name) for \(origin) (count \(board.counter.count), \(served.offeredTypes.count) types)")
                } else {
                    log.info("took over \(board.name) with the content it had (count stays \(board.counter.count), \(content.types.count) types, \(content.byteCount) bytes)")
                }
                completion(.success(board.counter.count))
                return
            }
            let count = board.counter.recordOwnChange(ownerIsUs: true, time: time)
            if let expiresAfter = ownership.expiresAfter { board.expiry = (clock.now() + expiresAfter, count) }
            boards[selection] = board
            boards.publish(selection)
            log.info("took \(board.name) (count \(count), \(content.items.count) items, \(content.types.count) types, \(content.byteCount) bytes"
                     + (ownership.expiresAfter.map { ", expires in \($0)" } ?? "") + ")")
            // The client is answered first: keeping the content (history, archive) can take a while for
            // large copies and the copy is already served.
            completion(.success(count))
            manager?.daemonOwned(board.name, content: content, count: count)
            onChange?(.serving(board.name, count: count, content, state: content.isSensitive ? .sensitive : .data))
        case .lost(let selection, let completion):
            completion(.failure(x.isConnectionLost ? .connectionLost : .lostRace(boards[selection]?.name ?? .general)))
        case .cleared(let selection, let silent, let completion):
            guard var board = boards[selection] else { return }
            if let old = board.served { server.contentEnded(old) }
            board.served = nil
            if silent {
                board.counter.recordSilentOwnChange(ownerIsUs: false, time: time)
                boards[selection] = board
                log.info("released \(board.name): it was cleared on another display")
                completion(.success(board.counter.count))
                return
            }
            let count = board.counter.recordOwnChange(ownerIsUs: false, time: time)
            boards[selection] = board
            boards.publish(selection)
            log.info("cleared \(board.name) (count \(count))")
            manager?.cleared(board.name)
            onChange?(ChangeNotice(name: board.name, count: count, state: .clear))
            completion(.success(count))
        }
    }

    /// Releases every selection the daemon owns (at exit).
    func releaseAll() {
        for board in boards.all {
            guard let served = board.served else { continue }
            if x.selectionOwner(board.selection) == ownerWindow {
                x.setSelectionOwner(board.selection, owner: .none, time: served.acquiredAt)
            }
            boards[board.selection]?.served = nil
        }
        x.flush()
    }

    // MARK: - Events

    /// Handles one X event. Events that concern no selection are ignored.
    func handle(_ event: XEventValue) {
        if manager?.handle(event) == true { return }
        switch event {
        case .selectionRequest(let request):
            if boards[request.selection] == nil, manager?.answer(request) == true { return }
            server.answer(request)
        case .propertyNotify(let window, let property, let time, let deleted):
            if window == ownerWindow && property == ownership.timestampProperty && !deleted {
                serverTimeArrived(time)
            } else if deleted {
                transfers.propertyDeleted(TransferKey(requestor: window, property: property))
            }
        case .selectionClear(let selection, let window, _):
            guard window == ownerWindow else { return }
            if boards[selection] == nil {
                manager?.lostSelection(selection)
            } else if let board = boards[selection], let served = board.served {
                boards[selection]?.served = nil
                server.contentEnded(served)
                log.info("lost \(board.name) to another client")
            }
        case .destroyNotify(let window):
            transfers.drop(window: window, reason: "requestor window destroyed", windowGone: true)
        case .selectionOwnerChange(let change):
            ownerChanged(change)
        default:
            break
        }
    }

    private func ownerChanged(_ change: SelectionOwnerChange) {
        guard var board = boards[change.selection] else {
            manager?.otherSelectionChanged(change)
            return
        }
        let counted: Bool
        let state: ChangeState
        var source: ContentSource?
        if relayOwnerChanged(change, &board) { return }
        switch change.kind {
        case .setOwner:
            let ownerIsUs = change.owner == ownerWindow
            counted = board.counter.observeOwnerChange(ownerIsUs: ownerIsUs, selectionTime: change.selectionTime)
            if !ownerIsUs, let served = board.served {
                board.served = nil
                server.contentEnded(served)
            }
            state = change.owner.isNone ? .clear : .foreign
            boards[change.selection] = board
            if change.owner.isNone {
                manager?.cleared(board.name)
            } else if !ownerIsUs && counted {
                source = serials.lookingUp { sources.source(of: change.owner) }
                manager?.foreignOwnerChanged(board.name, selection: change.selection, owner: change.owner, count: board.counter.count,
                                             source: source)
            }
        case .windowDestroyed, .clientClosed:
            if board.served != nil { return }   // not about the daemon's own ownership
            // The owner went away and the selection is empty now: a change users notice, unless the
            // clipboard manager takes over with the content it read (then it is not a change at all).
            if manager?.ownerVanished(board.name, selection: change.selection, ownerTime: change.selectionTime) == true { return }
            _ = board.counter.recordExternalChange()
            counted = true
            state = .empty
        }
        boards[change.selection] = board
        if counted {
            boards.publish(change.selection)
            log.debug("\(board.name) changed (count \(board.counter.count))")
            onChange?(ChangeNotice(name: board.name, count: board.counter.count, state: state, source: source))
        }
    }

    /// Handles `change` if it is the compositor's bridge taking `board` or letting it go (true): not counted, no
    /// snapshot, no takeover; what the daemon served there ends, and `onRelayTook` says so.
    private func relayOwnerChanged(_ change: SelectionOwnerChange, _ board: inout Board) -> Bool {
        guard let relay, relayShares(board.name) else { return false }
        let relayTakes = change.kind == .setOwner && change.owner != ownerWindow && relay.isRelayWindow(change.owner)
        guard relayTakes || board.relayOwned else { return false }
        board.relayOwned = relayTakes
        // Another owner after the relay's is a change as any other; the relay's letting go (None, or its window gone) is not.
        if !relayTakes && change.kind == .setOwner && !change.owner.isNone { return false }
        guard relayTakes else {
            boards[change.selection] = board
            log.debug("the compositor's bridge let \(board.name) go")
            return true
        }
        let lost = board.served
        board.served = nil
        boards[change.selection] = board
        if let lost { server.contentEnded(lost) }
        log.debug("the compositor's bridge shows the seat's \(board.name)")
        onRelayTook?(board.name, lost)
        return true
    }

    /// Offers nspasteboard.org's `org.nspasteboard.source` with content whose source is known and that does not
    /// name one itself (added to its first item, unless that item is full).
    static func declareSource(_ content: inout PasteboardContent) {
        let type = PasteboardType(ContentSource.sourceType)
        guard let source = content.source, !content.items.isEmpty, !content.types.contains(type),
              let marked = try? PasteboardItem(content.items[0].representations
                                               + [Representation(type: type, data: Array(source.application.utf8))]) else { return }
        content.items[0] = marked
    }

    /// Content was handed out: paste-once content is cleared once the paste's requests go quiet.
    private func notePaste(on selection: Atom) {
        if boards[selection]?.pasteOnce == true {
            boards[selection]?.pasteOnceDeadline = clock.now() + Self.pasteOnceQuietPeriod
        }
    }

    // MARK: - Time and errors

    /// The earliest deadline (an INCR transfer's, a paste-once clear, a conversion's), for the loop's poll.
    var nextDeadline: MonotonicInstant? {
        var earliest = Earliest()
        earliest.add(transfers.nextDeadline)
        earliest.add(server.nextDeadline)
        for board in boards.bySelection.values {
            earliest.add(board.pasteOnceDeadline)
            earliest.add(board.expiry?.deadline)
        }
        return earliest.value
    }

    /// Clears paste-once content that was pasted and expiring content whose time came (if the pasteboard did
    /// not change since), drops idle transfers, refuses requests whose conversion outlived its limit.
    func expire(now: MonotonicInstant) {
        for board in boards.bySelection.values {
            guard let expiry = board.expiry, expiry.deadline <= now else { continue }
            boards[board.selection]?.expiry = nil
            // Only the content that was set to expire: a change since (another copy, a clear) is left alone.
            guard board.served != nil, board.counter.count == expiry.count else { continue }
            log.info("\(board.name)'s content expired: clearing it")
            clear(board.name) { _ in }
        }
        for board in boards.bySelection.values where board.pasteOnceDeadline.map({ $0 <= now }) == true {
            boards[board.selection]?.pasteOnceDeadline = nil
            boards[board.selection]?.pasteOnce = false
            log.info("\(board.name) was pasted once: clearing it")
            clear(board.name) { _ in }
        }
        transfers.expire(now: now)
        server.expire(now: now)
    }

    /// Matches errors to the operations that caused them: a failed reply or transfer ends the
    /// requestor's transfers; each error is logged (rate-limited), never fatal.
    func handle(errors: [XProtocolError]) {
        for error in errors {
            switch serials.operation(for: error.serial) {
            case .reply(let requestor):
                log.limited(.info, key: "x-error-reply", "X error answering \(requestor): \(error)")
                transfers.drop(window: requestor, reason: "X error \(error.name)")
            case .transfer(let key):
                log.limited(.info, key: "x-error-transfer", "X error in INCR transfer to \(key.requestor): \(error)")
                transfers.drop(window: key.requestor, reason: "X error \(error.name)")
            case .housekeeping:
                log.limited(.warning, key: "x-error", "X error: \(error)")
            case .lookup:
                log.debug("X error looking up a window's application (gone meanwhile): \(error)")
            }
        }
    }
}

/// Ownership changes waiting for a real server time (ICCCM 2.1: a zero-length append to the daemon's own
/// property; the PropertyNotify that follows carries the time), carried out in order.
final class OwnershipChanges {
    enum Request {
        /// Take a pasteboard; a `silent` ownership re-serves content the daemon already had (no new change).
        case own(Atom, SelectionService.Ownership, SelectionService.Completion)
        case clear(Atom, silent: Bool, SelectionService.Completion)
        /// Take a selection that is not a pasteboard (CLIPBOARD_MANAGER); nil time if it failed.
        case acquire(Atom, (Timestamp?) -> Void)
    }

    /// What a request came to once carried out.
    enum Outcome {
        case owned(Atom, SelectionService.Ownership, SelectionService.Completion)
        /// The server did not make the daemon the owner (a later time won, or the connection is gone).
        case lost(Atom, SelectionService.Completion)
        case cleared(Atom, silent: Bool, SelectionService.Completion)
        case acquired((Timestamp?) -> Void, Timestamp?)
    }

    private let x: any XDisplay
    private let ownerWindow: WindowID
    private let serials: SerialLabels
    let timestampProperty: Atom
    private var pending: [Request] = []

    init(x: any XDisplay, ownerWindow: WindowID, serials: SerialLabels) {
        self.x = x
        self.ownerWindow = ownerWindow
        self.serials = serials
        timestampProperty = x.intern("_PASTEBOARD_TIMESTAMP")
    }

    func request(_ change: Request) {
        pending.append(change)
        serials.label(.housekeeping)
        x.changeProperty(ownerWindow, timestampProperty, PropertyValue(type: x.atoms.integer, bytes: []), mode: .append)
    }

    /// Carries out the oldest pending change at server time `time`, confirming it with the server.
    func serverTimeArrived(_ time: Timestamp) -> Outcome? {
        guard !pending.isEmpty else { return nil }
        return carryOut(pending.removeFirst(), at: time)
    }

    /// Carries out `change` at `time` now, confirming it with the server (one round trip).
    func carryOut(_ change: Request, at time: Timestamp) -> Outcome {
        serials.label(.housekeeping)
        switch change {
        case .acquire(let selection, let completion):
            x.setSelectionOwner(selection, owner: ownerWindow, time: time)
            return .acquired(completion, x.selectionOwner(selection) == ownerWindow ? time : nil)
        case .own(let selection, let ownership, let completion):
            if let stillWanted = ownership.stillWanted, !stillWanted() { return .lost(selection, completion) }
            x.setSelectionOwner(selection, owner: ownerWindow, time: time)
            guard x.selectionOwner(selection) == ownerWindow else { return .lost(selection, completion) }
            return .owned(selection, ownership, completion)
        case .clear(let selection, let silent, let completion):
            x.setSelectionOwner(selection, owner: .none, time: time)
            return .cleared(selection, silent: silent, completion)
        }
    }
}
