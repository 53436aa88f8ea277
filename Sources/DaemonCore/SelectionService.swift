import PasteboardCore
import Selection
import XTypes
import SystemSupport
import XClient

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

/// The X side of the daemon: owns selections and serves their content to any X client, runs INCR
/// transfers, watches owners with XFixes and keeps each pasteboard's changeCount, published on the
/// root window as `_PASTEBOARD_CHANGE_COUNT_<NAME>` (CARDINAL/32).
///
/// Every method runs on the event loop's thread. Nothing here blocks except the single round trip that
/// confirms an ownership change (`XGetSelectionOwner`) and reading a MULTIPLE request's pair list.
final class SelectionService {
    typealias Completion = (Result<UInt64, OwnershipError>) -> Void

    /// One watched selection.
    struct Board {
        var name: PasteboardName
        var selection: Atom
        var countProperty: Atom
        var counter: ChangeCounter
        /// Set while the daemon owns the selection.
        var served: ServedContent?
        /// Paste-once content: cleared after the first paste's requests go quiet.
        var pasteOnce = false
        var pasteOnceDeadline: MonotonicInstant?
    }

    /// How long after a paste-once content's last data request the pasteboard is cleared: one paste
    /// is often several requests (Firefox makes many), so the first one does not clear it at once.
    static let pasteOnceQuietPeriod: Duration = .milliseconds(300)

    struct ActiveTransfer {
        var send: IncrSend
        var deadline: MonotonicInstant
    }

    private enum PendingChange {
        /// Take a pasteboard; `silent` re-serves content the daemon already had (no new change).
        case own(Atom, PasteboardContent, silent: Bool, pasteOnce: Bool, Completion)
        case clear(Atom, Completion)
        /// Take a selection that is not a pasteboard (CLIPBOARD_MANAGER); nil time if it failed.
        case acquire(Atom, (Timestamp?) -> Void)
    }

    /// What a request serial was spent on, so an X error can be traced to its cause.
    private enum Operation {
        case reply(requestor: WindowID)
        case transfer(TransferKey)
        case housekeeping
    }

    let x: XConnection
    let ownerWindow: WindowID
    private let timestampProperty: Atom
    private let responder: SelectionResponder
    private let textTargets: TextTargets
    private let clock: any MonotonicClock
    private let transferTimeout: Duration
    private let log: Logger

    private(set) var boards: [Atom: Board] = [:]
    private var pending: [PendingChange] = []
    private(set) var transfers: [TransferKey: ActiveTransfer] = [:]
    private var transfersPerWindow: [WindowID: Int] = [:]
    private var operations: [(serial: UInt64, operation: Operation)] = []

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
    }

    /// Called after a pasteboard's count moved: name, count, state, and the types when the daemon serves it.
    var onChange: ((PasteboardName, UInt64, ChangeState, [PasteboardType]) -> Void)?
    /// The clipboard manager: snapshots, takeover, CLIPBOARD_MANAGER, history (nil: none).
    weak var manager: ClipboardManager?
    /// Where counts survive restarts.
    var countStore = CountStore(directory: nil)
    /// Counts of pasteboards no longer watched, kept so a re-created one never repeats a value.
    var retiredCounts: [PasteboardName: UInt64] = [:]

    init(x: XConnection, clock: any MonotonicClock, transferTimeout: Duration, log: Logger) {
        self.x = x
        self.clock = clock
        self.transferTimeout = transferTimeout
        self.log = log
        ownerWindow = x.createWindow(eventMask: [.propertyChange])
        timestampProperty = x.intern("_PASTEBOARD_TIMESTAMP")
        let sizes = SelectionResponder.sizes(maximumRequestBytes: x.maximumRequestBytes)
        responder = SelectionResponder(atoms: x.atoms, incrThreshold: sizes.incrThreshold, chunkSize: sizes.chunkSize)
        textTargets = TextTargets(atoms: x.atoms)
    }

    /// The INCR chunk size in use.
    var chunkSize: Int { responder.chunkSize }

    // MARK: - Boards

    /// Starts watching `name` (all three XFixes masks) and continues its count from the value published
    /// on the root window by an earlier run, or from `persistedCount`, whichever is larger.
    func watch(_ name: PasteboardName, persistedCount: UInt64 = 0) {
        let selection = x.intern(name.rawValue)
        guard boards[selection] == nil else { return }
        let countProperty = x.intern("_PASTEBOARD_CHANGE_COUNT_" + name.rawValue)
        // The root property, when the server kept it, is exact: every count reached the server before anyone
        // was told it (`publish` waits for the server). Without it (a new server) the saved count is used: exact after a
        // clean stop, a little ahead after a crash (CountStore's lease), never behind.
        var counter = ChangeCounter(count: persistedCount)
        let published = x.getProperty(x.root, countProperty, delete: false, maximumBytes: 8)
        if let value = published.value, value.type == x.atoms.cardinal, let first = value.atoms.first {
            counter = ChangeCounter(count: UInt64(first.rawValue))
        }
        boards[selection] = Board(name: name, selection: selection, countProperty: countProperty,
                                  counter: counter, served: nil)
        x.watchSelection(selection, on: ownerWindow)
        publish(selection)
    }

    func count(of name: PasteboardName) -> UInt64? {
        boards.values.first { $0.name == name }?.counter.count
    }

    func isOwned(_ name: PasteboardName) -> Bool {
        boards.values.first { $0.name == name }?.served != nil
    }

    /// The content the daemon serves for `name`, if it owns it.
    func content(of name: PasteboardName) -> PasteboardContent? {
        boards.values.first { $0.name == name }?.served?.content
    }

    /// What an X requestor asking for the first of `types` that `name` offers would get, without the X
    /// transfer: for a client of the control socket (`pb paste`). A text type's value is then turned into
    /// UTF-8 as `pb paste` does with what X gives (STRING's `?` for what Latin-1 lacks stays `?`). Nil when the daemon does not own `name` — confirmed with the server (one round trip), so a
    /// copy another client made a moment ago is never answered with the content it replaced — or when
    /// none of `types` is offered or can be produced. Counts as a paste for paste-once content.
    func read(_ name: PasteboardName, types: [String]) -> (type: String, bytes: [UInt8])? {
        guard let (selection, board) = boards.first(where: { $0.value.name == name }), let served = board.served,
              x.selectionOwner(selection) == ownerWindow else { return nil }
        let failuresBefore = served.failures.count
        defer { logFailures(of: served, since: failuresBefore, on: name) }
        for type in types {
            guard let value = served.value(for: x.intern(type), textTargets: textTargets,
                                           compoundText: x.compoundText(fromUTF8:)) else { continue }
            let bytes = PasteboardType(type).isText
                ? textTargets.utf8(from: value, decodeCompoundText: x.utf8(fromCompoundText:))
                : value.bytes
            guard let bytes else { continue }
            notePaste(on: selection)
            return (type, bytes)
        }
        return nil
    }

    /// Stops watching and serving `name` (a named pasteboard being removed): releases it if owned.
    func unwatch(_ name: PasteboardName) {
        guard let (selection, board) = boards.first(where: { $0.value.name == name }) else { return }
        if let served = board.served, x.selectionOwner(selection) == ownerWindow {
            x.setSelectionOwner(selection, owner: .none, time: served.acquiredAt)
        }
        x.watchSelection(selection, on: ownerWindow, mask: [])
        x.deleteProperty(x.root, board.countProperty)
        retiredCounts[name] = board.counter.count
        boards[selection] = nil
    }

    private func publish(_ selection: Atom) {
        guard let board = boards[selection] else { return }
        do { try countStore.record(counts) } catch {
            log.limited(.warning, key: "count-store", "cannot save change counts: \(error)")
        }
        record(.housekeeping)
        x.changeProperty(x.root, board.countProperty,
                         PropertyValue(type: x.atoms.cardinal, longs: [UInt32(truncatingIfNeeded: board.counter.count)]))
        // Done by the server before any client hears of the count (one round trip): a crash after that
        // cannot lose it, and a client told the count (pb copy) that reads the property (pb count) sees it.
        x.sync()
    }

    // MARK: - Changing ownership

    /// Takes `name` with `content`. Completes with the new changeCount once the server confirmed the
    /// daemon as owner, so that a client told "done" can paste at once.
    func own(_ name: PasteboardName, content: PasteboardContent, silent: Bool = false, pasteOnce: Bool = false,
             completion: @escaping Completion) {
        guard let selection = boards.first(where: { $0.value.name == name })?.key else {
            completion(.failure(.notWatched(name)))
            return
        }
        pending.append(.own(selection, content, silent: silent, pasteOnce: pasteOnce, completion))
        requestServerTime()
    }

    /// Takes `selection` (not a pasteboard) for the daemon's window with a real server time; the
    /// completion gets that time, or nil if another client holds it with a later time.
    func acquire(_ selection: Atom, completion: @escaping (Timestamp?) -> Void) {
        pending.append(.acquire(selection, completion))
        requestServerTime()
    }

    /// Counts a change that no ownership event counted: the owner vanished and nothing took over.
    func countExternalChange(_ name: PasteboardName) {
        guard let selection = boards.first(where: { $0.value.name == name })?.key else { return }
        let count = boards[selection]!.counter.recordExternalChange()
        publish(selection)
        onChange?(name, count, .empty, [])
    }

    /// Sets `name`'s owner to None (the pasteboard becomes empty).
    func clear(_ name: PasteboardName, completion: @escaping Completion) {
        guard let selection = boards.first(where: { $0.value.name == name })?.key else {
            completion(.failure(.notWatched(name)))
            return
        }
        pending.append(.clear(selection, completion))
        requestServerTime()
    }

    /// ICCCM 2.1: a real timestamp comes from a zero-length append to our own property; the
    /// PropertyNotify that follows carries the server time.
    private func requestServerTime() {
        record(.housekeeping)
        x.changeProperty(ownerWindow, timestampProperty, PropertyValue(type: x.atoms.integer, bytes: []), mode: .append)
    }

    private func serverTimeArrived(_ time: Timestamp) {
        guard !pending.isEmpty else { return }
        switch pending.removeFirst() {
        case .acquire(let selection, let completion):
            record(.housekeeping)
            x.setSelectionOwner(selection, owner: ownerWindow, time: time)
            completion(x.selectionOwner(selection) == ownerWindow ? time : nil)
        case .own(let selection, let content, let silent, let pasteOnce, let completion):
            record(.housekeeping)
            x.setSelectionOwner(selection, owner: ownerWindow, time: time)
            guard x.selectionOwner(selection) == ownerWindow, var board = boards[selection] else {
                completion(.failure(x.isConnectionLost ? .connectionLost : .lostRace(boards[selection]?.name ?? .general)))
                return
            }
            board.served = ServedContent(content: content, acquiredAt: time, atoms: x.atoms, intern: x.intern)
            board.pasteOnce = pasteOnce
            board.pasteOnceDeadline = nil
            if silent {
                board.counter.recordSilentOwnChange(ownerIsUs: true, time: time)
                boards[selection] = board
                log.info("took over \(board.name) with the content it had (count stays \(board.counter.count), \(content.types.count) types, \(content.byteCount) bytes)")
                completion(.success(board.counter.count))
                return
            }
            let count = board.counter.recordOwnChange(ownerIsUs: true, time: time)
            boards[selection] = board
            publish(selection)
            log.info("took \(board.name) (count \(count), \(content.items.count) items, \(content.types.count) types, \(content.byteCount) bytes)")
            // The client is answered first: keeping the content (history, archive, with fsync) can take
            // a while for large copies and the copy is already served.
            completion(.success(count))
            manager?.daemonOwned(board.name, content: content, count: count)
            onChange?(board.name, count, content.isSensitive ? .sensitive : .data, content.types)
        case .clear(let selection, let completion):
            guard var board = boards[selection] else { return }
            record(.housekeeping)
            x.setSelectionOwner(selection, owner: .none, time: time)
            board.served = nil
            let count = board.counter.recordOwnChange(ownerIsUs: false, time: time)
            boards[selection] = board
            publish(selection)
            log.info("cleared \(board.name) (count \(count))")
            manager?.cleared(board.name)
            onChange?(board.name, count, .clear, [])
            completion(.success(count))
        }
    }

    /// Releases every selection the daemon owns (at exit).
    /// Every pasteboard's count, those no longer watched included.
    var counts: [PasteboardName: UInt64] {
        var counts = retiredCounts
        for board in boards.values { counts[board.name] = board.counter.count }
        return counts
    }

    /// Saves the exact counts (a clean stop: the next start continues from them, not from the lease).
    func saveCountsExactly() {
        do { try countStore.saveExactly(counts) } catch {
            log.warning("cannot save change counts: \(error)")
        }
    }

    func releaseAll() {
        for (selection, board) in boards where board.served != nil {
            if x.selectionOwner(selection) == ownerWindow {
                x.setSelectionOwner(selection, owner: .none, time: board.served!.acquiredAt)
            }
            boards[selection]?.served = nil
        }
        x.flush()
    }

    // MARK: - Events

    /// Handles one X event. Events that concern no selection are ignored.
    func handle(_ event: XEventValue) {
        if manager?.handle(event) == true { return }
        switch event {
        case .selectionRequest(let request):
            answer(request)
        case .propertyNotify(let window, let property, let time, let deleted):
            if window == ownerWindow && property == timestampProperty && !deleted {
                serverTimeArrived(time)
            } else if deleted {
                advanceTransfer(TransferKey(requestor: window, property: property))
            }
        case .selectionClear(let selection, let window, _):
            if window == ownerWindow && boards[selection] == nil {
                manager?.lostSelection(selection)
            } else if window == ownerWindow, let name = boards[selection]?.name, boards[selection]?.served != nil {
                boards[selection]?.served = nil
                log.info("lost \(name) to another client")
            }
        case .destroyNotify(let window):
            dropTransfers(of: window, reason: "requestor window destroyed", windowGone: true)
        case .selectionOwnerChange(let change):
            ownerChanged(change)
        default:
            break
        }
    }

    private func ownerChanged(_ change: SelectionOwnerChange) {
        guard var board = boards[change.selection] else { return }
        let counted: Bool
        let state: ChangeState
        switch change.kind {
        case .setOwner:
            let ownerIsUs = change.owner == ownerWindow
            counted = board.counter.observeOwnerChange(ownerIsUs: ownerIsUs, selectionTime: change.selectionTime)
            if !ownerIsUs { board.served = nil }
            state = change.owner.isNone ? .clear : .foreign
            boards[change.selection] = board
            if change.owner.isNone {
                manager?.cleared(board.name)
            } else if !ownerIsUs && counted {
                manager?.foreignOwnerChanged(board.name, selection: change.selection, owner: change.owner, count: board.counter.count)
            }
        case .windowDestroyed, .clientClosed:
            if board.served != nil { return }   // not about the daemon's own ownership
            // The owner went away and the selection is empty now: a change users notice, unless the
            // clipboard manager takes over with the content it read (then it is not a change at all).
            if manager?.ownerVanished(board.name, selection: change.selection) == true {
                return
            }
            _ = board.counter.recordExternalChange()
            counted = true
            state = .empty
        }
        boards[change.selection] = board
        if counted {
            publish(change.selection)
            log.debug("\(board.name) changed (count \(board.counter.count))")
            onChange?(board.name, board.counter.count, state, [])
        }
    }

    // MARK: - Serving

    private func answer(_ request: SelectionRequest) {
        if boards[request.selection] == nil, manager?.answer(request) == true { return }
        guard let served = boards[request.selection]?.served else {
            // Not ours (any more): refuse so the requestor does not wait.
            record(.reply(requestor: request.requestor))
            x.sendSelectionNotify(requestor: request.requestor, selection: request.selection,
                                  target: request.target, property: .none, time: request.time)
            return
        }
        var pairs: [Atom]? = nil
        var pairsOverCap: Int? = nil
        if request.target == x.atoms.multiple && !request.property.isNone {
            record(.reply(requestor: request.requestor))
            let read = x.getProperty(request.requestor, request.property, delete: false,
                                     maximumBytes: responder.maximumMultiplePairs * 8)
            if let value = read.value {
                if read.bytesAfter == 0 { pairs = value.atoms } else { pairsOverCap = (value.byteCount + read.bytesAfter) / 8 }
            }
        }
        let failuresBefore = served.failures.count
        let plan = responder.plan(
            for: request, acquiredAt: served.acquiredAt, offered: served.offered, multiplePairs: pairs,
            convert: { served.value(for: $0, textTargets: textTargets, compoundText: x.compoundText(fromUTF8:)) })
        record(.reply(requestor: request.requestor))
        for write in plan.writes {
            x.changeProperty(request.requestor, write.property, write.value)
        }
        for transfer in plan.transfers { begin(transfer) }
        x.sendSelectionNotify(requestor: request.requestor, selection: request.selection, target: request.target,
                              property: plan.notifyProperty, time: request.time)
        if !plan.isRefused, !plan.writes.isEmpty, ![x.atoms.targets, x.atoms.timestamp].contains(request.target) {
            notePaste(on: request.selection)
        }
        if let name = boards[request.selection]?.name { logFailures(of: served, since: failuresBefore, on: name) }
        logRefusals(of: plan, for: request, pairsOverCap: pairsOverCap)
    }

    /// Logs why a request was refused, never content. A malformed or oversized MULTIPLE is a peer breaking
    /// the protocol or the daemon's cap: one info line per request (rate-limited). Other refusals (stale
    /// requests, targets not offered, side effects) are ordinary client behaviour: debug only.
    /// `pairsOverCap` is the pair count of a MULTIPLE list too long to read (more than the cap).
    private func logRefusals(of plan: ReplyPlan, for request: SelectionRequest, pairsOverCap: Int?) {
        let multipleRefusals = plan.refusals.filter {
            if case .tooManyPairs = $0 { return true }
            return $0 == .malformedMultiple || $0 == .nestedMultiple
        }
        if plan.isRefused, !multipleRefusals.isEmpty, let pairsOverCap {
            log.limited(.info, key: "multiple-over-cap", "refused a MULTIPLE request from \(request.requestor): \(pairsOverCap) pairs, over the cap of \(responder.maximumMultiplePairs)")
        } else if plan.isRefused, !multipleRefusals.isEmpty {
            log.limited(.info, key: "multiple-malformed", "refused a MULTIPLE request from \(request.requestor): no property, or no readable list of ATOM_PAIRs (format 32, an even number of atoms)")
        } else if !multipleRefusals.isEmpty {
            log.limited(.info, key: "multiple-malformed", "refused \(multipleRefusals.count) pairs of a MULTIPLE request from \(request.requestor): MULTIPLE inside MULTIPLE, or a pair without a property")
        }
        for refusal in plan.refusals where !multipleRefusals.contains(refusal) {
            log.limited(.debug, key: "refusal", "refused a request: \(refusal)")
        }
    }

    /// Content was handed out: paste-once content is cleared once the paste's requests go quiet.
    private func notePaste(on selection: Atom) {
        if boards[selection]?.pasteOnce == true {
            boards[selection]?.pasteOnceDeadline = clock.now() + Self.pasteOnceQuietPeriod
        }
    }

    /// Logs the conversions that failed since `index` (their reason, never content), rate-limited.
    private func logFailures(of served: ServedContent, since index: Int, on name: PasteboardName) {
        for (type, reason) in served.failures.dropFirst(index) {
            log.limited(.warning, key: "conversion", "could not derive \(type) for \(name.rawValue): \(reason)")
        }
    }

    /// Answers a request for a selection that is not a pasteboard (the manager selection) with the
    /// protocol targets plus `offered`, converting them with `convert`.
    func answer(_ request: SelectionRequest, acquiredAt: Timestamp, offered: [Atom], convert: (Atom) -> PropertyValue?) {
        let plan = responder.plan(for: request, acquiredAt: acquiredAt, offered: offered, multiplePairs: nil, convert: convert)
        record(.reply(requestor: request.requestor))
        for write in plan.writes { x.changeProperty(request.requestor, write.property, write.value) }
        for transfer in plan.transfers { begin(transfer) }
        x.sendSelectionNotify(requestor: request.requestor, selection: request.selection, target: request.target,
                              property: plan.notifyProperty, time: request.time)
    }

    /// Labels the next request's serial as a reply to `requestor` (for error attribution).
    func noteReply(to requestor: WindowID) { record(.reply(requestor: requestor)) }

    private func begin(_ send: IncrSend) {
        if transfers[send.key] != nil {
            // The requestor reused the property before the last transfer ended: that one is abandoned.
            endTransfer(send.key, reason: nil)
        }
        transfers[send.key] = ActiveTransfer(send: send, deadline: clock.now() + transferTimeout)
        let window = send.key.requestor
        if transfersPerWindow[window, default: 0] == 0 {
            x.selectInput(window, [.propertyChange, .structureNotify])
        }
        transfersPerWindow[window, default: 0] += 1
    }

    private func advanceTransfer(_ key: TransferKey) {
        guard var active = transfers[key] else { return }
        let step = active.send.propertyDeleted()
        record(.transfer(key))
        switch step {
        case .writeChunk(let range):
            active.send.data.withUnsafeBytes { all in
                x.changeProperty(key.requestor, key.property, type: active.send.type,
                                 bytes: UnsafeRawBufferPointer(rebasing: all[range]))
            }
            active.deadline = clock.now() + transferTimeout
            transfers[key] = active
        case .writeEnd:
            x.changeProperty(key.requestor, key.property, PropertyValue(type: active.send.type, bytes: []))
            endTransfer(key, reason: nil)
        case .done:
            endTransfer(key, reason: nil)
        }
    }

    /// Forgets a transfer; when it was the window's last, clears the daemon's event mask on that
    /// window unless the window is already gone.
    private func endTransfer(_ key: TransferKey, reason: String?, windowGone: Bool = false) {
        guard transfers.removeValue(forKey: key) != nil else { return }
        if let reason { log.limited(.info, key: "transfer-dropped", "dropped an INCR transfer: \(reason)") }
        let window = key.requestor
        let remaining = transfersPerWindow[window, default: 1] - 1
        if remaining <= 0 {
            transfersPerWindow[window] = nil
            if !windowGone {
                record(.transfer(key))
                x.selectInput(window, [])
            }
        } else {
            transfersPerWindow[window] = remaining
        }
    }

    private func dropTransfers(of window: WindowID, reason: String, windowGone: Bool = false) {
        for key in transfers.keys where key.requestor == window { endTransfer(key, reason: reason, windowGone: windowGone) }
    }

    // MARK: - Time and errors

    /// The earliest deadline (an INCR transfer's, a paste-once clear), for the loop's poll timeout.
    var nextDeadline: MonotonicInstant? {
        (transfers.values.map(\.deadline) + boards.values.compactMap(\.pasteOnceDeadline)).min()
    }

    /// Drops transfers whose requestor has been idle past the timeout.
    func expireTransfers(now: MonotonicInstant) {
        for board in boards.values where board.pasteOnceDeadline.map({ $0 <= now }) == true {
            boards[board.selection]?.pasteOnceDeadline = nil
            boards[board.selection]?.pasteOnce = false
            log.info("\(board.name) was pasted once: clearing it")
            clear(board.name) { _ in }
        }
        for (key, active) in transfers where active.deadline <= now {
            endTransfer(key, reason: "requestor idle for \(transferTimeout)")
        }
    }

    private func record(_ operation: Operation) {
        let serial = x.nextRequestSerial
        if let last = operations.last, last.serial == serial { operations[operations.count - 1].operation = operation; return }
        operations.append((serial, operation))
        if operations.count > 8192 { operations.removeFirst(4096) }
    }

    /// Matches errors to the operations that caused them: a failed reply or transfer ends the
    /// requestor's transfers; each error is logged (rate-limited), never fatal.
    func handle(errors: [XProtocolError]) {
        for error in errors {
            let operation = operations.last(where: { $0.serial <= error.serial })?.operation ?? .housekeeping
            switch operation {
            case .reply(let requestor):
                log.limited(.info, key: "x-error-reply", "X error answering \(requestor): \(error)")
                dropTransfers(of: requestor, reason: "X error \(error.name)")
            case .transfer(let key):
                log.limited(.info, key: "x-error-transfer", "X error in INCR transfer to \(key.requestor): \(error)")
                dropTransfers(of: key.requestor, reason: "X error \(error.name)")
            case .housekeeping:
                log.limited(.warning, key: "x-error", "X error: \(error)")
            }
        }
    }
}
