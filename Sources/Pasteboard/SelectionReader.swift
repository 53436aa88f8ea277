import Selection
import XTypes
import SystemSupport
import XClient

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
    /// The owner sent a malformed INCR stream.
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
}

/// Reads selections as an ICCCM requestor, blocking the calling thread with a timeout: convert, wait
/// for SelectionNotify, read the property, and follow INCR to the end.
///
/// Uses one window and one property of its own; each read starts from a deleted property, so a late
/// reply to an earlier request cannot be mistaken for data.
public final class SelectionReader {
    public let x: XConnection
    private let window: WindowID
    private let property: Atom
    private let clock = SystemClock()
    /// How long to wait for an answer before asking again.
    static let retryInterval: Duration = .seconds(1)

    public init(x: XConnection) {
        self.x = x
        window = x.createWindow(eventMask: [.propertyChange])
        property = x.intern("_PASTEBOARD_SELECTION")
    }

    deinit {
        x.destroyWindow(window)
        x.flush()
    }

    /// The current owner of `selection` (one round trip).
    public func owner(of selection: Atom) -> WindowID { x.selectionOwner(selection) }

    /// Converts `selection` to `target` and returns the value.
    /// - Parameters:
    ///   - timeoutMilliseconds: how long to wait for the owner's answer, and for each INCR chunk.
    ///   - cap: the most bytes accepted.
    public func read(_ selection: Atom, target: Atom, timeoutMilliseconds: Int, cap: Int = 1 << 30) throws(SelectionReadError) -> PropertyValue {
        if owner(of: selection).isNone { throw .empty }
        let timeout = Duration.milliseconds(timeoutMilliseconds)
        let finalDeadline = clock.now() + timeout
        var deadline = finalDeadline
        // Some owners drop requests that arrive while they are busy (xclip serves one INCR transfer at a
        // time and ignores everything else meanwhile), so an unanswered request is asked again every
        // second until the timeout. The content is the same whichever reply arrives.
        var notified: XEventValue?
        while notified == nil {
            x.deleteProperty(window, property)
            x.convertSelection(selection, target: target, property: property, requestor: window, time: .currentTime)
            x.flush()
            let attemptDeadline = min(clock.now() + Self.retryInterval, finalDeadline)
            do {
                notified = try waitFor(deadline: attemptDeadline) { event in
                    if case .selectionNotify(let requestor, let s, _, _, _) = event { return requestor == window && s == selection }
                    return false
                }
            } catch .timedOut where clock.now() < finalDeadline {
                if owner(of: selection).isNone { throw .empty }
            }
        }
        guard let notified else { throw .timedOut }
        guard case .selectionNotify(_, _, _, let replyProperty, _) = notified, !replyProperty.isNone else {
            throw .refused
        }
        let read = x.getProperty(window, replyProperty, delete: true, maximumBytes: cap + 1)
        guard let value = read.value else { throw .refused }
        if read.bytesAfter > 0 || value.byteCount > cap { throw .tooLarge(cap) }
        guard value.type == x.atoms.incr else { return value }

        // INCR: reading the header with delete started the stream; collect chunks until a zero-length one.
        var receive = IncrReceive(cap: cap, sizeHint: Int(value.atoms.first?.rawValue ?? 0))
        while true {
            deadline = clock.now() + timeout
            _ = try waitFor(deadline: deadline) { event in
                if case .propertyNotify(let w, let p, _, let deleted) = event { return w == window && p == replyProperty && !deleted }
                return false
            }
            let chunk = x.getProperty(window, replyProperty, delete: true, maximumBytes: cap + 1)
            guard let chunkValue = chunk.value else { continue }
            guard case .bytes(let bytes) = chunkValue.items else {
                throw .malformedTransfer("a chunk of format \(chunkValue.format)")
            }
            switch receive.receive(type: chunkValue.type, bytes: bytes) {
            case .needMore: continue
            case .complete: return PropertyValue(type: receive.type ?? chunkValue.type, bytes: receive.data)
            case .overCap: throw .tooLarge(cap)
            case .typeMismatch: throw .malformedTransfer("chunks of different types")
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
            let ready = (try? Poller.wait([PollRequest(FileDescriptor(rawValue: x.fileDescriptor), .readable)],
                                          timeoutMilliseconds: now.millisecondsUntil(deadline))) ?? []
            if let events = ready.first, events.contains(.hangup) || events.contains(.error) {
                _ = x.pendingEvents()
                if x.isConnectionLost { throw .connectionLost }
            }
        }
    }
}
