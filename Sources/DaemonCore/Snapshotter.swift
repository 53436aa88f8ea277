// SPDX-License-Identifier: Apache-2.0
import PasteboardCore
import Selection
import SystemSupport
import XTypes

/// Reads another application's selection in the background, one target at a time, as an ICCCM
/// requestor driven by the event loop: it never blocks, and one slow owner delays nothing else.
///
/// What it keeps is judged target by target (`SnapshotPolicy.readingPlan` and `keep`): a target that cannot
/// be kept — a name no item may carry, a value over its cap, a reply of the wrong kind, a picture that does
/// not read, a refusal, a timeout — is left out with its reason and the rest of the copy is kept; of targets
/// that carry the same data (the text encodings, the picture formats) the next is read when one could not
/// be kept for a reason of its own. The outcome lists what was left out, for one log line per change.
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
    /// The file a snapshot's large representations were read into, with the content's digest made on the way.
    typealias Incoming = (archive: IncomingArchive, digest: UInt64)

    enum Outcome {
        /// What was read, as one item (possibly without every target: `skipped` says which, and why); with
        /// `incoming` when its large representations were read straight into their archive's file
        /// (`Request.incomingDirectory`), as the item keeps them.
        case complete(PasteboardContent, skipped: [SkippedRepresentation], incoming: Incoming? = nil)
        /// The owner marked the content secret (password managers): nothing was kept.
        case secret
        /// Nothing could be kept: why, and each target left out with its reason.
        case failed(String, skipped: [SkippedRepresentation])
    }

    struct Request {
        var selection: Atom
        var name: PasteboardName
        /// For SAVE_TARGETS: the targets the owner asked to be saved (nil: read TARGETS).
        var targets: [Atom]?
        /// Reads TARGETS only (the token of a copy another endpoint is told of): `onTargets` gets their names,
        /// then the snapshot completes with no content.
        var targetsOnly = false
        var onTargets: (([String]) -> Void)? = nil
        /// Each representation as soon as it is kept (a reader elsewhere may be waiting for it).
        var onKept: ((Representation) -> Void)? = nil
        /// A target whose owner answers by INCR with at least `relayedFrom` bytes (`relays`), as soon as that is
        /// known: its bytes as they arrive (a reader elsewhere may send them on as they come). Ends with the
        /// target's read: complete when the target is kept under its own name, failed otherwise.
        var onArriving: ((String, ArrivingBytes) -> Void)? = nil
        /// Where a representation kept as it is read (`SnapshotPolicy.keptName`) goes once it passes
        /// `IncomingArchive.threshold`: a file in this directory (the history's), laid out as the copy's archive,
        /// each INCR chunk written there as it comes — never the whole value in memory. Nil: read into memory.
        var incomingDirectory: String? = nil
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
        /// The groups still to read; the first is the current target's, with the alternatives left after it.
        var queue: [SnapshotPlan.Group] = []
        var fetched: [Representation] = []
        var skipped: [SkippedRepresentation] = []
        /// What the current group lacks if none of its targets is kept but one kept as given (a picture
        /// that does not read): recorded when the group ends so.
        var standIn: SkippedRepresentation?
        var total = 0
        var deadline: MonotonicInstant
        var consecutiveTimeouts = 0
        /// When the current target was asked for (its read must end within `transferBudget`).
        var targetStarted: MonotonicInstant
        /// The current target's bytes as they arrive, when the request relays them (`onArriving`).
        var arriving: ArrivingBytes?
        /// The file the large representations go to (`Request.incomingDirectory`), once one did; the current
        /// target's chunks are written there while it `isStreaming`.
        var archive: IncomingArchive?
        /// No file could be made for this snapshot: it reads into memory.
        var archiveRefused = false
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
    /// The last reading plan made: a fetch for another display reads the same one target each time, an owner copies
    /// again with the same targets.
    private var plans = ReadingPlanCache()

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
            plan(snapshot, offered: targets)
            snapshot.purpose = .data
            next(snapshot)
        } else {
            ask(snapshot, "TARGETS", purpose: .targets)
        }
    }

    /// Stops every snapshot without calling their completions (the display is no longer served): what they
    /// were relaying fails at once, so readers elsewhere are not left waiting for it.
    func abandonAll(_ why: String) {
        for snapshot in active.values { endArriving(snapshot, why) }
        active = [:]
    }

    /// Stops a snapshot without calling its completion (the selection changed again).
    func abandon(_ selection: Atom) {
        guard let snapshot = active.removeValue(forKey: selection) else { return }
        endArriving(snapshot, "the selection changed")
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
                finish(snapshot, .failed("the owner did not answer TARGETS within \(ownerTimeout)", skipped: []))
                continue
            }
            if case .hint = snapshot.purpose {
                // The hint is no content: without it the content is read as any other.
                snapshot.purpose = .data
            } else {
                leaveOut(snapshot, "the owner did not answer within \(ownerTimeout)", tryNext: false)
            }
            if snapshot.consecutiveTimeouts >= 2 {
                for group in snapshot.queue {
                    snapshot.skipped.append(SkippedRepresentation(PasteboardType(group.targets[0]),
                                                                  "not asked for: the owner did not answer twice in a row"))
                }
                snapshot.queue = []
            }
            next(snapshot)
        }
    }

    // MARK: - Steps

    private func ask(_ snapshot: Active, _ target: String, purpose: Purpose) {
        let cap = purpose == .targets ? 1 << 20 : purpose == .hint ? 64 : min(policy.cap(for: target), policy.snapshotCap - snapshot.total)
        let atom = x.intern(target)
        endArriving(snapshot, "the read of \(snapshot.name) stopped")
        snapshot.archive?.abandonStream()
        snapshot.purpose = purpose
        snapshot.name = target
        snapshot.read = SelectionRead(target: atom, property: property, cap: cap, incrAtom: x.atoms.incr,
                                      advise: { HugePages.advise($0, count: $1) })
        let now = clock.now()
        snapshot.deadline = now + ownerTimeout
        snapshot.targetStarted = now
        x.deleteProperty(snapshot.window, property)
        x.convertSelection(snapshot.request.selection, target: atom, property: property,
                           requestor: snapshot.window, time: .currentTime)
    }

    /// The plan for an owner offering the targets `atoms` (at most `SnapshotPolicy.maximumOfferedTargets`
    /// of them are looked up by name).
    private func plan(_ snapshot: Active, offered atoms: [Atom]) {
        let limit = SnapshotPolicy.maximumOfferedTargets
        let names = atoms.prefix(limit).compactMap { x.name(of: $0) }
        let plan = plans.plan(policy, offered: names)
        snapshot.queue = plan.groups
        snapshot.skipped += plan.skipped
        if atoms.count > limit {
            snapshot.skipped.append(SkippedRepresentation(PasteboardType("\(atoms.count - limit) more targets"),
                                                          "the owner offered \(atoms.count); the first \(limit) were considered"))
        }
    }

    /// Asks for the current group's first target, or ends the snapshot when every group was read.
    private func next(_ snapshot: Active) {
        let full = snapshot.fetched.count >= PasteboardLimits.maximumRepresentationsPerItem
        guard !snapshot.queue.isEmpty, !full else {
            for group in snapshot.queue {
                snapshot.skipped.append(SkippedRepresentation(PasteboardType(group.targets[0]),
                                                              "an item holds at most \(PasteboardLimits.maximumRepresentationsPerItem) representations"))
            }
            snapshot.queue = []
            snapshot.archive?.abandonStream()
            let (item, left) = PasteboardItem.keeping(snapshot.fetched)
            snapshot.skipped += left
            if let item {
                var incoming: Incoming?
                // Kept in the order read (else the digest made on the way is not the content's: made again from it).
                if let archive = snapshot.archive, archive.holds(any: item.representations),
                   item.representations.map(\.type) == snapshot.fetched.map(\.type) {
                    incoming = (archive, archive.digest(of: item.representations))
                }
                finish(snapshot, .complete(PasteboardContent(items: [item]), skipped: snapshot.skipped, incoming: incoming))
            } else {
                finish(snapshot, .failed(snapshot.skipped.isEmpty ? "the owner offers no content to read" : "no target could be read",
                                         skipped: snapshot.skipped))
            }
            return
        }
        ask(snapshot, snapshot.queue[0].targets[0], purpose: .data)
    }

    /// The current target is kept: its group is done.
    private func kept(_ snapshot: Active, _ representation: Representation) {
        snapshot.request.onKept?(representation)
        snapshot.fetched.append(representation)
        snapshot.total += representation.byteCount
        snapshot.standIn = nil
        snapshot.queue.removeFirst()
    }

    /// The current target is left out for `reason`; with `tryNext` its group's next target is read instead
    /// (else the group is done). Call `next` after.
    private func leaveOut(_ snapshot: Active, _ reason: String, tryNext: Bool) {
        snapshot.skipped.append(SkippedRepresentation(PasteboardType(snapshot.name), reason))
        advance(snapshot, tryNext: tryNext)
    }

    /// Moves past the current target: to the next of its group with `tryNext` while there is one, else to
    /// the next group.
    private func advance(_ snapshot: Active, tryNext: Bool) {
        guard !snapshot.queue.isEmpty else { return }
        snapshot.queue[0].targets.removeFirst()
        guard !tryNext || snapshot.queue[0].targets.isEmpty else { return }
        snapshot.queue.removeFirst()
        if let standIn = snapshot.standIn { snapshot.skipped.append(standIn) }
        snapshot.standIn = nil
    }

    /// Carries out what the requestor state machine asks until it waits or finishes.
    private func perform(_ snapshot: Active, _ first: SelectionRead.Step) {
        var step = first
        while true {
            switch step {
            case .readProperty(let offset, let maximumBytes):
                step = x.withProperty(snapshot.window, snapshot.read.replyProperty, offset: offset, delete: true,
                                      maximumBytes: maximumBytes) { snapshot.read.replyRead($0, bytes: $1) }
                continue
            case .deleteProperty:
                x.deleteProperty(snapshot.window, snapshot.read.replyProperty)
                received(snapshot, .failure(snapshot.read.overCapFailure))
            case .wait:
                let now = clock.now()
                snapshot.deadline = now + ownerTimeout
                snapshot.consecutiveTimeouts = 0
                if case .receiving = snapshot.read.phase, snapshot.purpose == .data {
                    // Relayed first: a reader elsewhere waiting for this chunk is sent it from memory, not read back.
                    relay(snapshot)
                    spill(snapshot)
                }
                if snapshot.read.isTransferring && now - snapshot.targetStarted >= transferBudget {
                    // A drain of a value over its cap says so: that is why nothing of it is kept.
                    var reason = "the transfer lasted longer than \(transferBudget)"
                    if case .draining(let failure) = snapshot.read.phase { reason = "\(failure), and " + reason }
                    _ = snapshot.read.abandon("too long")
                    freshWindow(snapshot)
                    leaveOut(snapshot, reason, tryNext: false)
                    next(snapshot)
                }
            case .finished(let result):
                snapshot.consecutiveTimeouts = 0
                received(snapshot, result)
            }
            return
        }
    }

    /// Tells the request of the current target's bytes arriving (at its first chunk's wait: the header), then
    /// of each chunk.
    private func relay(_ snapshot: Active) {
        if let arriving = snapshot.arriving { return arriving.grew(to: snapshot.read.receivedCount) }
        guard let onArriving = snapshot.request.onArriving, Self.relays(announced: snapshot.read.announcedSize, received: snapshot.read.receivedCount) else { return }
        let arriving = ArrivingBytes(expectedCount: snapshot.read.announcedSize ?? 0) { [weak snapshot] range, body in
            guard let snapshot, snapshot.read.receivedCount >= range.upperBound else { return false }
            return Self.withReceived(snapshot, range, body)
        }
        snapshot.arriving = arriving
        log.debug("relaying \(snapshot.name) of \(snapshot.request.name) as it arrives")
        onArriving(snapshot.name, arriving)
        arriving.grew(to: snapshot.read.receivedCount)
    }

    /// Calls `body` with bytes `range` of the current target received so far, where they are: those moved to the
    /// archive's file read back from it, the rest in the read's buffer. False when they cannot be read.
    private static func withReceived(_ snapshot: Active, _ range: Range<Int>, _ body: (UnsafeRawBufferPointer) -> Void) -> Bool {
        let moved = snapshot.read.movedOutCount
        guard range.lowerBound < moved else {
            snapshot.read.withReceived(range, body)
            return true
        }
        guard let archive = snapshot.archive, archive.isStreaming else { return false }
        do {
            if range.upperBound <= moved { try archive.withStreamed(range, body); return true }
            // Across the two (not when every chunk is moved out as it comes, as `spill` does): joined.
            var joined: [UInt8] = []
            try archive.withStreamed(range.lowerBound..<moved) { joined.append(contentsOf: $0) }
            snapshot.read.withReceived(moved..<range.upperBound) { joined.append(contentsOf: $0) }
            joined.withUnsafeBytes(body)
            return true
        } catch {
            return false
        }
    }

    /// Moves the current target's chunks to the archive's file as they come, once it has `IncomingArchive.threshold`
    /// bytes, when the request keeps large values in a file and the target is kept as it is read whatever its bytes
    /// (`SnapshotPolicy.keptName`: not a picture whose header is checked). A file that cannot be made leaves the
    /// snapshot in memory; one that cannot be written drains the transfer, and the target is left out, saying why.
    private func spill(_ snapshot: Active) {
        if snapshot.archive?.isStreaming != true {
            guard let directory = snapshot.request.incomingDirectory, !snapshot.archiveRefused,
                  snapshot.read.receivedCount >= IncomingArchive.threshold,
                  case .named(let type) = policy.keptName(target: snapshot.name, replyType: snapshot.read.receivedType.flatMap { x.name(of: $0) })
            else { return }
            if snapshot.archive == nil {
                do { snapshot.archive = try IncomingArchive.create(in: directory, pasteboard: snapshot.request.name) } catch {
                    snapshot.archiveRefused = true
                    log.limited(.warning, key: "x-incoming", "cannot make a file in \(directory) to read a large copy into, reading it into memory: \(error)")
                    return
                }
            }
            snapshot.archive?.begin(type, after: snapshot.fetched)
        }
        guard let archive = snapshot.archive else { return }
        do { try snapshot.read.moveOutReceived { try archive.append($0) } } catch {
            archive.abandonStream()
            log.limited(.warning, key: "x-incoming-write", "cannot write a large copy to its file: \(error)")
            snapshot.read.drainInstead("cannot write it to its file: \(error)")
        }
    }

    /// Ends what was relayed of the current target: complete with `kept` when the target was kept under its
    /// own name, else failed (`reason`).
    private func endArriving(_ snapshot: Active, _ reason: String, kept: Representation? = nil) {
        guard let arriving = snapshot.arriving else { return }
        snapshot.arriving = nil
        if let kept, kept.type.rawValue == snapshot.name { arriving.finish(kept) } else { arriving.fail(reason) }
    }

    private func received(_ snapshot: Active, _ result: Result<PropertyValue, SelectionReadFailure>) {
        let target = snapshot.name
        switch (snapshot.purpose, result) {
        case (.targets, .failure(.refused)):
            finish(snapshot, .failed("the owner refused TARGETS", skipped: []))
        case (.targets, .failure(let failure)):
            finish(snapshot, .failed("TARGETS could not be read: \(failure)", skipped: []))
        case (.targets, .success(let value)):
            let markers = [SnapshotPolicy.passwordManagerHint] + SnapshotPolicy.concealedMarkers.map { $0 }
            let markerAtoms = Dictionary(uniqueKeysWithValues: markers.map { (x.intern($0), $0) })
            let offeredMarkers = Set(value.atoms.compactMap { markerAtoms[$0] })
            if let onTargets = snapshot.request.onTargets {
                onTargets(value.atoms.prefix(SnapshotPolicy.maximumOfferedTargets).compactMap { x.name(of: $0) })
            }
            if !offeredMarkers.isDisjoint(with: SnapshotPolicy.concealedMarkers) {
                finish(snapshot, .secret)
                return
            }
            if snapshot.request.targetsOnly {
                finish(snapshot, .complete(PasteboardContent(items: []), skipped: []))
                return
            }
            plan(snapshot, offered: value.atoms)
            if offeredMarkers.contains(SnapshotPolicy.passwordManagerHint) {
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
        case (.data, .success(let value)) where snapshot.archive?.isStreaming == true:
            // Read into the archive's file as it came, under the name `keptName` gave: the last bytes written, kept.
            let archive = snapshot.archive!
            do { try value.bytes.map { try $0.withUnsafeBytes { try archive.append($0) } } } catch {
                archive.abandonStream()
                endArriving(snapshot, "cannot write it to its file: \(error)")
                leaveOut(snapshot, "cannot write it to its file: \(error)", tryNext: false)
                return next(snapshot)
            }
            let representation = archive.endStream()
            endArriving(snapshot, "\(target) was kept as \(representation.type.logName)", kept: representation)
            kept(snapshot, representation)
            next(snapshot)
        case (.data, .success(let value)):
            // Text that came as STRING is kept as the owner sent it; the daemon serves the rest of the family.
            switch policy.keep(target: target, replyType: x.name(of: value.type), bytes: value.bytes, format: value.format) {
            case .keep(let representation):
                endArriving(snapshot, "\(target) was kept as \(representation.type.logName)", kept: representation)
                kept(snapshot, representation)
            case .keepAsGiven(let representation, let problem):
                endArriving(snapshot, "\(target) was kept as \(representation.type.logName)", kept: representation)
                // Served as given; the next of its group may be a picture the others can be made from.
                snapshot.fetched.append(representation)
                snapshot.total += representation.byteCount
                snapshot.standIn = SkippedRepresentation(PasteboardType("picture types made from \(target)"), problem.reason)
                advance(snapshot, tryNext: true)
            case .leaveOut(let left):
                endArriving(snapshot, left.reason)
                leaveOut(snapshot, left.reason, tryNext: true)
            }
            next(snapshot)
        case (.data, .failure(let failure)):
            snapshot.archive?.abandonStream()
            endArriving(snapshot, "\(failure)")
            leaveOut(snapshot, "\(failure)", tryNext: SnapshotPlan.triesNext(after: failure))
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
        endArriving(snapshot, "the read ended")
        guard active[snapshot.request.selection] === snapshot else { return }
        active[snapshot.request.selection] = nil
        x.destroyWindow(snapshot.window)
        switch outcome {
        case .complete(let content, let skipped, _):
            log.debug("read \(snapshot.request.name): \(content.types.count) types, \(content.byteCount) bytes, \(skipped.count) left out")
        case .secret: break
        case .failed(let why, _): log.debug("reading \(snapshot.request.name) failed: \(why)")
        }
        snapshot.request.completion(outcome)
        // The buffers a large INCR read grew through (each twice the last) are freed by now, but glibc keeps
        // them in the heap once its mmap threshold has risen past them: give them back (tens of MiB for a
        // 10 MiB copy; one call, a millisecond or so, per large snapshot).
        if snapshot.total >= Self.largeSnapshotBytes { MemoryRelease.trim() }
    }

    /// The least size an owner's INCR header must announce for its bytes to be relayed as they arrive
    /// (`Request.onArriving`). Relaying saves a whole second pass (64 MiB: ~170 ms at 400 MiB/s) but gives up
    /// the clean refusal: once a reader elsewhere is in its transfer, a read that fails can only be cut off (X
    /// has no way to abort an INCR transfer: GTK and Qt give up at their timeout, xclip waits). Below this a
    /// value is read whole first (4 MiB: ~10 ms), and any failure is still a refusal.
    static let relayedFrom = 4 << 20

    /// Whether an INCR transfer is relayed as it arrives: when its header announces at least `relayedFrom`
    /// bytes (from the header on), or announces no size (xclip's has none) and `relayedFrom` bytes are in. A
    /// header announcing less is taken at its word: such a value is read whole first.
    static func relays(announced: Int?, received: Int) -> Bool {
        if let announced, announced > 0 { return announced >= relayedFrom }
        return received >= relayedFrom
    }

    /// A snapshot at least this large gives its freed read buffers back to the system when it ends.
    static let largeSnapshotBytes = 1 << 20
}
