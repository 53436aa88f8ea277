// SPDX-License-Identifier: Apache-2.0
import Selection
import SystemSupport
import XTypes

/// The INCR transfers the daemon is sending (ICCCM 2.5): each an `IncrSend` with an idle deadline.
///
/// The requestor's window is watched (PropertyChange, StructureNotify) while it has transfers and left
/// alone after its last one ends; a transfer whose requestor is idle past the timeout, whose window dies
/// or that causes an X error is dropped (one log line, rate-limited).
final class IncrTransfers {
    struct Active {
        var send: IncrSend
        var deadline: MonotonicInstant
    }

    private let x: any XDisplay
    private let clock: any MonotonicClock
    private let log: Logger
    private let serials: SerialLabels
    let timeout: Duration
    private(set) var active: [TransferKey: Active] = [:]
    private var perWindow: [WindowID: Int] = [:]

    init(x: any XDisplay, clock: any MonotonicClock, log: Logger, serials: SerialLabels, timeout: Duration) {
        self.x = x
        self.clock = clock
        self.log = log
        self.serials = serials
        self.timeout = timeout
    }

    var count: Int { active.count }
    var nextDeadline: MonotonicInstant? { active.values.map(\.deadline).min() }

    /// Registers a transfer whose header was written.
    func begin(_ send: IncrSend) {
        if active[send.key] != nil {
            // The requestor reused the property before the last transfer ended: that one is abandoned.
            end(send.key, reason: nil)
        }
        active[send.key] = Active(send: send, deadline: clock.now() + timeout)
        let window = send.key.requestor
        if perWindow[window, default: 0] == 0 {
            serials.label(.transfer(send.key))
            x.selectInput(window, [.propertyChange, .structureNotify])
        }
        perWindow[window, default: 0] += 1
    }

    /// The requestor deleted the property: writes the next chunk, or the end.
    func propertyDeleted(_ key: TransferKey) {
        guard var transfer = active[key] else { return }
        let step = transfer.send.propertyDeleted()
        carryOut(step, key, &transfer)
    }

    /// The payload of a transfer that waits for more bytes (bytes relayed as they arrive) grew, ended or failed.
    private func bytesArrived(_ key: TransferKey) {
        guard var transfer = active[key] else { return }
        if case .source(let source) = transfer.send.payload, let arriving = source as? ArrivingBytes, let failure = arriving.failure {
            // The requestor sees a transfer cut off, never bytes of something else.
            end(key, reason: "the content relayed from another display could not be read: \(failure)")
            return
        }
        let step = transfer.send.bytesArrived()
        carryOut(step, key, &transfer)
    }

    private func carryOut(_ step: IncrSend.Step, _ key: TransferKey, _ transfer: inout Active) {
        serials.label(.transfer(key))
        switch step {
        case .writeChunk(let range):
            do {
                try transfer.send.payload.withChunk(range) { chunk in
                    x.changeProperty(key.requestor, key.property, type: transfer.send.type, bytes: chunk)
                }
            } catch {
                // The file the content is served from failed to read: the requestor's transfer ends short of
                // its size (it sees a transfer cut off, never other bytes), and the reason is logged.
                end(key, reason: error is ArrivingBytes.Failed ? "the content relayed from another display stopped: \(error)"
                    : "its content could not be read from its file: \(error)")
                return
            }
            transfer.deadline = clock.now() + timeout
            active[key] = transfer
        case .writeEnd:
            x.changeProperty(key.requestor, key.property, PropertyValue(type: transfer.send.type, bytes: []))
            end(key, reason: nil)
        case .done:
            end(key, reason: nil)
        case .waitForMore:
            // The requestor is ready and the bytes are not: its idle time counts from when they come. (The
            // reading side has deadlines of its own: a stalled owner fails the bytes, which ends this.)
            transfer.deadline = clock.now() + timeout
            active[key] = transfer
            guard case .source(let source) = transfer.send.payload, let arriving = source as? ArrivingBytes else {
                return end(key, reason: "its content stopped short")
            }
            arriving.whenChanged { [weak self] in self?.bytesArrived(key) }
        }
    }

    /// Forgets a transfer; when it was the window's last, clears the daemon's event mask on that window
    /// unless the window is already gone.
    func end(_ key: TransferKey, reason: String?, windowGone: Bool = false) {
        guard active.removeValue(forKey: key) != nil else { return }
        if let reason { log.limited(.info, key: "transfer-dropped", "dropped an INCR transfer: \(reason)") }
        let window = key.requestor
        let remaining = perWindow[window, default: 1] - 1
        if remaining <= 0 {
            perWindow[window] = nil
            if !windowGone {
                serials.label(.transfer(key))
                x.selectInput(window, [])
            }
        } else {
            perWindow[window] = remaining
        }
    }

    func drop(window: WindowID, reason: String, windowGone: Bool = false) {
        for key in active.keys where key.requestor == window { end(key, reason: reason, windowGone: windowGone) }
    }

    /// Drops transfers whose requestor has been idle past the timeout.
    func expire(now: MonotonicInstant) {
        for (key, transfer) in active where transfer.deadline <= now {
            end(key, reason: "requestor idle for \(timeout)")
        }
    }
}

/// What each request serial was spent on, so that an X error (which names only a serial) is traced to
/// its cause: a reply to a requestor, an INCR transfer, or the daemon's own housekeeping.
final class SerialLabels {
    enum Operation: Equatable {
        case reply(requestor: WindowID)
        case transfer(TransferKey)
        case housekeeping
        /// Looking up who a window belongs to (`SourceLookup`): a window gone meanwhile is no fault.
        case lookup
    }

    /// Runs `body` (requests that look a window up) labelled `.lookup`, then labels what follows housekeeping.
    func lookingUp<Result>(_ body: () -> Result) -> Result {
        label(.lookup)
        defer { label(.housekeeping) }
        return body()
    }

    private let x: any XDisplay
    private var labels: [(serial: UInt64, operation: Operation)] = []

    init(x: any XDisplay) { self.x = x }

    /// Labels the requests from the next serial on (until the next label) as `operation`.
    func label(_ operation: Operation) {
        let serial = x.nextRequestSerial
        if let last = labels.last, last.serial == serial { labels[labels.count - 1].operation = operation; return }
        labels.append((serial, operation))
        if labels.count > 8192 { labels.removeFirst(4096) }
    }

    /// The operation that spent `serial`.
    func operation(for serial: UInt64) -> Operation {
        labels.last(where: { $0.serial <= serial })?.operation ?? .housekeeping
    }
}
