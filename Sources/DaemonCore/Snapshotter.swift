import PasteboardCore
import Selection
import SystemSupport
import XTypes

/// Reads another application's selection in the background, one target at a time, as an ICCCM
/// requestor driven by the event loop: it never blocks, and one slow owner delays nothing else.
///
/// Each target is one `SelectionRead` — the requestor state machine the library's blocking reader drives
/// too, with its policy: a value over its cap is never kept, an INCR transfer over the cap or malformed is
/// drained to its end (owners such as xclip serve one INCR at a time and stay stuck if a requestor walks
/// away). Each snapshot has its own requestor window. It asks for TARGETS, then reads the targets
/// `SnapshotPolicy` chooses, each at most once. A target whose owner does not answer in time is skipped
/// with a fresh window, so a late reply cannot land as data; two such timeouts in a row end the snapshot.
/// Any one target's read, a drain included, stops once it has lasted `transferBudget` (the target is then
/// abandoned with a fresh window, one log line), so a snapshot always ends. (Bytes cannot bound a drain:
/// xclip announces no size in its INCR header.)
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

    /// What the target being read is for.
    private enum Purpose {
        case targets
        /// KDE's password-manager hint, read before anything else.
        case hint
        case data
    }

    private final class Active {
        let request: Request
        var window: WindowID
        var purpose: Purpose = .targets
        var read: SelectionRead
        var name: String = "TARGETS"
        var queue: [String] = []
        var fetched: [Representation] = []
        var skipped: [String] = []
        var total = 0
        var deadline: MonotonicInstant
        var consecutiveTimeouts = 0
        /// When the current target was asked for (its read must end within `transferBudget`).
        var targetStarted: MonotonicInstant
        init(request: Request, window: WindowID, read: SelectionRead, now: MonotonicInstant, deadline: MonotonicInstant) {
            self.request = request
            self.window = window
            self.read = read
            self.deadline = deadline
            self.targetStarted = now
        }
    }

    private let x: any XDisplay
    private let clock: any MonotonicClock
    private let log: Logger
    var policy: SnapshotPolicy
    var ownerTimeout: Duration
    private let property: Atom
    private var active: [Atom: Active] = [:]

    init(x: any XDisplay, clock: any MonotonicClock, log: Logger, policy: SnapshotPolicy, ownerTimeout: Duration) {
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
        let now = clock.now()
        let snapshot = Active(request: request, window: x.createWindow(eventMask: [.propertyChange]),
                              read: SelectionRead(target: .none, property: property, cap: 0, incrAtom: x.atoms.incr),
                              now: now, deadline: now + ownerTimeout)
        active[request.selection] = snapshot
        log.debug("reading \(request.name) from its owner")
        if let targets = request.targets {
            snapshot.queue = policy.plan(offered: targets.compactMap { x.name(of: $0) })
            snapshot.purpose = .data
            next(snapshot)
        } else {
            ask(snapshot, "TARGETS", purpose: .targets)
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
            perform(snapshot, snapshot.read.notified(property: replyProperty))
            return true
        case .propertyNotify(let window, let changed, _, let deleted):
            guard let snapshot = active.values.first(where: { $0.window == window }) else { return false }
            if changed == snapshot.read.replyProperty && !deleted { perform(snapshot, snapshot.read.chunkArrived()) }
            return true
        default:
            return false
        }
    }

    /// Skips targets whose owner has not answered in time.
    func expire(now: MonotonicInstant) {
        for snapshot in active.values where snapshot.deadline <= now {
            _ = snapshot.read.timedOut()
            snapshot.consecutiveTimeouts += 1
            freshWindow(snapshot)
            if case .targets = snapshot.purpose {
                // The manager logs the failure: one line.
                finish(snapshot, .failed("the owner did not answer TARGETS within \(ownerTimeout)"))
                continue
            }
            log.info("the owner of \(snapshot.request.name) did not answer \(snapshot.name) within \(ownerTimeout)")
            snapshot.skipped.append(snapshot.name)
            if snapshot.consecutiveTimeouts >= 2 {
                snapshot.skipped += snapshot.queue
                snapshot.queue = []
            }
            next(snapshot)
        }
    }

    // MARK: - Steps

    private func ask(_ snapshot: Active, _ target: String, purpose: Purpose) {
        let cap = purpose == .targets ? 1 << 20 : purpose == .hint ? 64 : min(policy.cap(for: target), policy.snapshotCap - snapshot.total)
        let atom = x.intern(target)
        snapshot.purpose = purpose
        snapshot.name = target
        snapshot.read = SelectionRead(target: atom, property: property, cap: cap, incrAtom: x.atoms.incr)
        let now = clock.now()
        snapshot.deadline = now + ownerTimeout
        snapshot.targetStarted = now
        x.deleteProperty(snapshot.window, property)
        x.convertSelection(snapshot.request.selection, target: atom, property: property,
                           requestor: snapshot.window, time: .currentTime)
    }

    private func next(_ snapshot: Active) {
        guard !snapshot.queue.isEmpty else {
            let content = snapshot.fetched.isEmpty ? nil : try? PasteboardItem(snapshot.fetched)
            finish(snapshot, content.map { .complete(PasteboardContent(items: [$0]), skipped: snapshot.skipped) }
                   ?? .failed("no target could be read"))
            return
        }
        ask(snapshot, snapshot.queue.removeFirst(), purpose: .data)
    }

    /// Carries out what the requestor state machine asks until it waits or finishes.
    private func perform(_ snapshot: Active, _ first: SelectionRead.Step) {
        var step = first
        while true {
            switch step {
            case .readProperty(let maximumBytes):
                step = snapshot.read.replyRead(x.getProperty(snapshot.window, snapshot.read.replyProperty,
                                                            delete: true, maximumBytes: maximumBytes))
                continue
            case .deleteProperty:
                x.deleteProperty(snapshot.window, snapshot.read.replyProperty)
                received(snapshot, .failure(snapshot.read.overCapFailure))
            case .wait:
                let now = clock.now()
                snapshot.deadline = now + ownerTimeout
                snapshot.consecutiveTimeouts = 0
                if snapshot.read.isTransferring && now - snapshot.targetStarted >= transferBudget {
                    _ = snapshot.read.abandon("too long")
                    log.info("stopped reading \(snapshot.name) of \(snapshot.request.name): the transfer lasted longer than \(transferBudget)")
                    freshWindow(snapshot)
                    snapshot.skipped.append(snapshot.name)
                    next(snapshot)
                }
            case .finished(let result):
                snapshot.consecutiveTimeouts = 0
                received(snapshot, result)
            }
            return
        }
    }

    private func received(_ snapshot: Active, _ result: Result<PropertyValue, SelectionReadFailure>) {
        let target = snapshot.name
        switch (snapshot.purpose, result) {
        case (.targets, .failure(.refused)):
            finish(snapshot, .failed("the owner refused TARGETS"))
        case (.targets, .failure(let failure)):
            finish(snapshot, .failed("TARGETS could not be read: \(failure)"))
        case (.targets, .success(let value)):
            let names = value.atoms.compactMap { x.name(of: $0) }
            if names.contains(where: SnapshotPolicy.concealedMarkers.contains) {
                finish(snapshot, .secret)
                return
            }
            snapshot.queue = policy.plan(offered: names)
            if names.contains(SnapshotPolicy.passwordManagerHint) {
                ask(snapshot, SnapshotPolicy.passwordManagerHint, purpose: .hint)
            } else {
                snapshot.purpose = .data
                next(snapshot)
            }
        case (.hint, let result):
            if case .success(let value) = result, SnapshotPolicy.isSecretHint(value.bytes ?? []) {
                finish(snapshot, .secret)
            } else {
                snapshot.purpose = .data
                next(snapshot)
            }
        case (.data, .success(let value)):
            if let bytes = value.bytes {
                // Text that came as STRING is kept as the owner sent it; the daemon serves the rest of the family.
                snapshot.fetched.append(Representation(type: PasteboardType(target), data: bytes))
                snapshot.total += bytes.count
            } else {
                snapshot.skipped.append(target)
            }
            next(snapshot)
        case (.data, .failure(let failure)):
            if failure != .refused {
                log.info("skipping \(target) of \(snapshot.request.name): \(failure)")
            }
            snapshot.skipped.append(target)
            next(snapshot)
        }
    }

    /// A fresh window, so that a late reply (or the rest of an abandoned transfer) cannot be taken for the
    /// next target's data; owners writing to the old one get BadWindow and end their side.
    private func freshWindow(_ snapshot: Active) {
        x.destroyWindow(snapshot.window)
        snapshot.window = x.createWindow(eventMask: [.propertyChange])
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
