import PasteboardCore
import Selection
import XTypes
import SystemSupport
import XClient

/// Reads another application's selection in the background, one target at a time, as an ICCCM
/// requestor driven by the event loop: it never blocks, and one slow owner delays nothing else.
///
/// Each snapshot has its own requestor window. It asks for TARGETS, then reads the targets
/// `SnapshotPolicy` chooses, each at most once, each capped; INCR transfers are followed, and one
/// that grows past its cap is drained to the end (read and thrown away) rather than abandoned, since
/// owners such as xclip serve one INCR at a time and stay stuck if a requestor walks away. A target
/// whose owner does not answer in time is skipped with a fresh window, so a late reply cannot land as
/// data; two such timeouts in a row end the snapshot.
///
/// Every target's read is bounded whatever the owner does: an INCR chunk whose format is not 8 makes
/// the target unreadable (drained, never kept with a hole in it), and any read, a drain included, stops
/// once it has lasted `transferBudget`; the target is then abandoned with a fresh window (one log line).
/// So a snapshot always ends. (Bytes cannot bound a drain: xclip announces no size in its INCR header.)
final class Snapshotter {
    enum Outcome {
        /// What was read, as one item (possibly without every target).
        case complete(PasteboardContent, skipped: [String])
        /// The owner marked the content secret (password managers): nothing was kept.
        case secret
        /// Nothing could be read.
        case failed(String)
    }

    struct Request {
        var selection: Atom
        var name: PasteboardName
        /// For SAVE_TARGETS: the targets the owner asked to be saved (nil: read TARGETS).
        var targets: [Atom]?
        var completion: (Outcome) -> Void
    }

    private enum Phase {
        case targets
        case hint(String)
        case data(String)
        case incr(String, IncrReceive, draining: Bool)
    }

    private final class Active {
        let request: Request
        var window: WindowID
        var phase: Phase = .targets
        var queue: [String] = []
        var fetched: [(type: PasteboardType, data: [UInt8])] = []
        var skipped: [String] = []
        var total = 0
        var deadline: MonotonicInstant
        var consecutiveTimeouts = 0
        /// When the current target was asked for (its read must end within `transferBudget`).
        var targetStarted: MonotonicInstant
        init(request: Request, window: WindowID, deadline: MonotonicInstant) {
            self.request = request
            self.window = window
            self.deadline = deadline
            self.targetStarted = deadline
        }
    }

    private let x: XConnection
    private let clock: any MonotonicClock
    private let log: Logger
    var policy: SnapshotPolicy
    var ownerTimeout: Duration
    private let property: Atom
    private var active: [Atom: Active] = [:]

    init(x: XConnection, clock: any MonotonicClock, log: Logger, policy: SnapshotPolicy, ownerTimeout: Duration) {
        self.x = x
        self.clock = clock
        self.log = log
        self.policy = policy
        self.ownerTimeout = ownerTimeout
        property = x.intern("_PASTEBOARD_SNAPSHOT")
    }

    /// The longest one target's read may last, INCR included, however steadily the owner sends:
    /// ten owner timeouts (50 s by default).
    var transferBudget: Duration { ownerTimeout * 10 }

    /// How many snapshots are in progress.
    var activeCount: Int { active.count }

    /// True while a snapshot of `selection` is in progress.
    func isActive(_ selection: Atom) -> Bool { active[selection] != nil }

    /// Starts reading `request.selection`, abandoning any snapshot of it still in progress.
    func start(_ request: Request) {
        abandon(request.selection)
        let snapshot = Active(request: request, window: x.createWindow(eventMask: [.propertyChange]),
                              deadline: clock.now() + ownerTimeout)
        active[request.selection] = snapshot
        log.debug("reading \(request.name) from its owner")
        if let targets = request.targets {
            snapshot.queue = policy.plan(offered: targets.compactMap { x.name(of: $0) })
            next(snapshot)
        } else {
            convert(snapshot, "TARGETS")
        }
    }

    /// Stops a snapshot without calling its completion (the selection changed again).
    func abandon(_ selection: Atom) {
        guard let snapshot = active.removeValue(forKey: selection) else { return }
        x.destroyWindow(snapshot.window)
    }

    var nextDeadline: MonotonicInstant? { active.values.map(\.deadline).min() }

    /// Handles an event if it belongs to a snapshot; returns true when it did.
    func handle(_ event: XEventValue) -> Bool {
        switch event {
        case .selectionNotify(let requestor, _, _, let replyProperty, _):
            guard let snapshot = active.values.first(where: { $0.window == requestor }) else { return false }
            received(snapshot, property: replyProperty)
            return true
        case .propertyNotify(let window, let changed, _, let deleted):
            guard let snapshot = active.values.first(where: { $0.window == window }) else { return false }
            if changed == property && !deleted, case .incr = snapshot.phase { chunkArrived(snapshot) }
            return true
        default:
            return false
        }
    }

    /// Skips targets whose owner has not answered in time.
    func expire(now: MonotonicInstant) {
        for snapshot in active.values where snapshot.deadline <= now {
            let target: String
            switch snapshot.phase {
            case .targets: target = "TARGETS"
            case .hint(let t), .data(let t), .incr(let t, _, _): target = t
            }
            snapshot.consecutiveTimeouts += 1
            // A fresh window, so that a late reply cannot be taken for the next target's data.
            x.destroyWindow(snapshot.window)
            snapshot.window = x.createWindow(eventMask: [.propertyChange])
            if case .targets = snapshot.phase {
                // The manager logs the failure: one line.
                finish(snapshot, .failed("the owner did not answer TARGETS within \(ownerTimeout)"))
                continue
            }
            log.info("the owner of \(snapshot.request.name) did not answer \(target) within \(ownerTimeout)")
            if snapshot.consecutiveTimeouts >= 2 {
                snapshot.skipped.append(target)
                snapshot.skipped += snapshot.queue
                snapshot.queue = []
                next(snapshot)
            } else {
                snapshot.skipped.append(target)
                next(snapshot)
            }
        }
    }

    // MARK: - Steps

    private func convert(_ snapshot: Active, _ target: String) {
        switch snapshot.phase {
        case .hint: break
        default: snapshot.phase = target == "TARGETS" ? .targets : .data(target)
        }
        snapshot.deadline = clock.now() + ownerTimeout
        snapshot.targetStarted = clock.now()
        x.deleteProperty(snapshot.window, property)
        x.convertSelection(snapshot.request.selection, target: x.intern(target), property: property,
                           requestor: snapshot.window, time: .currentTime)
    }

    private func next(_ snapshot: Active) {
        guard !snapshot.queue.isEmpty else {
            let content = snapshot.fetched.isEmpty ? nil : try? PasteboardItem(snapshot.fetched)
            finish(snapshot, content.map { .complete(PasteboardContent(items: [$0]), skipped: snapshot.skipped) }
                   ?? .failed("no target could be read"))
            return
        }
        convert(snapshot, snapshot.queue.removeFirst())
    }

    private func received(_ snapshot: Active, property replyProperty: Atom) {
        let target: String
        switch snapshot.phase {
        case .targets: target = "TARGETS"
        case .hint(let t), .data(let t): target = t
        case .incr: return   // a duplicate notify (xsel sends one at the end of INCR): ignore
        }
        guard !replyProperty.isNone else {
            if case .targets = snapshot.phase { finish(snapshot, .failed("the owner refused TARGETS")); return }
            snapshot.skipped.append(target)
            next(snapshot)
            return
        }
        snapshot.consecutiveTimeouts = 0
        let cap = target == "TARGETS" ? 1 << 20 : min(policy.cap(for: target), policy.snapshotCap - snapshot.total)
        let read = x.getProperty(snapshot.window, replyProperty, delete: true, maximumBytes: max(cap, 0) + 1)
        guard let value = read.value else {
            snapshot.skipped.append(target)
            next(snapshot)
            return
        }
        if value.type == x.atoms.incr {
            let size = Int(value.atoms.first?.rawValue ?? 0)
            let draining = size > cap
            if draining { log.info("skipping \(target) of \(snapshot.request.name): \(size) bytes is over its cap of \(cap)") }
            snapshot.phase = .incr(target, IncrReceive(cap: max(cap, 0), sizeHint: draining ? 0 : size), draining: draining)
            snapshot.deadline = clock.now() + ownerTimeout
            return
        }
        if read.bytesAfter > 0 || value.byteCount > cap {
            x.deleteProperty(snapshot.window, replyProperty)
            log.info("skipping \(target) of \(snapshot.request.name): over its cap of \(cap) bytes")
            snapshot.skipped.append(target)
            next(snapshot)
            return
        }
        switch snapshot.phase {
        case .targets:
            let names = value.atoms.compactMap { x.name(of: $0) }
            if names.contains(where: { ["org.nspasteboard.ConcealedType", "org.nspasteboard.TransientType",
                                         "application/x-nspasteboard-concealed-type"].contains($0) }) {
                finish(snapshot, .secret)
                return
            }
            snapshot.queue = policy.plan(offered: names)
            if names.contains("x-kde-passwordManagerHint") {
                snapshot.phase = .hint("x-kde-passwordManagerHint")
                convert(snapshot, "x-kde-passwordManagerHint")
            } else {
                next(snapshot)
            }
        case .hint:
            if SnapshotPolicy.isSecretHint(value.bytes ?? []) {
                finish(snapshot, .secret)
            } else {
                snapshot.phase = .data("")
                next(snapshot)
            }
        case .data(let type):
            record(snapshot, type, value)
            next(snapshot)
        case .incr:
            break
        }
    }

    private func chunkArrived(_ snapshot: Active) {
        guard case .incr(let target, var receive, var draining) = snapshot.phase else { return }
        // Take the receiver out of the phase while it grows: the enum would otherwise share its buffer and
        // every chunk would copy all that came before (ten 10 MiB copies for a 10 MiB target). Every path
        // below puts a phase back (`next` sets the next target's).
        snapshot.phase = .data(target)
        let read = x.getProperty(snapshot.window, property, delete: true, maximumBytes: 16 << 20)
        guard let value = read.value else {
            snapshot.phase = .incr(target, receive, draining: draining)
            return
        }
        let now = clock.now()
        snapshot.deadline = now + ownerTimeout
        if value.byteCount == 0 {   // the end of the stream
            if draining {
                snapshot.skipped.append(target)
            } else {
                record(snapshot, target, PropertyValue(type: receive.type ?? value.type, bytes: receive.data))
            }
            next(snapshot)
            return
        }
        if !draining {
            if let bytes = value.bytes {
                switch receive.receive(type: value.type, bytes: bytes) {
                case .needMore, .complete:
                    break
                case .overCap:
                    log.info("skipping \(target) of \(snapshot.request.name): over its cap while streaming")
                    draining = true
                case .typeMismatch:
                    log.info("skipping \(target) of \(snapshot.request.name): a chunk changed the type")
                    draining = true
                }
            } else {
                // Keeping the other chunks would store the target with a hole in it.
                log.info("skipping \(target) of \(snapshot.request.name): a chunk came with format \(value.format), not 8")
                draining = true
            }
        }
        if draining { receive = IncrReceive(cap: 0) }
        snapshot.phase = .incr(target, receive, draining: draining)
        if now - snapshot.targetStarted >= transferBudget {
            stopReading(snapshot, target, why: "the transfer lasted longer than \(transferBudget)")
        }
    }

    /// Abandons the current target mid-stream: a fresh window, so that the owner's next chunks go
    /// nowhere (owners get BadWindow and end their side), then the next target.
    private func stopReading(_ snapshot: Active, _ target: String, why: String) {
        log.info("stopped reading \(target) of \(snapshot.request.name): \(why)")
        x.destroyWindow(snapshot.window)
        snapshot.window = x.createWindow(eventMask: [.propertyChange])
        snapshot.skipped.append(target)
        next(snapshot)
    }

    private func record(_ snapshot: Active, _ target: String, _ value: PropertyValue) {
        guard let bytes = value.bytes else {
            snapshot.skipped.append(target)
            return
        }
        // Text that came as STRING is kept as the owner sent it; the daemon serves the rest of the family.
        snapshot.fetched.append((PasteboardType(target), bytes))
        snapshot.total += bytes.count
    }

    private func finish(_ snapshot: Active, _ outcome: Outcome) {
        guard active[snapshot.request.selection] === snapshot else { return }
        active[snapshot.request.selection] = nil
        x.destroyWindow(snapshot.window)
        switch outcome {
        case .complete(let content, let skipped):
            log.debug("read \(snapshot.request.name): \(content.types.count) types, \(content.byteCount) bytes, \(skipped.count) skipped")
        case .secret: break
        case .failed(let why): log.debug("reading \(snapshot.request.name) failed: \(why)")
        }
        snapshot.request.completion(outcome)
    }
}
