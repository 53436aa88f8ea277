// SPDX-License-Identifier: Apache-2.0
import PasteboardCore
import SystemSupport
import XTypes

/// One X display attached to the engine: its selection service (boards, ownership, requestors), its
/// clipboard manager (read early, own late, CLIPBOARD_MANAGER) and the endpoint's side of the traffic.
///
/// - Tokens: a change counted here — another client's copy, a pb copy the daemon took here, a clear, an owner
///   gone — is reported to the engine; for another client's copy the token is its TARGETS, read at once with
///   a requestor of its own (`probe`), the bytes are not read for it.
/// - Serving: another endpoint's offer is served here by taking the selection silently (never a change of this
///   display, so never a token: the engine's first loop guard), its types fetched from the origin on request.
/// - Fetching: a type of this display's own offer is read for another endpoint from the live owner (one read
///   at a time per pasteboard: xclip serves one INCR transfer at a time), waiting first for the manager's
///   snapshot when one is under way and answering from it; once the owner is gone, from what was kept. A type
///   the owner sends by INCR is answered as soon as its transfer starts, with its bytes as they arrive
///   (`FetchResult.arriving`), so the other side sends them on while they are still being read here.
final class XDisplayEndpoint: PasteboardEndpoint {
    let id: EndpointID
    let name: String
    let x: any XDisplay
    let service: SelectionService
    let manager: ClipboardManager
    weak var engine: PasteboardEngine?
    /// Tells the watching clients about a change counted on this display.
    var broadcast: ((ChangeNotice) -> Void)?

    private let log: Logger
    /// Reads the TARGETS of another client's copy for its token.
    private let probe: Snapshotter
    /// Reads one type of the live owner for another endpoint.
    private let fetcher: Snapshotter
    private var serial: UInt64 = 0
    /// This display's latest offer per pasteboard: its serial, and the change count it was made at.
    private var offered: [PasteboardName: (serial: UInt64, count: UInt64)] = [:]
    /// What this display serves on behalf of another endpoint, per pasteboard.
    private(set) var mirrors: [PasteboardName: Offer] = [:]

    private struct PendingFetch {
        var type: PasteboardType
        var serial: UInt64
        var completion: (FetchResult) -> Void
        /// Answered already with the bytes as they arrive (a live read still under way).
        var answered = false
    }
    /// The compositor's own bridge, when this is the XWayland display of the seat the daemon serves too.
    private(set) var relay: XWaylandRelay?
    /// Tells that this display's current copy of a pasteboard was read whole: what the manager kept of it.
    var onKeptWhole: ((PasteboardName, PasteboardContent) -> Void)?

    /// Fetches waiting for the manager's snapshot, per pasteboard.
    private var waitingForSnapshot: [PasteboardName: [PendingFetch]] = [:]
    /// Reads of the live owner, one at a time per pasteboard: the first is under way.
    private var liveReads: [PasteboardName: [PendingFetch]] = [:]

    init(id: EndpointID, name: String, x: any XDisplay, clock: any MonotonicClock, configuration: DaemonConfiguration,
         stateDirectory: String?, conversions: Conversions, sharing first: XDisplayEndpoint?, log: Logger,
         table: ConversionTable) {
        self.id = id
        self.name = name
        self.x = x
        self.log = log
        service = SelectionService(x: x, clock: clock, transferTimeout: .milliseconds(configuration.transferTimeoutMs),
                                   conversionTimeout: .milliseconds(configuration.conversionTimeoutMs),
                                   conversions: conversions, table: table, log: log)
        // One pasteboard, one count: the first display's count store keeps the counts; the others follow it.
        if first == nil { service.boards.countStore = CountStore(directory: stateDirectory) }
        manager = ClipboardManager(service: service, clock: clock, log: log, configuration: configuration,
                                   stateDirectory: stateDirectory, sharing: first?.manager)
        service.manager = manager
        service.server.readPolicy = configuration.readPolicy
        manager.displayName = name
        let timeout = Duration.milliseconds(configuration.ownerTimeoutMs)
        probe = Snapshotter(x: x, clock: clock, log: log, policy: configuration.snapshotPolicy, ownerTimeout: timeout)
        fetcher = Snapshotter(x: x, clock: clock, log: log, policy: configuration.snapshotPolicy, ownerTimeout: timeout)
        service.onChange = { [weak self] notice in
            self?.broadcast?(notice)
            self?.changed(notice.name, count: notice.count, notice.state)
        }
        manager.onSnapshotEnded = { [weak self] name in self?.snapshotEnded(name) }
        manager.onTargets = { [weak self] name, count, names in self?.targetsRead(name, count: count, names) }
        manager.onKept = { [weak self] name, count, representation in self?.snapshotKept(name, count: count, representation) }
        manager.onArriving = { [weak self] name, count, type, bytes in self?.snapshotArriving(name, count: count, type, bytes) }
        manager.onRestored = { [weak self] name, count in self?.changed(name, count: count, .data) }
        manager.onAdopted = { [weak self] name, count, content in self?.servedFromFile(name, count: count, content) }
    }

    var configuration: DaemonConfiguration {
        get { manager.configuration }
        set {
            manager.configuration = newValue
            service.server.readPolicy = newValue.readPolicy
            probe.policy = newValue.snapshotPolicy
            fetcher.policy = newValue.snapshotPolicy
        }
    }

    // MARK: - The loop's side

    func handle(_ event: XEventValue) {
        if probe.handle(event) || fetcher.handle(event) { return }
        service.handle(event)
    }

    func handle(errors: [XProtocolError]) { service.handle(errors: errors) }

    var nextDeadline: MonotonicInstant? {
        var earliest = Earliest()
        earliest.add(service.nextDeadline)
        earliest.add(manager.nextDeadline)
        earliest.add(probe.nextDeadline)
        earliest.add(fetcher.nextDeadline)
        return earliest.value
    }

    func expire(now: MonotonicInstant) {
        probe.expire(now: now)
        fetcher.expire(now: now)
        service.expire(now: now)
        manager.expire(now: now)
    }

    /// The display is no longer served: every read of its owners stops, and what was being relayed to readers
    /// elsewhere fails at once (their transfers are cut off, not left to their idle timeout).
    func stopReading() {
        let why = "\(name) is no longer served"
        probe.abandonAll(why)
        fetcher.abandonAll(why)
        manager.abandonSnapshots(why)
    }

    // MARK: - Reporting this display's changes

    private func changed(_ name: PasteboardName, count: UInt64, _ state: ChangeState) {
        guard let engine, engine.isShared(name) else { return }
        mirrors[name] = nil
        // What waited for the change before this one is refused now, not at its deadline (its snapshot was
        // abandoned, so it would never end), and what that snapshot had read is let go.
        if readSoFar[name]?.count != count { readSoFar[name] = nil }
        if arrivingSoFar[name]?.count != count { arrivingSoFar[name] = nil }
        for pending in waitingForSnapshot.removeValue(forKey: name) ?? [] {
            pending.completion(changedSince(name))
        }
        switch state {
        case .data, .sensitive:
            if let content = service.content(of: name) {
                engine.changed(name, on: id, count: count, .offered(newOffer(name, count: count, types: content.types, content: content)))
            } else if mirrors[name] == nil, let served = service.boards.board(named: name)?.served {
                // Content whose bytes come on request (a lazy provider's): its types, fetched from here.
                engine.changed(name, on: id, count: count, .offered(newOffer(name, count: count, types: served.offeredTypes,
                                                                             sensitive: served.content.isSensitive, content: nil)))
            }
        case .clear:
            offered[name] = nil
            engine.changed(name, on: id, count: count, .cleared)
        case .empty:
            // An owner gone with nothing kept; a takeover with the content read is no change at all.
            offered[name] = nil
            engine.changed(name, on: id, count: count, .emptied)
        case .foreign:
            announceForeignCopy(name, count: count)
        case .removed, .kept:
            break
        }
    }

    private func newOffer(_ name: PasteboardName, count: UInt64, types: [PasteboardType], sensitive: Bool = false,
                          content: PasteboardContent?) -> Offer {
        serial += 1
        offered[name] = (serial, count)
        return Offer(pasteboard: name, origin: id, serial: serial, types: types,
                     isSensitive: sensitive || (content?.isSensitive ?? false), isLocalOnly: content?.isLocalOnly ?? false,
                     content: content)
    }

    /// Another client copied: tell the engine what it offers — its TARGETS, read by the manager's snapshot
    /// when one starts (one read of TARGETS per copy), else by the probe; nothing when no other endpoint
    /// is there to tell (a single display makes no extra request), nor for an excluded application's copy,
    /// which is not read at all (the other displays stop serving the older content).
    private func announceForeignCopy(_ name: PasteboardName, count: UInt64) {
        guard let engine, let selection = service.boards.selection(of: name) else { return }
        guard engine.endpoints.count > 1 else {
            engine.changed(name, on: id, count: count, .offered(newOffer(name, count: count, types: [], content: nil)))
            return
        }
        if manager.isExcluded(name, count: count) {
            offered[name] = nil
            engine.changed(name, on: id, count: count, .emptied)
            return
        }
        awaitingTargets[name] = count
        if manager.isReading(name) { return }   // its TARGETS come through `targetsRead`
        probe.start(Snapshotter.Request(selection: selection, name: name, targets: nil, targetsOnly: true,
                                        onTargets: { [weak self] in self?.targetsRead(name, count: count, $0) }) { [weak self] _ in
            self?.targetsUnread(name, count: count)
        })
    }

    /// Changes whose token waits for their TARGETS, per pasteboard.
    private var awaitingTargets: [PasteboardName: UInt64] = [:]

    /// True while a copy counted here waits for its TARGETS to be offered elsewhere.
    func awaitsToken(_ name: PasteboardName) -> Bool { awaitingTargets[name] != nil }

    /// The TARGETS of change `count` were read: its token.
    private func targetsRead(_ name: PasteboardName, count: UInt64, _ names: [String]) {
        guard awaitingTargets[name] == count, service.count(of: name) == count, let engine else { return }
        awaitingTargets[name] = nil
        let types = SnapshotPolicy.contentTargets(offered: names).names.map { PasteboardType($0) }
        let secret = names.contains { SnapshotPolicy.concealedMarkers.contains($0) }
        engine.changed(name, on: id, count: count, .offered(newOffer(name, count: count, types: types, sensitive: secret, content: nil)))
    }

    /// Reading ended without TARGETS of change `count` (the owner did not answer them): nothing to offer; the
    /// other displays stop serving the older content.
    private func targetsUnread(_ name: PasteboardName, count: UInt64) {
        guard awaitingTargets[name] == count, let engine else { return }
        awaitingTargets[name] = nil
        guard service.count(of: name) == count else { return }
        log.info("\(name) changed on \(self.name), but its targets could not be read: not offered elsewhere")
        offered[name] = nil
        engine.changed(name, on: id, count: count, .emptied)
    }

    // MARK: - The compositor's bridge (XWayland)

    /// This is the XWayland display of the seat the daemon serves (`relay` its compositor's bridge): the bridge's
    /// owning a shared pasteboard is the seat's selection shown here, and the TARGETS the daemon answers it carry
    /// the daemon's mark, so the bridge's Wayland source for the daemon's own X ownership is known on the seat.
    func attach(_ relay: XWaylandRelay) {
        self.relay = relay
        service.relay = relay
        service.relayShares = { [weak self] name in self?.engine?.isShared(name) ?? false }
        service.onRelayTook = { [weak self] name, lost in self?.relayTook(name, lost: lost) }
        let mark = x.intern(WaylandTypes.ownMarker)
        service.server.extraTargets = { [weak relay] requestor in relay?.isRelayWindow(requestor) == true ? [mark] : [] }
    }

    /// The seat is no longer served: the bridge's ownership is another client's again.
    func detachRelay() {
        relay = nil
        service.relay = nil
        service.onRelayTook = nil
        service.server.extraTargets = nil
    }

    /// The bridge took `name` here for the seat's selection. With an X window focused it answers X readers itself;
    /// without, it refuses them, so the daemon takes the pasteboard back (silently: the same content) when it
    /// served it here — for another side, its own, or this display's copy it kept — and the bridge, with no
    /// focus, does not carry that back to the seat.
    private func relayTook(_ name: PasteboardName, lost: ServedContent?) {
        guard let relay, !relay.xHasFocus, let engine, let current = engine.current[name] else { return }
        if let mirror = mirrors[name], mirror.serial == current.serial, mirror.origin == current.origin {
            return take(mirror)
        }
        guard current.origin == id, let mine = offered[name], mine.serial == current.serial else { return }
        guard let content = lost.map(\.content).flatMap({ $0.items.isEmpty ? nil : $0 }) ?? keptContent(of: name) else { return }
        service.own(name, content: content, silent: true) { [log, display = self.name] result in
            if case .failure(let error) = result { log.info("could not serve \(name) again on \(display): \(error)") }
        }
    }

    // MARK: - Serving other endpoints' changes

    func adopt(count: UInt64, for pasteboard: PasteboardName) {
        if service.count(of: pasteboard) == nil {
            guard service.boards.count < PasteboardLimits.maximumPasteboards else { return }
            service.boards.watch(pasteboard, persistedCount: count)
        }
        service.boards.adopt(count, for: pasteboard)
    }

    func serve(_ offer: Offer, count: UInt64) {
        adopt(count: count, for: offer.pasteboard)
        offered[offer.pasteboard] = nil
        mirrors[offer.pasteboard] = offer
        // The compositor's bridge shows the seat's selection here, and answers X readers while an X window has the
        // focus; taking it from the bridge then is what makes it set the seat to the daemon's X ownership, in place
        // of the Wayland client's copy. Left to it (`relayTook` takes it once there is no focus).
        if let relay, relay.xHasFocus { return }
        take(offer)
    }

    /// Takes `offer`'s pasteboard here silently, serving it on behalf of its origin (its types fetched from there).
    private func take(_ offer: Offer) {
        var ownership = SelectionService.Ownership(content: offer.servedContent, silent: true,
                                                   mirrorOf: engine?.endpoints[offer.origin]?.name ?? "\(offer.origin)")
        if offer.content == nil {
            let name = offer.pasteboard, serial = offer.serial, origin = offer.origin, me = id
            // Another X display's live owner: its text is read ahead when a reader here asks TARGETS.
            let readsAhead = engine?.endpoints[origin] is XDisplayEndpoint
            ownership.remote = ServedContent.RemoteTypes(types: offer.types, readsAhead: readsAhead) { [weak self] type, completion in
                guard let engine = self?.engine else { return completion(.failed("pasteboardd is stopping")) }
                engine.fetch(name, type: type, serial: serial, origin: origin, for: me, completion: completion)
            }
        }
        service.own(offer.pasteboard, ownership) { [weak self, log, name] result in
            if case .failure(let error) = result {
                log.info("could not serve \(offer.pasteboard) on \(name): \(error)")
                self?.mirrors[offer.pasteboard] = nil
            }
        }
    }

    func replaceContent(of pasteboard: PasteboardName, with content: PasteboardContent) {
        guard var mirror = mirrors[pasteboard], let held = mirror.content, content.hasSameShape(as: held),
              let count = service.count(of: pasteboard) else { return }
        mirror.content = content
        mirrors[pasteboard] = mirror
        _ = service.adopt(pasteboard, count: count, content)
    }

    /// This display's own change `count` of `name` is served from its file now: so is the engine's offer.
    private func servedFromFile(_ name: PasteboardName, count: UInt64, _ content: PasteboardContent) {
        guard let engine, let current = offered[name], current.count == count, mirrors[name] == nil else { return }
        engine.serveFromFile(name, origin: id, serial: current.serial, content)
    }

    func withdraw(_ pasteboard: PasteboardName, count: UInt64) {
        adopt(count: count, for: pasteboard)
        guard mirrors.removeValue(forKey: pasteboard) != nil, service.isOwned(pasteboard) else { return }
        service.clear(pasteboard, silent: true) { _ in }
    }

    /// What this display holds of its own current offer of `name` with its bytes: kept by the manager, or
    /// served by the daemon here (a fetch's fallback once the owner is gone; what the others keep serving once
    /// this display is).
    func keptContent(of name: PasteboardName) -> PasteboardContent? {
        guard let current = offered[name] else { return nil }
        if let kept = manager.keptContent(of: name, count: current.count) { return kept }
        return mirrors[name] == nil ? service.content(of: name) : nil
    }

    /// What this display holds of its offer `serial` of `name` with its bytes, if that offer is still its current one.
    func keptContent(of name: PasteboardName, serial: UInt64) -> PasteboardContent? {
        offered[name]?.serial == serial ? keptContent(of: name) : nil
    }

    /// What this display's current change of `name` is when another application owns it there, as content to
    /// answer a client without a display of its own from: what the manager read of it (bytes at hand), else
    /// its offered types fetched from the live owner on request; nil when the daemon serves it here itself,
    /// or knows nothing of it.
    func foreignView(of name: PasteboardName, table: ConversionTable) -> ServedContent? {
        guard !service.isOwned(name), let current = offered[name] else { return nil }
        if let kept = keptContent(of: name) {
            return ServedContent(content: kept, acquiredAt: .currentTime, table: table, names: x.contentNames())
        }
        guard let offer = engine?.current[name], offer.origin == id, !offer.types.isEmpty else { return nil }
        let serial = current.serial
        let remote = ServedContent.RemoteTypes(types: offer.types) { [weak self] type, completion in
            guard let self else { return completion(.failed("pasteboardd is stopping")) }
            self.fetch(name, type: type, serial: serial, completion: completion)
        }
        return ServedContent(content: offer.servedContent, remote: remote, acquiredAt: .currentTime, table: table, names: x.contentNames())
    }

    // MARK: - Fetching for other endpoints

    func fetch(_ pasteboard: PasteboardName, type: PasteboardType, serial: UInt64, completion: @escaping (FetchResult) -> Void) {
        let pending = PendingFetch(type: type, serial: serial, completion: completion)
        guard let current = offered[pasteboard], current.serial == serial else {
            return completion(changedSince(pasteboard))
        }
        if let content = service.content(of: pasteboard), mirrors[pasteboard] == nil {
            // The daemon serves this change here (its own copy, or kept after the owner went away).
            return completion(FetchResult(type, of: content, pasteboard))
        }
        if mirrors[pasteboard] == nil, let served = service.boards.board(named: pasteboard)?.served {
            // The daemon serves it here with bytes that come on request (a lazy provider's).
            return served.fetchOffered(type, completion: completion)
        }
        if manager.isReading(pasteboard) {
            if let read = readSoFar[pasteboard], read.count == current.count, let kept = read.kept[type] {
                return completion(FetchResult(kept))
            }
            if let arriving = arrivingSoFar[pasteboard], arriving.count == current.count, let bytes = arriving.bytes[type],
               bytes.failure == nil {
                return completion(.arriving(bytes))
            }
            waitingForSnapshot[pasteboard, default: []].append(pending)
            return
        }
        readLive(pasteboard, pending)
    }

    /// The manager's snapshot read `representation` of change `count`: the fetches waiting for that type are
    /// answered now, not when the whole snapshot ends (a rich copy's other targets may take a while).
    private func snapshotKept(_ pasteboard: PasteboardName, count: UInt64, _ representation: Representation) {
        if readSoFar[pasteboard]?.count != count { readSoFar[pasteboard] = (count, [:]) }
        readSoFar[pasteboard]?.kept[representation.type] = representation
        guard let current = offered[pasteboard], current.count == count, var waiting = waitingForSnapshot[pasteboard] else { return }
        let answered = waiting.filter { $0.type == representation.type && $0.serial == current.serial }
        guard !answered.isEmpty else { return }
        waiting.removeAll { $0.type == representation.type && $0.serial == current.serial }
        waitingForSnapshot[pasteboard] = waiting.isEmpty ? nil : waiting
        for pending in answered { pending.completion(FetchResult(representation)) }
    }

    /// What the manager's snapshot under way has read so far, per pasteboard (as it keeps them: no copy).
    private var readSoFar: [PasteboardName: (count: UInt64, kept: [PasteboardType: Representation])] = [:]
    /// What the manager's snapshot under way is receiving by INCR, per pasteboard.
    private var arrivingSoFar: [PasteboardName: (count: UInt64, bytes: [PasteboardType: ArrivingBytes])] = [:]

    /// The manager's snapshot of change `count` started receiving `type` by INCR: the fetches waiting for that
    /// type are answered now with its bytes as they arrive.
    private func snapshotArriving(_ pasteboard: PasteboardName, count: UInt64, _ type: PasteboardType, _ bytes: ArrivingBytes) {
        if arrivingSoFar[pasteboard]?.count != count { arrivingSoFar[pasteboard] = (count, [:]) }
        arrivingSoFar[pasteboard]?.bytes[type] = bytes
        guard let current = offered[pasteboard], current.count == count, var waiting = waitingForSnapshot[pasteboard] else { return }
        let answered = waiting.filter { $0.type == type && $0.serial == current.serial }
        guard !answered.isEmpty else { return }
        waiting.removeAll { $0.type == type && $0.serial == current.serial }
        waitingForSnapshot[pasteboard] = waiting.isEmpty ? nil : waiting
        for pending in answered { pending.completion(.arriving(bytes)) }
    }

    private func snapshotEnded(_ pasteboard: PasteboardName) {
        readSoFar[pasteboard] = nil
        arrivingSoFar[pasteboard] = nil
        if let onKeptWhole, let kept = keptContent(of: pasteboard) { onKeptWhole(pasteboard, kept) }
        if let count = awaitingTargets[pasteboard] { targetsUnread(pasteboard, count: count) }
        guard let waiting = waitingForSnapshot.removeValue(forKey: pasteboard) else { return }
        for pending in waiting {
            guard offered[pasteboard]?.serial == pending.serial else {
                pending.completion(changedSince(pasteboard))
                continue
            }
            if let content = keptContent(of: pasteboard), content.types.contains(pending.type) {
                pending.completion(FetchResult(pending.type, of: content, pasteboard))
            } else {
                readLive(pasteboard, pending)
            }
        }
    }

    private func readLive(_ pasteboard: PasteboardName, _ pending: PendingFetch) {
        liveReads[pasteboard, default: []].append(pending)
        if liveReads[pasteboard]!.count == 1 { startLiveRead(pasteboard) }
    }

    private func startLiveRead(_ pasteboard: PasteboardName) {
        guard let pending = liveReads[pasteboard]?.first else { return }
        guard let selection = service.boards.selection(of: pasteboard), let current = offered[pasteboard],
              current.serial == pending.serial else {
            return endLiveRead(pasteboard, changedSince(pasteboard))
        }
        let type = pending.type
        fetcher.start(Snapshotter.Request(selection: selection, name: pasteboard, targets: [x.intern(type.rawValue)],
                                          onArriving: { [weak self] target, bytes in
            // Answered as the transfer starts; the read goes on, and the next waits for it to end.
            guard target == type.rawValue, var queue = self?.liveReads[pasteboard], !queue.isEmpty, !queue[0].answered else { return }
            queue[0].answered = true
            self?.liveReads[pasteboard] = queue
            queue[0].completion(.arriving(bytes))
        }) {
            [weak self] outcome in
            guard let self else { return }
            switch outcome {
            case .complete(let content, _, _) where content.data(for: pending.type) != nil:
                self.endLiveRead(pasteboard, .data(content.data(for: pending.type)!))
            default:
                // The owner went away or would not give it: what this display kept of this change, if anything.
                if let kept = self.keptContent(of: pasteboard), kept.types.contains(pending.type) {
                    self.endLiveRead(pasteboard, FetchResult(pending.type, of: kept, pasteboard))
                } else if case .failed(let why, let skipped) = outcome {
                    self.endLiveRead(pasteboard, .failed(skipped.first.map { "\($0.type): \($0.reason)" } ?? why))
                } else {
                    self.endLiveRead(pasteboard, .failed("the owner of \(pasteboard) on \(self.name) did not give \(pending.type)"))
                }
            }
        })
        // Sent now, not at the end of the loop's turn: a reader on another display waits for this.
        x.flush()
    }

    private func endLiveRead(_ pasteboard: PasteboardName, _ result: FetchResult) {
        guard var queue = liveReads[pasteboard], !queue.isEmpty else { return }
        let done = queue.removeFirst()
        liveReads[pasteboard] = queue.isEmpty ? nil : queue
        if !done.answered { done.completion(result) }
        if !queue.isEmpty { startLiveRead(pasteboard) }
    }

    private func changedSince(_ pasteboard: PasteboardName) -> FetchResult {
        .failed("\(pasteboard) changed on \(name) since")
    }
}
