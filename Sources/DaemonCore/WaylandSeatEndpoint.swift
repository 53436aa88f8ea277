// SPDX-License-Identifier: Apache-2.0
import PasteboardCore
import SystemSupport
import WaylandClient
import XTypes

/// A Wayland seat attached to the engine, through a data-control protocol (`WaylandConnection`): the seat's
/// selection is CLIPBOARD and its primary selection PRIMARY (shared only with `sharePrimary`, as on X).
///
/// - Tokens: another client's selection is an offer whose MIME types arrive at once: they are the token; no
///   byte is read for it. The offer of a source this endpoint set (a mirror) carries `ownMarker` among its
///   types and is never reported (the engine's first loop guard).
/// - Fetching: a type of the current offer is read for another endpoint through a pipe the compositor hands
///   to the copying client, read without blocking the loop, with the engine's deadline and a size cap.
/// - Serving: another endpoint's offer is set as the seat's selection by a source of this endpoint offering
///   its types under MIME names (`WaylandTypes`); a reader's `send` fetches the bytes from the origin and writes
///   them to the reader's pipe without blocking.
///
/// - Read early, own late: another client's copy is read at once, one type at a time as the X manager reads
///   (`SnapshotPolicy.readingPlan`, its caps), and recorded (`record`: history, the kept clipboard); when the
///   seat's selection becomes empty without a new copy (its client went away) and the copy was read whole, the
///   daemon sets it again from what it read — not a change — and never while a client holds the selection. A
///   read under way when the client goes is dropped, never kept cut short. Secret copies are not read.
///
/// - Conversions: what a source of the daemon's offers is what an X display would list for the same content
///   (`ServedContent`: the origin's types and those the table derives), under MIME names; a type a Wayland reader
///   asks for is fetched from the origin (or taken from what was kept) and converted on the conversion worker as
///   for an X requestor — a JPEG copied in X pastes as PNG on Wayland, a Wayland HTML copy taken over pastes as RTF.
///
/// - The compositor's own bridge (`XWaylandRelay`), when the daemon serves its XWayland display too: an X copy
///   there is carried to the seat by the bridge itself while an X window has the focus — the bridge's source
///   (`expectedRelay`) is that copy seen here, never a change; without the focus the daemon sets the seat to the
///   copy once it was read whole (setting it makes the bridge take CLIPBOARD from the X owner there).
final class WaylandSeatEndpoint: PasteboardEndpoint {
    let id: EndpointID
    let name: String
    weak var engine: PasteboardEngine?
    /// Tells the watching clients about a change counted on this seat.
    var broadcast: ((ChangeNotice) -> Void)?

    private let connection: WaylandConnection
    private let clock: any MonotonicClock
    private let log: Logger
    private var counts: [PasteboardName: UInt64] = [:]
    private var serial: UInt64 = 0

    /// The MIME types each offer the compositor announced carries, as they arrive.
    private var offerTypes: [WaylandConnection.OfferID: [String]] = [:]
    /// The seat's current foreign selection per pasteboard: its offer (nil once its client is gone) and serial.
    private var current: [PasteboardName: (offer: WaylandConnection.OfferID?, serial: UInt64)] = [:]
    /// Reading the current copy early, per pasteboard.
    private var snapshots: [PasteboardName: Snapshot] = [:]
    /// What was read of the current copy, whole, per pasteboard (with the copy's serial).
    private var kept: [PasteboardName: (serial: UInt64, content: PasteboardContent)] = [:]
    /// The source set from what was kept once the copy's client went away, per pasteboard.
    private var takeovers: [PasteboardName: WaylandConnection.SourceID] = [:]
    /// What is read early and how much (the manager's policy).
    var policy: SnapshotPolicy
    /// The last reading plan made (a copier copies again with the same types).
    private var plans = ReadingPlanCache()
    /// True while recording is paused: nothing is read early or kept.
    var isPaused: () -> Bool = { false }
    /// Keeps a copy read whole: history and the kept clipboard (the first display's manager); with the archive file
    /// its large representations were read into and the content's digest, when they were (`incomingDirectory`).
    var record: ((PasteboardName, PasteboardContent, (archive: IncomingArchive, digest: UInt64)?) -> Void)?
    /// Where a representation read early that passes `IncomingArchive.threshold` goes straight from its pipe: an
    /// archive file there, which becomes the kept copy's (the history's directory; nil, RAM-only: all in memory).
    var incomingDirectory: String?

    private struct Snapshot {
        var serial: UInt64
        var offer: WaylandConnection.OfferID
        var groups: [SnapshotPlan.Group]
        var tried = 0
        var representations: [Representation] = []
        var total = 0
        /// Why the targets of the group under way that were tried gave nothing (kept only if none of them does).
        var groupFailures: [SkippedRepresentation] = []
        /// The groups that gave nothing, and why (for the log: never content).
        var skipped: [SkippedRepresentation] = []
        /// The pipe of the read under way.
        var reading: FileDescriptor?
        /// The archive file its large representations were read into, once one passed the threshold.
        var archive: IncomingArchive?
    }
    /// The XWayland display whose compositor bridges it to this seat: its endpoint, and whether an X window has the focus.
    var relayDisplay: RelayDisplay?

    /// The XWayland display of this seat's compositor, as the seat endpoint asks about it.
    struct RelayDisplay {
        var id: EndpointID
        /// True while an X window has the focus (the bridge carries X copies to the seat then).
        var xHasFocus: () -> Bool
        /// True while a copy counted there has not reached this seat yet: its targets (its token) are being read,
        /// or the engine's valve holds its offer back.
        var awaitsToken: (PasteboardName) -> Bool
        /// What it read whole of its copy `serial` of a pasteboard, if it did.
        var kept: (PasteboardName, UInt64) -> PasteboardContent?
    }
    /// Per pasteboard, the MIME types of the bridge's source for the relay display's X copy, while it is expected.
    private var expectedRelay: [PasteboardName: Set<String>] = [:]
    /// A seat offer held until the relay display's token says whether it is the bridge's source (`relayTokenWait`).
    private var parkedRelay: [PasteboardName: (offer: WaylandConnection.OfferID, deadline: MonotonicInstant)] = [:]
    /// The relay display's X copies to set the seat to once they are read whole (no X window focused), per pasteboard.
    private var awaitingKept: [PasteboardName: Offer] = [:]

    /// The compositor's process (the peer of the Wayland socket), nil when it cannot be told.
    var compositorProcessID: Int32? {
        try? peerCredentials(of: FileDescriptor(rawValue: connection.descriptor)).processID
    }

    /// What this endpoint serves for another, per pasteboard: the offer and the source set for it.
    private var mirrors: [PasteboardName: (offer: Offer, source: WaylandConnection.SourceID)] = [:]

    /// What each source of the daemon's serves (a mirror's or a takeover's content).
    private var served: [WaylandConnection.SourceID: ServedContent] = [:]
    /// Readers whose type waits for a fetch or a conversion.
    private var pendingSends: [PendingSend] = []
    private let conversions: Conversions
    private let table: ConversionTable
    private let conversionTimeout: Duration

    private struct PendingSend {
        var served: ServedContent
        var target: Atom
        var fd: FileDescriptor
        var deadline: MonotonicInstant
    }

    private var reads: [FileDescriptor: PipeRead] = [:]
    /// Reads whose pipe ended, waiting for the compositor's sync to say the offer still stands, by sync token.
    private var readsEnded: [UInt32: PipeRead] = [:]
    private var writes: [FileDescriptor: PipeWrite] = [:]
    private var flushPending = false

    private struct PipeRead {
        var offer: WaylandConnection.OfferID
        /// What came so far, straight from the pipe into chunks: one array of exactly its size at the end, never
        /// copied as it grows (`ChunkedBytes`).
        let bytes = ChunkedBytes()
        var cap: Int
        var deadline: MonotonicInstant
        /// Syncs still to be answered, after the pipe ended, before the offer standing means the bytes are whole.
        var syncsLeft = PipeRead.syncsAfterTheEnd
        /// Where the bytes go once they pass `IncomingArchive.threshold` (a read early, with the history on disk).
        var spill: Spill?
        /// The archive the bytes go to, once they passed it (the first chunks moved there, the rest read into it).
        var archive: IncomingArchive?
        var completion: (PipeResult) -> Void

        /// The bytes read so far, in memory and in the file.
        var count: Int { bytes.count + (archive?.streamedCount ?? 0) }

        /// Two: the compositor may answer the first sync in the same turn of its loop as, but before, the copier's
        /// hangup (a copier killed as it sends: its pipe ends, its source is cancelled); by the second, that turn is
        /// over and the cancelled offer has reached the daemon first (measured: one sync let a 48 MiB copy cut at
        /// 12 MiB through about one time in six under load).
        static let syncsAfterTheEnd = 2
    }
    /// A read early's way into its copy's archive file: the type it is read as, what the copy kept before it, and the
    /// copy's archive (made when first asked: a copy whose representations stay small makes no file).
    private struct Spill {
        var type: PasteboardType
        var kept: [Representation]
        var archive: () -> IncomingArchive?
    }

    /// How a read of a pipe ended.
    private enum PipeResult {
        /// All of it, in memory.
        case bytes([UInt8])
        /// All of it, read into the copy's archive file (`Spill`): the representation, read from there.
        case inFile(Representation)
        case failed(String)

        /// As another endpoint's fetch is answered.
        var fetchResult: FetchResult {
            switch self {
            case .bytes(let bytes): .data(bytes)
            case .inFile(let representation): .data(representation.data)
            case .failed(let reason): .failed(reason)
            }
        }
    }

    private struct PipeWrite {
        /// In memory, or read from the file the content is kept in a pipe's worth at a time.
        var bytes: SentBytes
        var offset = 0
        /// How much is written at once: what the pipe holds.
        var piece: Int
        var deadline: MonotonicInstant
        /// The bytes lie in a file that can be spliced into the pipe (`FileDescriptor.spliceSome`): the kernel moves
        /// references to its cached pages, nothing is read into the daemon or copied out of it.
        var splicing: ArchiveFileBytes?
    }

    /// The MIME type every source of this endpoint offers besides its content's (`WaylandTypes.ownMarker`).
    static let ownMarker = WaylandTypes.ownMarker

    init(id: EndpointID, name: String, connection: WaylandConnection, clock: any MonotonicClock, log: Logger, policy: SnapshotPolicy,
         conversions: Conversions, table: ConversionTable, conversionTimeout: Duration) {
        self.conversions = conversions
        self.table = table
        self.conversionTimeout = conversionTimeout
        self.id = id
        self.name = name
        self.connection = connection
        self.clock = clock
        self.log = log
        self.policy = policy
    }

    /// The data-control protocol bound, for `pb status`.
    var dataControlName: String { connection.dataControl.map { "\($0)" } ?? "no data-control" }

    private var pasteboards: [PasteboardName] {
        connection.dataControl?.hasPrimarySelection == true ? [.general, .primary] : [.general]
    }

    // MARK: - The loop's side

    /// What to poll, appended to `requests` (the loop keeps its array from turn to turn): the connection (readable;
    /// writable while requests wait), the pipes being read and written.
    func appendPollRequests(to requests: inout [PollRequest]) {
        requests.append(PollRequest(FileDescriptor(rawValue: connection.descriptor), flushPending ? [.readable, .writable] : .readable))
        if !reads.isEmpty { requests += reads.keys.sorted { $0.rawValue < $1.rawValue }.map { PollRequest($0, .readable) } }
        if !writes.isEmpty { requests += writes.keys.sorted { $0.rawValue < $1.rawValue }.map { PollRequest($0, .writable) } }
    }

    /// Handles what `poll` reported for the requests `appendPollRequests` gave (in their order). Throws when the compositor is gone.
    func handle(_ ready: ArraySlice<PollEvents>, for requests: ArraySlice<PollRequest>) throws(WaylandConnection.ConnectionError) {
        for (request, events) in zip(requests, ready) where !events.isEmpty {
            if request.fileDescriptor.rawValue == connection.descriptor {
                if events.contains(.readable) || events.contains(.hangup) || events.contains(.error) {
                    handle(try connection.read())
                }
            } else if reads[request.fileDescriptor] != nil {
                readMore(request.fileDescriptor)
            } else if writes[request.fileDescriptor] != nil {
                writeMore(request.fileDescriptor)
            }
        }
        flush()
    }

    /// Handles the events queued since the connection was made (the seat's first selections: an empty one is how
    /// the seat stands, not a change).
    func start() {
        startingUp = true
        handle(connection.takeEvents())
        startingUp = false
        flush()
    }

    /// True while the seat's selections as they stood when the daemon bound it are handled.
    private var startingUp = false

    private func flush() {
        flushPending = !((try? connection.flush()) ?? true)
    }

    var nextDeadline: MonotonicInstant? {
        var earliest = Earliest()
        for read in reads.values { earliest.add(read.deadline) }
        for write in writes.values { earliest.add(write.deadline) }
        for pending in pendingSends { earliest.add(pending.deadline) }
        for held in parkedRelay.values { earliest.add(held.deadline) }
        return earliest.value
    }

    /// Each turn of the loop comes here: a table is sorted (an array made and freed) only when one of its
    /// deadlines is due (`Dictionary.due`).
    func expire(now: MonotonicInstant) {
        for (name, held) in parkedRelay.due(by: now, deadline: \.deadline, ordered: { $0.rawValue < $1.rawValue }) {
            parkedRelay[name] = nil
            accept(name, held.offer, offerTypes[held.offer] ?? [])
        }
        for (fd, read) in reads.due(by: now, deadline: \.deadline, ordered: { $0.rawValue < $1.rawValue }) {
            reads[fd] = nil
            try? fd.close()
            read.completion(.failed("the Wayland client that copied it did not send it in time"))
        }
        if pendingSends.contains(where: { $0.deadline <= now }) {
            let waiting = pendingSends
            pendingSends = waiting.filter { $0.deadline > now }
            for pending in waiting where pending.deadline <= now {
                try? pending.fd.close()
                log.limited(.info, key: "wayland-convert", "a Wayland reader's type took longer than \(conversionTimeout) to fetch or convert: refused")
            }
        }
        for (fd, write) in writes.due(by: now, deadline: \.deadline, ordered: { $0.rawValue < $1.rawValue }) {
            writes[fd] = nil
            try? fd.close()
            log.limited(.info, key: "wayland-write", "a Wayland reader stopped reading: dropped its paste")
        }
    }

    // MARK: - The compositor's events

    private func handle(_ events: [WaylandConnection.Event]) {
        for event in events {
            switch event {
            case .offer(let offer): offerTypes[offer] = []
            case .offerType(let offer, let type):
                if let kept = offerTypes[offer], WaylandTypes.keepsAnnounced(type, after: kept.count) {
                    offerTypes[offer]!.append(type)
                }
            case .selection(let offer, let primary): selectionChanged(primary ? .primary : .general, to: offer)
            case .send(let source, let type, let fd): send(type, from: source, to: FileDescriptor(rawValue: fd))
            case .cancelled(let source): cancelled(source)
            case .finished: log.info("the Wayland seat went away: its selections are no longer served")
            case .synced(let token):
                guard var read = readsEnded.removeValue(forKey: token) else { continue }
                if offerTypes[read.offer] == nil {
                    read.completion(.failed("the Wayland client that copied it went away while sending it"))
                } else if read.syncsLeft > 1 {
                    read.syncsLeft -= 1
                    awaitSync(read)
                } else if let archive = read.archive {
                    read.completion(.inFile(archive.endStream()))
                } else {
                    read.completion(.bytes(read.bytes.take()))
                }
            }
        }
    }

    private func selectionChanged(_ name: PasteboardName, to offer: WaylandConnection.OfferID?) {
        if let previous = current[name]?.offer, previous != offer {
            forget(previous)
            current[name]?.offer = nil
        }
        if let held = parkedRelay.removeValue(forKey: name), held.offer != offer { forget(held.offer) }
        guard let offer else {
            emptied(name)
            return
        }
        let types = offerTypes[offer] ?? []
        if types.contains(Self.ownMarker) {
            // The daemon's own source (a mirror, or a takeover): not a change of this seat.
            return forget(offer)
        }
        if let expected = expectedRelay.removeValue(forKey: name), Set(types) == expected {
            return relayed(name, offer)
        }
        if let relayDisplay, relayDisplay.awaitsToken(name), types.allSatisfy({ $0.contains("/") }), relayDisplay.xHasFocus() {
            // Perhaps the bridge's source for the X copy whose targets the relay display is reading yet: judged when
            // they come (`serve`), or taken for a copy of this seat's at the deadline.
            parkedRelay[name] = (offer, clock.now() + Self.relayTokenWait)
            return
        }
        accept(name, offer, types)
    }

    /// How long a seat offer that may be the bridge's source for an X copy waits for that copy's targets.
    static let relayTokenWait: Duration = .milliseconds(500)

    /// The compositor's bridge carries the relay display's X copy here as `offer`: that copy, counted there.
    private func relayed(_ name: PasteboardName, _ offer: WaylandConnection.OfferID) {
        log.debug("the compositor's bridge shows the X copy of \(name) on \(self.name)")
        forget(offer)
    }

    private func forget(_ offer: WaylandConnection.OfferID) {
        connection.destroy(offer)
        offerTypes[offer] = nil
    }

    /// Another client's copy `offer` (MIME `types`) is the seat's selection: a change of this seat, read early.
    private func accept(_ name: PasteboardName, _ offer: WaylandConnection.OfferID, _ types: [String]) {
        guard pasteboards.contains(name), let engine else { return forget(offer) }
        awaitingKept[name] = nil
        mirrors.removeValue(forKey: name).map { destroy($0.source) }
        takeovers.removeValue(forKey: name).map { destroy($0) }
        dropSnapshot(name)
        kept[name] = nil
        serial += 1
        current[name] = (offer, serial)
        // A copy the seat held already when the daemon bound it is offered and read, but it is no change.
        let count = startingUp ? currentCount(name) : nextCount(name)
        log.debug("\(name) changed on \(self.name) (count \(count), \(types.count) types)")
        let offered = WaylandTypes.pasteboardTypes(fromMIME: types, table: table)
        let secret = types.contains { SnapshotPolicy.secretMarkers.contains($0) }
        engine.changed(name, on: id, count: count, .offered(Offer(pasteboard: name, origin: id, serial: serial, types: offered,
                                                                    isSensitive: secret)))
        if !startingUp { broadcast?(ChangeNotice(name: name, count: count, state: secret ? .sensitive : .foreign, types: offered)) }
        if secret {
            log.info("\(name) on \(self.name) holds secret content: not read, recorded or kept")
        } else if !isPaused() {
            let plan = plans.plan(policy, offered: offered.map(\.rawValue))
            snapshots[name] = Snapshot(serial: serial, offer: offer, groups: plan.groups)
            readNext(name)
        }
    }

    /// The seat's selection became empty: the copying client went away (or cleared it). What was read of the copy
    /// whole is set again — the same change, so the count does not move; else the others stop serving it.
    private func emptied(_ name: PasteboardName) {
        dropSnapshot(name)
        guard mirrors[name] == nil, takeovers[name] == nil, let engine, pasteboards.contains(name) else { return }
        // Empty when the daemon bound the seat, or a selection another side's change had replaced already: nothing changed.
        if current[name] == nil { return }
        if let serial = current[name]?.serial, let copy = kept[name], copy.serial == serial,
           let source = setSelection(name, ServedContent(content: copy.content, acquiredAt: .currentTime, table: table, names: LocalAtoms().contentNames)) {
            takeovers[name] = source
            log.info("took over \(name) on \(self.name) with the content it had (\(copy.content.types.count) types, \(copy.content.byteCount) bytes)")
            return
        }
        current[name] = nil
        kept[name] = nil
        let count = nextCount(name)
        engine.changed(name, on: id, count: count, .emptied)
        broadcast?(ChangeNotice(name: name, count: count, state: .empty))
    }

    // MARK: - Reading early

    /// Reads the next target of `name`'s snapshot, or keeps what was read once every group is done.
    private func readNext(_ name: PasteboardName) {
        guard var snapshot = snapshots[name] else { return }
        guard let group = snapshot.groups.first else {
            snapshots[name] = nil
            finish(snapshot, of: name)
            return
        }
        guard snapshot.tried < group.targets.count,
              let mime = WaylandTypes.mimeType(for: PasteboardType(group.targets[snapshot.tried]), offered: offerTypes[snapshot.offer] ?? [])
        else {
            snapshot.groups.removeFirst()
            snapshot.tried = 0
            snapshots[name] = snapshot
            return readNext(name)
        }
        let target = group.targets[snapshot.tried]
        let cap = min(policy.cap(for: target), policy.snapshotCap - snapshot.total)
        let serial = snapshot.serial
        var spill: Spill?
        if incomingDirectory != nil, policy.keepsBytesAsRead(target: target, table: table) {
            spill = Spill(type: PasteboardType(target), kept: snapshot.representations) { [weak self] in
                self?.archive(for: name, serial: serial)
            }
        }
        let pipe = read(snapshot.offer, mime, cap: max(cap, 0), spill: spill) { [weak self] result in
            self?.snapshotRead(name, serial: serial, target: target, result)
        }
        guard let pipe else {
            snapshots[name] = nil
            return
        }
        snapshot.reading = pipe
        snapshots[name] = snapshot
    }

    /// The archive file of `name`'s copy `serial` being read early, made now if it has none yet; nil when the copy is
    /// no longer read, or no file can be made (the read stays in memory: logged once).
    private func archive(for name: PasteboardName, serial: UInt64) -> IncomingArchive? {
        guard var snapshot = snapshots[name], snapshot.serial == serial, let directory = incomingDirectory else { return nil }
        if let archive = snapshot.archive { return archive }
        do {
            let archive = try IncomingArchive.create(in: directory, pasteboard: name)
            snapshot.archive = archive
            snapshots[name] = snapshot
            return archive
        } catch {
            log.limited(.warning, key: "wayland-incoming", "cannot make a file in \(directory) to read a large copy into, reading it into memory: \(error)")
            return nil
        }
    }

    private func snapshotRead(_ name: PasteboardName, serial: UInt64, target: String, _ result: PipeResult) {
        guard var snapshot = snapshots[name], snapshot.serial == serial else { return }
        snapshot.reading = nil
        var groupDone = false
        switch result {
        case .inFile(let representation):
            // Read into the file as it came (`SnapshotPolicy.keepsBytesAsRead`): kept as it is.
            snapshot.representations.append(representation)
            snapshot.total += representation.byteCount
            groupDone = true
        case .bytes(let bytes):
            switch policy.keep(target: target, replyType: nil, bytes: bytes, format: 8) {
            case .keep(let representation):
                snapshot.representations.append(representation)
                snapshot.total += representation.byteCount
                groupDone = true
            case .keepAsGiven(let representation, _):
                snapshot.representations.append(representation)
                snapshot.total += representation.byteCount
                snapshot.groupFailures = []
            case .leaveOut(let skipped):
                snapshot.groupFailures.append(skipped)
            }
        case .failed(let reason):
            // Bytes it left in the file are cut off or written over by what comes next.
            snapshot.archive?.abandonStream()
            snapshot.groupFailures.append(SkippedRepresentation(PasteboardType(target), reason))
        }
        snapshot.tried += 1
        if groupDone || snapshot.tried >= (snapshot.groups.first?.targets.count ?? 0) {
            if !groupDone { snapshot.skipped += snapshot.groupFailures }
            snapshot.groupFailures = []
            snapshot.groups.removeFirst()
            snapshot.tried = 0
        }
        snapshots[name] = snapshot
        readNext(name)
    }

    /// A snapshot read every group: what it kept is the copy's content (recorded), if anything.
    private func finish(_ snapshot: Snapshot, of name: PasteboardName) {
        guard current[name]?.serial == snapshot.serial else { return }
        let (item, _) = PasteboardItem.keeping(snapshot.representations)
        let leftOut = snapshot.skipped.isEmpty ? "" : "; left out: \(snapshot.skipped.summary())"
        guard let item else {
            if !snapshot.skipped.isEmpty { log.info("read \(name) on \(self.name): nothing kept\(leftOut)") }
            return
        }
        let content = PasteboardContent(items: [item])
        kept[name] = (snapshot.serial, content)
        var incoming: (archive: IncomingArchive, digest: UInt64)?
        if let archive = snapshot.archive, archive.holds(any: item.representations) {
            // Kept in the order read (else the digest made on the way is not the content's: made again from it).
            if item.representations.map(\.type) == snapshot.representations.map(\.type) {
                incoming = (archive, archive.digest(of: item.representations))
            }
        }
        log.info("read \(name) on \(self.name): \(content.types.count) types, \(content.byteCount) bytes\(leftOut)"
                 + (incoming == nil ? "" : " (read into its file)"))
        record?(name, content, incoming)
        // Its client may have gone while it was being read: the selection is empty, and it is set again now.
        if current[name]?.offer == nil { emptied(name) }
    }

    /// Stops reading `name`'s copy: a read under way is dropped (never kept cut short).
    private func dropSnapshot(_ name: PasteboardName) {
        guard let snapshot = snapshots.removeValue(forKey: name), let pipe = snapshot.reading,
              let read = reads.removeValue(forKey: pipe) else { return }
        try? pipe.close()
        read.completion(.failed("the copy changed while it was read"))
    }

    private func nextCount(_ name: PasteboardName) -> UInt64 {
        let count = currentCount(name) + 1
        counts[name] = count
        return count
    }

    private func currentCount(_ name: PasteboardName) -> UInt64 { max(counts[name] ?? 0, engine?.counts[name] ?? 0) }

    // MARK: - Fetching for other endpoints

    func fetch(_ pasteboard: PasteboardName, type: PasteboardType, serial: UInt64, completion: @escaping (FetchResult) -> Void) {
        guard let current = current[pasteboard], current.serial == serial else {
            return completion(.failed("\(pasteboard) changed on \(name) meanwhile"))
        }
        guard let offer = current.offer else {
            // Its client is gone: what was read of it, if it was read whole.
            guard let copy = kept[pasteboard], copy.serial == serial else {
                return completion(.failed("the Wayland client that copied \(pasteboard) is gone"))
            }
            return completion(FetchResult(type, of: copy.content, pasteboard))
        }
        guard let mime = WaylandTypes.mimeType(for: type, offered: offerTypes[offer] ?? []) else {
            return completion(.failed("\(pasteboard) on \(name) does not offer \(type)"))
        }
        // The most one read of another client's selection may bring: the snapshot's whole cap.
        if read(offer, mime, cap: policy.snapshotCap, completion: { completion($0.fetchResult) }) == nil {
            completion(.failed("\(pasteboard) on \(name) is gone"))
        }
    }

    /// Asks `offer` for `mime` through a new pipe and reads it without blocking (at most `cap` bytes, within the
    /// engine's deadline); returns the pipe's read end, or nil (nothing asked) when the offer is gone.
    private func read(_ offer: WaylandConnection.OfferID, _ mime: String, cap: Int, spill: Spill? = nil,
                      completion: @escaping (PipeResult) -> Void) -> FileDescriptor? {
        let pipe: (readEnd: FileDescriptor, writeEnd: FileDescriptor)
        do { pipe = try FileDescriptor.pipe(nonBlocking: true) } catch {
            log.limited(.warning, key: "wayland-pipe", "cannot make a pipe: \(error)")
            return nil
        }
        let asked = connection.receive(offer, mimeType: mime, into: pipe.writeEnd.rawValue)
        try? pipe.writeEnd.close()   // the compositor passed its own copy on
        guard asked else {
            try? pipe.readEnd.close()
            return nil
        }
        flush()
        let deadline = clock.now() + (engine?.fetchTimeout ?? .seconds(3))
        reads[pipe.readEnd] = PipeRead(offer: offer, cap: cap, deadline: deadline, spill: spill, completion: completion)
        return pipe.readEnd
    }

    /// Asks the compositor for a sync; `read` is looked at again when it is answered.
    private func awaitSync(_ read: PipeRead) {
        guard let token = connection.sync() else { return read.completion(.failed("the Wayland compositor did not answer")) }
        flush()
        readsEnded[token] = read
    }

    private func readMore(_ fd: FileDescriptor) {
        guard var read = reads[fd] else { return }
        while true {
            // One byte past the cap is enough to know it is over.
            let limit = min(read.cap - read.count, .max - 1) + 1
            let outcome: ChunkedBytes.ReadOutcome
            if let archive = read.archive {
                do { outcome = try archive.read(from: fd, limit: limit) } catch {
                    reads[fd] = nil
                    try? fd.close()
                    return read.completion(.failed("cannot read it into its file: \(error)"))
                }
            } else {
                outcome = (try? read.bytes.read(from: fd, limit: limit)) ?? .endOfFile
            }
            switch outcome {
            case .read:
                guard read.count <= read.cap else {
                    reads[fd] = nil
                    try? fd.close()
                    return read.completion(.failed("the data is larger than the cap of \(read.cap) bytes"))
                }
                if read.archive == nil, let spill = read.spill, read.bytes.count >= IncomingArchive.threshold, let archive = spill.archive() {
                    // Large: what came so far goes to the copy's archive file, and the rest straight there.
                    archive.begin(spill.type, after: spill.kept)
                    do { try read.bytes.drain { try archive.append($0) } } catch {
                        reads[fd] = nil
                        try? fd.close()
                        return read.completion(.failed("cannot read it into its file: \(error)"))
                    }
                    read.archive = archive
                    reads[fd] = read
                    // The rest comes a larger pipe at a time: fewer turns of the loop (and of the copier).
                    _ = fd.growPipe(to: Self.largePipeBytes)
                }
            case .wouldBlock:
                return
            case .endOfFile:
                reads[fd] = nil
                try? fd.close()
                // Wayland says no size: a client killed mid-send ends its pipe as one that is done. Whole only if its
                // offer is still there once the compositor has handled what came before (`syncsAfterTheEnd`).
                awaitSync(read)
                return
            }
        }
    }

    // MARK: - Serving other endpoints' changes

    func serve(_ offer: Offer, count: UInt64) {
        adopt(count: count, for: offer.pasteboard)
        guard pasteboards.contains(offer.pasteboard) else { return }
        supersede(offer.pasteboard)
        var offer = offer
        if let relayDisplay, offer.origin == relayDisplay.id {
            let focused = relayDisplay.xHasFocus()
            // Read whole already (its offer may reach the seat after the read ended: the engine's valve held it).
            if !focused, offer.content == nil, let kept = relayDisplay.kept(offer.pasteboard, offer.serial) { offer.content = kept }
            if relayShown(offer, focused: focused) { return }
        }
        var remote: ServedContent.RemoteTypes?
        if offer.content == nil {
            let name = offer.pasteboard, serial = offer.serial, origin = offer.origin, me = id
            remote = ServedContent.RemoteTypes(types: offer.types) { [weak self] type, completion in
                guard let engine = self?.engine else { return completion(.failed("pasteboardd is stopping")) }
                engine.fetch(name, type: type, serial: serial, origin: origin, for: me, completion: completion)
            }
        }
        let content = ServedContent(content: offer.servedContent, remote: remote, acquiredAt: .currentTime, table: table, names: LocalAtoms().contentNames)
        if let previous = mirrors.removeValue(forKey: offer.pasteboard) { destroy(previous.source) }
        guard let source = setSelection(offer.pasteboard, content) else { return }
        mirrors[offer.pasteboard] = (offer, source)
    }

    /// Sets a source of the daemon's serving `content` as `name`'s selection: what it lists, under MIME names, and
    /// the daemon's mark. Nil (nothing set) when it lists nothing a Wayland reader can take, or the seat refuses.
    private func setSelection(_ name: PasteboardName, _ content: ServedContent) -> WaylandConnection.SourceID? {
        let types = WaylandTypes.mimeTypes(for: content.listed.compactMap { content.type(of: $0) })
        guard !types.isEmpty, let source = connection.makeSource(offering: types + [Self.ownMarker]) else { return nil }
        guard connection.setSelection(source, primary: name == .primary) else {
            connection.destroy(source)
            return nil
        }
        served[source] = content
        content.onFetched = { [weak self] in self?.retryPending() }
        flush()
        return source
    }

    /// Forgets a source of the daemon's: what waits for its content is refused.
    private func destroy(_ source: WaylandConnection.SourceID) {
        connection.destroy(source)
        guard let content = served.removeValue(forKey: source) else { return }
        conversions.cancel(for: content)
        for pending in pendingSends where pending.served === content { try? pending.fd.close() }
        pendingSends.removeAll { $0.served === content }
    }

    /// An offer of the relay display's, left to the compositor's bridge or waiting to be read whole (true), or to be
    /// served as any other side's (false: content the daemon has the bytes of, with no X window focused).
    ///
    /// With an X window focused the bridge carries the X copy to the seat itself — the daemon's own X copy too
    /// (its TARGETS to the bridge carry the daemon's mark): setting a source of the daemon's instead would make the
    /// bridge take CLIPBOARD from the X owner. Without the focus the bridge carries nothing, and the daemon sets the
    /// seat to the copy once it has its bytes (`relayKept`).
    private func relayShown(_ offer: Offer, focused: Bool) -> Bool {
        guard focused || offer.content == nil else { return false }
        let name = offer.pasteboard
        // What the seat showed until now is not shown over the copy (the bridge's source, or the daemon's soon).
        if let previous = mirrors.removeValue(forKey: name) { destroy(previous.source) }
        takeovers.removeValue(forKey: name).map { destroy($0) }
        guard focused else {
            awaitingKept[name] = offer
            return true
        }
        guard offer.content == nil else { return true }   // the bridge's source carries the daemon's mark
        let expected = XWaylandRelay.mimeTypes(relaying: offer.types.map(\.rawValue))
        if let held = parkedRelay[name] {
            if Set(offerTypes[held.offer] ?? []) == expected {
                parkedRelay[name] = nil
                relayed(name, held.offer)
            } else {
                parkedRelay[name]?.deadline = clock.now()   // a copy of this seat's: taken next turn
            }
        } else {
            expectedRelay[name] = expected
        }
        return true
    }

    /// Another side's change replaced the seat's own copy of `name`: it is no longer read, kept or taken over.
    private func supersede(_ name: PasteboardName) {
        dropSnapshot(name)
        current[name] = nil
        kept[name] = nil
        awaitingKept[name] = nil
        expectedRelay[name] = nil
    }

    /// The relay display's current copy of `name` was read whole: with no X window focused the seat is set to it now
    /// (the bridge then takes it from its X owner, and the daemon serves it there: `XDisplayEndpoint.relayTook`).
    func relayKept(_ name: PasteboardName, _ content: PasteboardContent) {
        guard var offer = awaitingKept.removeValue(forKey: name), let current = engine?.current[name],
              current.origin == offer.origin, current.serial == offer.serial else { return }
        offer.content = content
        serve(offer, count: counts[name] ?? 0)
    }

    func withdraw(_ pasteboard: PasteboardName, count: UInt64) {
        adopt(count: count, for: pasteboard)
        supersede(pasteboard)
        guard let mirror = mirrors.removeValue(forKey: pasteboard) else { return }
        _ = connection.setSelection(nil, primary: pasteboard == .primary)
        destroy(mirror.source)
        flush()
    }

    func adopt(count: UInt64, for pasteboard: PasteboardName) {
        counts[pasteboard] = max(counts[pasteboard] ?? 0, count)
    }

    func keptContent(of pasteboard: PasteboardName) -> PasteboardContent? {
        guard let copy = kept[pasteboard], copy.serial == current[pasteboard]?.serial else { return nil }
        return copy.content
    }

    func replaceContent(of pasteboard: PasteboardName, with content: PasteboardContent) {
        guard var mirror = mirrors[pasteboard], mirror.offer.content != nil else { return }
        mirror.offer.content = content
        mirrors[pasteboard] = mirror
        _ = served[mirror.source]?.adopt(content)
    }

    /// A Wayland reader asks for `mime` of what a source of the daemon's serves: the bytes at hand, fetched from the
    /// origin or converted (on the worker), then written to the reader's pipe as it takes them.
    private func send(_ mime: String, from source: WaylandConnection.SourceID, to fd: FileDescriptor) {
        guard let content = served[source] else {
            try? fd.close()
            return
        }
        let names = content.served.compactMap { content.type(of: $0) }
        guard let type = WaylandTypes.pasteboardType(forMIME: mime, offered: names) else {
            try? fd.close()
            return
        }
        guard let target = content.target(of: type) else {
            try? fd.close()
            return
        }
        let pending = PendingSend(served: content, target: target, fd: fd, deadline: clock.now() + conversionTimeout)
        if !answer(pending) { pendingSends.append(pending) }
    }

    private var services: ConversionServices {
        ConversionServices(codePages: Conversions.systemCodePages, images: Conversions.imageCodec, imageLimits: conversions.imageLimits)
    }

    /// Answers `pending` if its value is to be had now (true), else starts what it waits for (false).
    private func answer(_ pending: PendingSend) -> Bool {
        switch pending.served.lookup(pending.target, services: services) {
        case .value(let value):
            switch value.items {
            case .bytes(let bytes): write(.bytes(bytes), to: pending.fd)
            case .source(let source) where source.isFinal: write(.source(source), to: pending.fd)
            default:
                if let bytes = (try? value.inMemory())?.bytes { write(.bytes(bytes), to: pending.fd) } else { try? pending.fd.close() }
            }
            return true
        case .refused:
            for (type, reason) in pending.served.takeFailures() {
                log.limited(.warning, key: "conversion", "could not derive \(type) for a Wayland reader: \(reason)")
            }
            try? pending.fd.close()
            return true
        case .convert(let job):
            conversions.start(job, for: pending.served)
            return false
        case .converting:
            return false
        }
    }

    /// Answers the readers whose fetch or conversion ended (conversions' results reach their content first).
    func retryPending() {
        let waiting = pendingSends
        pendingSends = []
        for pending in waiting where !answer(pending) { pendingSends.append(pending) }
        flush()
    }

    private func write(_ bytes: SentBytes, to fd: FileDescriptor) {
        guard (try? fd.setNonBlocking()) != nil else {
            try? fd.close()
            return
        }
        // A large value goes in pieces of what the pipe holds: grown to 1 MiB, 16 times fewer turns of the loop
        // (and of the reader) than the default 64 KiB.
        let piece = bytes.count > Self.defaultPipeBytes ? fd.growPipe(to: Self.largePipeBytes) ?? Self.defaultPipeBytes : Self.defaultPipeBytes
        var write = PipeWrite(bytes: bytes, piece: piece, deadline: clock.now() + .seconds(30))
        if case .source(let source) = bytes { write.splicing = source as? ArchiveFileBytes }
        writes[fd] = write
        writeMore(fd)
    }

    private static let defaultPipeBytes = 64 << 10
    private static let largePipeBytes = 1 << 20

    private func writeMore(_ fd: FileDescriptor) {
        guard var write = writes[fd] else { return }
        while write.offset < write.bytes.count {
            let range = write.offset..<min(write.offset + write.piece, write.bytes.count)
            let written: Int
            do {
                if let file = write.splicing {
                    written = try fd.spliceSome(from: file.file.descriptor, at: file.offset + range.lowerBound, count: range.count)
                } else {
                    written = try write.bytes.withChunk(range, { piece in Result { try fd.writeSome(piece) } }).get()
                }
            } catch Errno.Code.invalidArgument where write.splicing != nil {
                write.splicing = nil   // a file system that cannot splice: written as read
                continue
            } catch {
                // The reader went away (EPIPE: SIGPIPE is ignored by the daemon), the pipe broke, or the file ended or failed.
                writes[fd] = nil
                try? fd.close()
                return
            }
            if written == 0 {
                write.deadline = clock.now() + .seconds(30)
                writes[fd] = write
                return
            }
            write.offset += written
        }
        writes[fd] = nil
        try? fd.close()
    }

    private func cancelled(_ source: WaylandConnection.SourceID) {
        destroy(source)
        for (name, mirror) in mirrors where mirror.source == source { mirrors[name] = nil }
        for (name, takeover) in takeovers where takeover == source { takeovers[name] = nil }
    }
}

/// Names as atoms for `ServedContent`, which speaks X atoms, where no X server gives them (none is asked): one table
/// for each content (`contentNames`), so the names a client offers are held only while a content serving them
/// lives. The seat makes one for each ServedContent (one table for the endpoint kept every name any client ever
/// offered, for the daemon's life), and so does `InMemoryDisplay` (numbered above its own atoms); the display
/// keeps one for its own names, as an X server keeps its atoms.
final class LocalAtoms {
    private var numbers: [String: Atom] = [:]
    /// The names in the order numbered: `first + i` is `names[i]`.
    private var names: [String] = []
    private let first: UInt32

    /// - Parameter first: the number the first name gets; the others follow.
    init(first: UInt32 = 1) {
        self.first = first
    }

    func intern(_ list: [String]) -> [Atom] {
        // Room for all at once: a content's table is made with its twenty-odd names in one call, which grew the
        // dictionary four times over (half the cost of a table, measured).
        numbers.reserveCapacity(numbers.count + list.count)
        return list.map { name in
            if let atom = numbers[name] { return atom }
            let atom = Atom(first + UInt32(names.count))
            numbers[name] = atom
            names.append(name)
            return atom
        }
    }

    func name(of atom: Atom) -> String? {
        guard atom.rawValue >= first, case let index = Int(atom.rawValue - first), index < names.count else { return nil }
        return names[index]
    }

    /// How many names it holds.
    var count: Int { names.count }

    /// This table as a content's names (`ServedContent`): it lives as long as that content.
    var contentNames: ContentNames { ContentNames(intern: intern, name: name(of:)) }
}
