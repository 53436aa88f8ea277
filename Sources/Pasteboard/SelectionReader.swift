// SPDX-License-Identifier: Apache-2.0
import Selection
import SystemSupport
import XTypes

/// Why a selection could not be read.
public enum SelectionReadError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The selection has no owner.
    case empty
    /// The owner refused the target (it does not offer it).
    case refused
    /// The owner did not answer, or stopped sending, within the timeout.
    case timedOut
    /// The data is larger than the caller's cap.
    case tooLarge(Int)
    /// The owner sent a malformed INCR transfer (read to its end and thrown away).
    case malformedTransfer(String)
    case connectionLost

    public var description: String {
        switch self {
        case .empty: "the selection is empty (no owner)"
        case .refused: "the owner does not offer that type"
        case .timedOut: "the owner did not answer in time"
        case .tooLarge(let cap): "the data is larger than \(cap) bytes"
        case .malformedTransfer(let why): "the owner sent a malformed INCR transfer: \(why)"
        case .connectionLost: "the X connection was lost"
        }
    }

    init(_ failure: SelectionReadFailure) {
        switch failure {
        case .refused: self = .refused
        case .tooLarge(let cap, _): self = .tooLarge(cap)
        case .malformed(let why): self = .malformedTransfer(why)
        case .timedOut, .abandoned: self = .timedOut
        }
    }
}

/// Reads selections as an ICCCM requestor, blocking the calling thread with a timeout: a driver of
/// `SelectionRead`, the requestor state machine the daemon's snapshots drive too (one policy: an INCR
/// transfer over the cap or malformed is drained to its end before the error is reported).
///
/// Uses one window and one property of its own; each read starts from a deleted property, so a late
/// reply to an earlier request cannot be mistaken for data.
public final class SelectionReader {
    public let x: any XDisplay
    private var window: WindowID
    private let property: Atom
    private let clock: any MonotonicClock
    /// How long to wait for an answer before asking again: some owners drop requests that arrive while
    /// they are busy (xclip serves one INCR transfer at a time and ignores everything else meanwhile).
    static let retryInterval: Duration = .seconds(1)
    /// How long one transfer (a drain included) may last in all, in timeouts: a bound whatever the owner does.
    static let transferBudgetInTimeouts = 10

    public init(x: any XDisplay, clock: any MonotonicClock = SystemClock()) {
        self.x = x
        self.clock = clock
        window = x.createWindow(eventMask: [.propertyChange])
        property = x.intern("_PASTEBOARD_SELECTION")
    }

    deinit {
        x.destroyWindow(window)
        x.flush()
    }

    /// The current owner of `selection` (one round trip).
    public func owner(of selection: Atom) -> WindowID { x.selectionOwner(selection) }

    /// Converts `selection` to `target` and returns the value (the owner's type included, for the caller
    /// to check against what it asked for).
    /// - Parameters:
    ///   - timeoutMilliseconds: how long to wait for the owner's answer, and for each INCR chunk.
    ///   - cap: the most bytes accepted.
    public func read(_ selection: Atom, target: Atom, timeoutMilliseconds: Int, cap: Int = 1 << 30) throws(SelectionReadError) -> PropertyValue {
        if owner(of: selection).isNone { throw .empty }
        let timeout = Duration.milliseconds(timeoutMilliseconds)
        let started = clock.now()
        var read = SelectionRead(target: target, property: property, cap: cap, incrAtom: x.atoms.incr,
                               advise: { HugePages.advise($0, count: $1) })
        var deadline = started + timeout
        var nextAsk = started
        while true {
            let now = clock.now()
            if read.phase == .asking && now >= nextAsk && now < deadline {
                x.deleteProperty(window, property)
                x.convertSelection(selection, target: target, property: property, requestor: window, time: .currentTime)
                x.flush()
                nextAsk = now + Self.retryInterval
            }
            if read.isTransferring && now - started >= timeout * Self.transferBudgetInTimeouts {
                let failure = read.abandon("the transfer lasted longer than \(timeout * Self.transferBudgetInTimeouts)")
                freshWindow()
                throw SelectionReadError(failure)
            }
            let event: XEventValue
            do {
                event = try waitFor(deadline: read.phase == .asking ? min(nextAsk, deadline) : deadline) { [window] event in
                    switch event {
                    case .selectionNotify(let requestor, let s, _, _, _): return requestor == window && s == selection
                    case .propertyNotify(let w, let p, _, let deleted): return w == window && p == read.replyProperty && !deleted
                    default: return false
                    }
                }
            } catch .timedOut {
                // Ask again while time is left (a display without a descriptor to wait on — a fake server —
                // has delivered all it ever will: nothing comes by asking again).
                if x.pollDescriptor != nil && clock.now() < deadline && read.phase == .asking {
                    if owner(of: selection).isNone { throw .empty }
                    continue
                }
                let failure = read.timedOut()
                if case .asking = read.phase {} else { freshWindow() }
                throw SelectionReadError(failure)
            }
            var step: SelectionRead.Step
            switch event {
            case .selectionNotify(_, _, _, let replyProperty, _): step = read.notified(property: replyProperty)
            default: step = read.chunkArrived()
            }
            while true {
                switch step {
                case .readProperty(let offset, let maximumBytes):
                    step = x.withProperty(window, read.replyProperty, offset: offset, delete: true,
                                          maximumBytes: maximumBytes) { read.replyRead($0, bytes: $1) }
                    continue
                case .deleteProperty:
                    x.deleteProperty(window, read.replyProperty)
                    throw SelectionReadError(read.overCapFailure)
                case .wait:
                    deadline = clock.now() + timeout
                case .finished(.success(let value)):
                    return value
                case .finished(.failure(let failure)):
                    throw SelectionReadError(failure)
                }
                break
            }
        }
    }

    /// The targets the owner of `selection` offers, as atom names, in the owner's order, without
    /// duplicates.
    public func targets(_ selection: Atom, timeoutMilliseconds: Int) throws(SelectionReadError) -> [String] {
        let value = try read(selection, target: x.atoms.targets, timeoutMilliseconds: timeoutMilliseconds, cap: 1 << 20)
        var seen: Set<Atom> = []
        let atoms = value.atoms.filter { !$0.isNone && seen.insert($0).inserted }
        return atoms.compactMap { x.name(of: $0) }
    }

    /// A new window for the next read, so that chunks of an abandoned transfer go nowhere (the owner
    /// gets BadWindow and ends its side).
    private func freshWindow() {
        x.destroyWindow(window)
        window = x.createWindow(eventMask: [.propertyChange])
    }

    /// Processes events until `matches` accepts one or the deadline passes.
    private func waitFor(deadline: MonotonicInstant, _ matches: (XEventValue) -> Bool) throws(SelectionReadError) -> XEventValue {
        while true {
            while x.pendingEvents() > 0 {
                let event = x.nextEvent()
                if matches(event) { return event }
            }
            if x.isConnectionLost { throw .connectionLost }
            let now = clock.now()
            if now >= deadline { throw .timedOut }
            guard let descriptor = x.pollDescriptor else { throw .timedOut }
            let ready = (try? Poller.wait([PollRequest(FileDescriptor(rawValue: descriptor), .readable)],
                                          timeoutMilliseconds: now.millisecondsUntil(deadline))) ?? []
            if let events = ready.first, events.contains(.hangup) || events.contains(.error) {
                _ = x.pendingEvents()
                if x.isConnectionLost { throw .connectionLost }
            }
        }
    }
}
