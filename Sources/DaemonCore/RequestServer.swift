// SPDX-License-Identifier: Apache-2.0
import ImageCodecs
import Images
import PasteboardCore
import RichText
import Selection
import SystemSupport
import XTypes

/// Answers X requestors for the pasteboards the daemon owns, and `read` requests of control clients.
///
/// A request whose targets all have values now is answered at once through `PlanExecutor`. One that needs a
/// conversion not done yet is parked: the conversion runs on the worker thread (`Conversions`), every other
/// request is served meanwhile, and the parked request is answered when its values are ready — or refused
/// once it has waited `conversionTimeout` (the conversion still finishes and is kept for the next paste).
/// When the content changes, parked requests for the old content are refused and its queued conversions
/// dropped.
final class RequestServer {
    private let x: any XDisplay
    private let clock: any MonotonicClock
    private let log: Logger
    private let boards: Boards
    private let executor: PlanExecutor
    let conversions: Conversions
    let conversionTimeout: Duration
    /// Called for each answered paste of a target (not TARGETS/TIMESTAMP) on `selection`.
    var onPaste: ((Atom) -> Void)?
    /// Called for each read of served content (`ReadNotice`), while `watchesReads` says someone listens:
    /// readers are looked up only then.
    var onRead: ((ReadNotice) -> Void)?
    var watchesReads: () -> Bool = { false }
    /// Who may read sensitive content.
    var readPolicy = ReadPolicy()
    /// Finds who a requestor is (its window's class, its process).
    private let sources: SourceLookup
    /// The last requestor looked up for a read record, kept a second: one paste is several requests from one
    /// window (TARGETS, then a target or three), and each lookup is a few round trips.
    private var recentReader: (window: WindowID, until: MonotonicInstant, source: ContentSource)?

    private struct ParkedRequest {
        var request: SelectionRequest
        var served: ServedContent
        var pairs: [Atom]?
        var pairsOverCap: Int?
        var deadline: MonotonicInstant
    }

    private struct ParkedRead {
        var name: PasteboardName
        var selection: Atom
        var types: [String]
        var served: ServedContent
        var deadline: MonotonicInstant
        var completion: (ReadOutcome) -> Void
        /// The control client reading.
        var reader: ContentSource?
    }

    private var parkedRequests: [ParkedRequest] = []
    private var parkedReads: [ParkedRead] = []

    init(x: any XDisplay, clock: any MonotonicClock, log: Logger, boards: Boards, executor: PlanExecutor,
         conversions: Conversions, conversionTimeout: Duration) {
        self.x = x
        self.clock = clock
        self.log = log
        self.boards = boards
        self.executor = executor
        self.conversions = conversions
        self.conversionTimeout = conversionTimeout
        sources = SourceLookup(x: x)
    }

    /// The targets of a request that are reads of content: the target asked for, or each target of MULTIPLE's
    /// pairs — never TARGETS, TIMESTAMP or MULTIPLE itself (the protocol's own: `protocolTargets`).
    static func readTargets(target: Atom, multiple: Atom, pairs: [Atom]?, protocolTargets: [Atom]) -> [Atom] {
        let asked = target == multiple ? stride(from: 0, to: (pairs ?? []).count - 1, by: 2).map { pairs![$0] } : [target]
        return asked.filter { !protocolTargets.contains($0) }
    }

    /// Requests and reads waiting for a conversion.
    var parkedCount: Int { parkedRequests.count + parkedReads.count }

    var nextDeadline: MonotonicInstant? {
        var earliest = Earliest()
        for parked in parkedRequests { earliest.add(parked.deadline) }
        for parked in parkedReads { earliest.add(parked.deadline) }
        earliest.add(readAhead?.aheadDeadline)
        return earliest.value
    }

    /// The content whose plain text was last read ahead of a request (`ServedContent.fetchAhead`), so that what
    /// no request took is dropped at its deadline.
    private var readAhead: ServedContent?

    private var services: ConversionServices {
        ConversionServices(codePages: Conversions.systemCodePages, compoundText: x, images: Conversions.imageCodec,
                           imageLimits: conversions.imageLimits)
    }

    // MARK: - X requestors

    /// Targets TARGETS lists to one requestor beside the content's, never served (the daemon's mark, to the
    /// compositor's bridge: `XWaylandRelay`).
    var extraTargets: ((WindowID) -> [Atom])?

    /// Answers a SelectionRequest for a pasteboard the daemon owns, whatever the request's time (an
    /// Emacs timer asks with its last key press's time, older than the copy: `SelectionResponder`).
    /// Refused at once when the daemon does not serve the pasteboard any more — another client took it,
    /// or it was cleared — so ownership, not the request's time, decides.
    func answer(_ request: SelectionRequest) {
        guard let served = boards[request.selection]?.served else {
            executor.refuse(request)
            return
        }
        var pairs: [Atom]? = nil
        var pairsOverCap: Int? = nil
        if request.target == x.atoms.multiple && !request.property.isNone {
            executor.serials.label(.reply(requestor: request.requestor))
            let read = x.getProperty(request.requestor, request.property, delete: false,
                                     maximumBytes: executor.responder.maximumMultiplePairs * 8)
            if let value = read.value {
                if read.bytesAfter == 0 { pairs = value.atoms } else { pairsOverCap = (value.byteCount + read.bytesAfter) / 8 }
            }
        }
        let parked = ParkedRequest(request: request, served: served, pairs: pairs, pairsOverCap: pairsOverCap,
                                   deadline: clock.now() + conversionTimeout)
        if served.content.isSensitive, !readPolicy.isEmpty, !contentTargets(of: parked).isEmpty,
           let refusal = policyRefusal(of: request.requestor) {
            executor.refuse(request)
            let name = boards[request.selection]?.name.rawValue ?? "a pasteboard"
            log.limited(.info, key: "read-policy", "refused \(name)'s sensitive content to \(refusal.reader?.description ?? "an unknown client"): \(refusal.reason)")
            noteReads(of: parked, reader: refusal.reader, refusal: { _ in refusal.reason })
            return
        }
        if !tryAnswer(parked) { park(parked) }
    }

    /// The content targets a request asks for (the target, or MULTIPLE's pair targets).
    private func contentTargets(of parked: ParkedRequest) -> [Atom] {
        let atoms = x.atoms
        return Self.readTargets(target: parked.request.target, multiple: atoms.multiple, pairs: parked.pairs,
                                protocolTargets: [atoms.targets, atoms.timestamp, atoms.multiple])
    }

    /// Why `readPolicy` refuses the requestor `window`, with who it is; nil when it may read.
    private func policyRefusal(of window: WindowID) -> (reason: String, reader: ContentSource?)? {
        executor.serials.label(.lookup)
        defer { executor.serials.label(.housekeeping) }
        let source = sources.source(of: window)
        let reader = ReadPolicy.Reader(names: sources.classNames(of: window) + [source?.application].compactMap { $0 },
                                       processID: source?.processID ?? x.clientProcessID(of: window), hasWindow: true)
        var focus: Int32?
        var focusName: String?
        if readPolicy.focusedWindowOnly {
            let focused = x.inputFocus()
            focus = focused.isNone ? nil : x.clientProcessID(of: focused)
            focusName = sources.source(of: focused)?.application
        }
        return readPolicy.refusal(of: reader, focus: focus, focusName: focusName).map { ($0, source) }
    }

    /// Who `window` belongs to, for a read record (`recentReader`).
    /// Only a window that was named is remembered: a lookup that found nobody (its client gone) says nothing of
    /// the next client, and X gives a new client the window IDs of one that just left — a requestor asking
    /// TARGETS and exiting, then another asking for text within the second, were taken for one nobody.
    private func source(of window: WindowID) -> ContentSource? {
        let now = clock.now()
        if let recent = recentReader, recent.window == window, now < recent.until { return recent.source }
        let source = executor.serials.lookingUp { sources.source(of: window) }
        recentReader = source.map { (window, now + .seconds(1), $0) }
        return source
    }

    /// Tells `onRead` of each content target `parked` asks for, served or refused (`refusal` of a target: why);
    /// a request for the protocol's own targets alone is no read, and nobody is looked up for it.
    private func noteReads(of parked: ParkedRequest, reader: ContentSource??, refusal: (Atom) -> String?) {
        guard let onRead, watchesReads(), let name = boards[parked.request.selection]?.name else { return }
        let targets = contentTargets(of: parked)
        guard !targets.isEmpty else { return }
        let who = reader ?? source(of: parked.request.requestor)
        for target in targets {
            onRead(ReadNotice(name: name, type: parked.served.name(of: target) ?? "atom \(target.rawValue)", reader: who, refusal: refusal(target), via: .x))
        }
    }

    /// Answers `parked` if every value it needs is at hand (starting the conversions it lacks); false
    /// when it must wait.
    private func tryAnswer(_ parked: ParkedRequest, timedOut: Bool = false) -> Bool {
        parked.served.dropStaleAhead(now: clock.now())
        var waiting = false
        var values: [Atom: PropertyValue] = [:]
        for target in contentTargets(of: parked) where values[target] == nil {
            switch parked.served.lookup(target, services: services, arriving: true) {
            case .value(let value): values[target] = value
            case .refused: break
            case .convert(let job):
                conversions.start(job, for: parked.served)
                waiting = true
            case .converting: waiting = true
            }
        }
        if waiting && !timedOut { return false }
        let plan = executor.responder.plan(
            for: parked.request, acquiredAt: parked.served.acquiredAt, offered: parked.served.served,
            listed: parked.served.listed + (parked.request.target == x.atoms.targets ? extraTargets?(parked.request.requestor) ?? [] : []),
            multiplePairs: parked.pairs, convert: { values[$0] })
        // Who reads is looked up before the answer: xclip exits as soon as it has the bytes, and a client gone
        // has no process to name.
        let reader: ContentSource?? = onRead != nil && watchesReads() && !contentTargets(of: parked).isEmpty
            ? .some(source(of: parked.request.requestor)) : nil
        executor.execute(plan, for: parked.request)
        if parked.request.target == x.atoms.targets, !plan.isRefused, parked.served.isRemote {
            // A toolkit asks for text next: the answer goes out first, then the origin's text is read ahead.
            x.flush()
            if parked.served.fetchAhead(now: clock.now()) { readAhead = parked.served }
        }
        if timedOut {
            log.limited(.info, key: "conversion-timeout", "refused a request from \(parked.request.requestor): its conversion took longer than \(conversionTimeout)")
        }
        if !plan.isRefused, !plan.writes.isEmpty, ![x.atoms.targets, x.atoms.timestamp].contains(parked.request.target) {
            onPaste?(parked.request.selection)
        }
        noteReads(of: parked, reader: reader) { target in
            if plan.isRefused || values[target] == nil { return timedOut ? "its conversion took too long" : "not served: nothing offered is or converts to it" }
            return nil
        }
        logFailures(of: parked.served, on: parked.request.selection)
        executor.logRefusals(of: plan, for: parked.request, pairsOverCap: parked.pairsOverCap)
        return true
    }

    // MARK: - Control clients

    /// How a control client's `read` ended.
    enum ReadOutcome {
        case value(type: String, bytes: [UInt8])
        /// The daemon does not own the pasteboard (another client does, or nobody).
        case notHeld
        /// It owns it but none of the types is offered, nor converts from what is.
        case notOffered(String)
        /// A conversion to the type failed; the reason says why (never content).
        case conversionFailed(String)
        /// The conversion outlived the limit.
        case timedOut(String)
        /// `readPolicy` refuses the reader.
        case denied(String)
    }

    /// What an X requestor asking for the first of `types` that `name` serves would get, without the X
    /// transfer: for `pb paste` over the control socket. Answered once conversions are done; `notHeld` when
    /// the daemon does not own `name` — confirmed with the server (one round trip), so a copy another client
    /// made a moment ago is never answered with the content it replaced. Counts as a paste for paste-once.
    func read(_ name: PasteboardName, types: [String], reader: ContentSource? = nil, completion: @escaping (ReadOutcome) -> Void) {
        guard let board = boards.board(named: name), let served = board.served,
              x.selectionOwner(board.selection) == executor.ownerWindow else {
            completion(.notHeld)
            return
        }
        read(name, types: types, from: served, reader: reader, completion: completion)
    }

    /// The same read answered from `served`, content the daemon does not serve on the display (what another
    /// application at home copied, as the manager read it, for a client without a display of its own).
    func read(_ name: PasteboardName, types: [String], from served: ServedContent, reader: ContentSource? = nil,
              completion: @escaping (ReadOutcome) -> Void) {
        let parked = ParkedRead(name: name, selection: boards.selection(of: name) ?? .none, types: types, served: served,
                                deadline: clock.now() + conversionTimeout, completion: completion, reader: reader)
        // A control client has no window: of the policy, only the names apply to it (its process's).
        if served.content.isSensitive, !readPolicy.isEmpty,
           let refusal = readPolicy.refusal(of: ReadPolicy.Reader(names: [reader?.application].compactMap { $0 },
                                                                  processID: reader?.processID, hasWindow: false), focus: nil) {
            log.limited(.info, key: "read-policy", "refused \(name)'s sensitive content to \(reader?.description ?? "an unknown client"): \(refusal)")
            if watchesReads() { onRead?(ReadNotice(name: name, type: types.first ?? "-", reader: reader, refusal: refusal, via: .socket)) }
            completion(.denied(refusal))
            return
        }
        if !tryRead(parked) { park(parked) }
    }

    /// Keeps `parked` until its values are at hand; a fetch from another display it waits for looks again when
    /// it ends (`ServedContent.onFetched`), as a conversion does (`retryParked`).
    private func park(_ parked: ParkedRequest) {
        parked.served.onFetched = { [weak self] in self?.retryParked() }
        parkedRequests.append(parked)
    }

    private func park(_ parked: ParkedRead) {
        parked.served.onFetched = { [weak self] in self?.retryParked() }
        parkedReads.append(parked)
    }

    private func tryRead(_ parked: ParkedRead, timedOut: Bool = false) -> Bool {
        defer { logFailures(of: parked.served, on: parked.selection) }
        parked.served.dropStaleAhead(now: clock.now())
        var failed: [(String, String)] = []
        for type in parked.types {
            guard let target = parked.served.target(of: PasteboardType(type)) else { continue }
            switch parked.served.lookup(target, services: services) {
            case .value(let value):
                // Content served from its file is read for the client (it gets the bytes in one message).
                let bytes: [UInt8]
                do {
                    guard let read = try value.inMemory().bytes else { continue }
                    bytes = read
                } catch {
                    failed.append((type, "its bytes could not be read from the daemon's file: \(error)"))
                    continue
                }
                onPaste?(parked.selection)
                if watchesReads() { onRead?(ReadNotice(name: parked.name, type: type, reader: parked.reader, refusal: nil, via: .socket)) }
                let served = parked.served.name(of: value.type) ?? type
                parked.completion(.value(type: served, bytes: bytes))
                return true
            case .refused:
                if let reason = parked.served.failureReason(for: target) { failed.append((type, reason)) }
            case .convert(let job):
                conversions.start(job, for: parked.served)
                if !timedOut { return false }
            case .converting:
                if !timedOut { return false }
            }
        }
        if timedOut {
            parked.completion(.timedOut("converting \(parked.name) to \(parked.types.first ?? "") took longer than \(conversionTimeout)"))
        } else if let (type, reason) = failed.first {
            parked.completion(.conversionFailed("\(parked.name) could not be converted to \(type): \(reason)"))
        } else {
            parked.completion(.notOffered("\(parked.name) offers none of \(parked.types.joined(separator: ", ")), and nothing it offers converts to them"))
        }
        return true
    }

    // MARK: - Conversions finishing, content changing, time passing

    /// Answers what waits for a conversion or a fetch that has ended (the conversions' results are handed
    /// to their content first: `Conversions.takeFinished`). The answers are sent at once: a fetch ends while
    /// another display's events are handled, and the requestor need not wait for the rest of the loop's turn.
    func retryParked() {
        let requests = parkedRequests
        parkedRequests = []
        for parked in requests where !tryAnswer(parked) { parkedRequests.append(parked) }
        if parkedRequests.count < requests.count { x.flush() }
        let reads = parkedReads
        parkedReads = []
        for parked in reads where !tryRead(parked) { parkedReads.append(parked) }
    }

    /// The daemon stopped serving `served` (new content, a clear, another owner): what waits for it is
    /// refused and its conversions not started are dropped.
    func contentEnded(_ served: ServedContent) {
        conversions.cancel(for: served)
        if readAhead === served { readAhead = nil }
        let requests = parkedRequests.filter { $0.served === served }
        parkedRequests.removeAll { $0.served === served }
        for parked in requests { executor.refuse(parked.request) }
        let reads = parkedReads.filter { $0.served === served }
        parkedReads.removeAll { $0.served === served }
        for parked in reads { parked.completion(.notHeld) }
    }

    /// Refuses what waited longer than the conversion timeout; drops text read ahead that no request took.
    func expire(now: MonotonicInstant) {
        if let served = readAhead {
            served.dropStaleAhead(now: now)
            if served.aheadDeadline == nil { readAhead = nil }
        }
        let requests = parkedRequests
        parkedRequests = []
        for parked in requests {
            if parked.deadline <= now { _ = tryAnswer(parked, timedOut: true) } else { parkedRequests.append(parked) }
        }
        let reads = parkedReads
        parkedReads = []
        for parked in reads {
            if parked.deadline <= now { _ = tryRead(parked, timedOut: true) } else { parkedReads.append(parked) }
        }
    }

    /// Logs the conversions that failed (their reason, never content), rate-limited.
    private func logFailures(of served: ServedContent, on selection: Atom) {
        let name = boards[selection]?.name.rawValue ?? "a pasteboard"
        for (type, reason) in served.takeFailures() {
            log.limited(.warning, key: "conversion", "could not derive \(type) for \(name): \(reason)")
        }
    }
}

/// One read of content the daemon serves, for `pb watch --reads`: the pasteboard, the type as asked, who read,
/// and why it was refused (nil: served).
struct ReadNotice: Equatable {
    enum Via: String { case x, socket }
    var name: PasteboardName
    var type: String
    var reader: ContentSource?
    var refusal: String?
    var via: Via
}

/// The conversion worker as the daemon uses it: jobs for served content, results handed back to it.
final class Conversions {
    typealias Output = Result<Representation, ConversionError>
    private let worker: BackgroundWorker<Output>
    private var jobs: [BackgroundWorker<Output>.JobID: (served: ServedContent, job: ConversionJob)] = [:]
    private var groups: [ObjectIdentifier: UInt64] = [:]
    private var nextGroup: UInt64 = 1

    /// Two conversions at once: a large document converting does not hold a small conversion behind it
    /// (the text of an RTF copy while its HTML is made), and a 2-core machine keeps a core for the loop's
    /// peers. Conversions are pure functions of bytes: they share nothing.
    init() throws {
        worker = try BackgroundWorker(threads: 2)
    }

    /// glibc's iconv decodes the double-byte code pages RichText has no tables for.
    static let systemCodePages = CodePageFunction { IconvCodePages().decode($0, codePage: $1) }
    /// The image libraries (libspng, TurboJPEG, giflib, libtiff, libwebp): a handle per call, so both
    /// threads use them at once.
    static let imageCodec = SystemImageCodec()
    /// The pixel cap for pictures decoded from now on (`maxImagePixels`).
    var imageLimits = ImageLimits()

    /// Readable when conversions have finished.
    var readyDescriptor: FileDescriptor { worker.readyDescriptor }
    /// Jobs queued or running.
    var pendingCount: Int { worker.pendingCount }

    func start(_ job: ConversionJob, for served: ServedContent) {
        let key = ObjectIdentifier(served)
        let group = groups[key] ?? { defer { nextGroup += 1 }; groups[key] = nextGroup; return nextGroup }()
        let limits = imageLimits
        let id = worker.submit(group: group) {
            job.run(codePages: Conversions.systemCodePages, images: Conversions.imageCodec, imageLimits: limits)
        }
        jobs[id] = (served, job)
    }

    /// Drops `served`'s jobs that have not started; results of one running are discarded when they come.
    func cancel(for served: ServedContent) {
        guard let group = groups.removeValue(forKey: ObjectIdentifier(served)) else { return }
        for id in worker.cancel(group: group) { jobs[id] = nil }
        for (id, entry) in jobs where entry.served === served { jobs[id] = nil }
    }

    /// Hands finished results to their content; true when any arrived.
    func takeFinished() -> Bool {
        let finished = worker.takeFinished()
        for (id, output) in finished {
            guard let (served, job) = jobs.removeValue(forKey: id) else { continue }
            served.finish(job, output)
        }
        return !finished.isEmpty
    }
}
