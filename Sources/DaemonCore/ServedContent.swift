// SPDX-License-Identifier: Apache-2.0
import Images
import PasteboardCore
import RichText
import SystemSupport
import XTypes

/// Content the daemon owns a selection for, as X peers see it: the targets it lists and serves, and
/// each target's value — the source's bytes as given, or a conversion the `ConversionTable` plans.
///
/// Every type the source gave is served as its original bytes. The table decides what else is listed in
/// TARGETS (`advertisedTypes`) and what is made only when a requestor asks for it by name (HTML for plain
/// text). A derived value is converted on its first request only — on the conversion worker, never on the
/// event loop, except the COMPOUND_TEXT step Xlib does — and cached for the life of this content (one
/// changeCount); a conversion that fails is refused, never served as garbage, and logged once.
///
/// Content served on behalf of another endpoint (`RemoteTypes`) has types without bytes: a type asked for —
/// or a source a derived type needs — is fetched from the origin the first time (`Lookup.converting` while it
/// comes; `onFetched` then says to look again) and kept for the rest of this change. A reader that asks TARGETS
/// first (Qt, Chromium, Firefox) usually asks for text next: `fetchAhead` starts reading the origin's plain text
/// then, so that request finds it read or on its way; bytes read ahead that nobody asks for within
/// `fetchAheadWindow` are dropped, and a later request reads the origin again.
final class ServedContent {
    /// What is served. Its large representations may stay in a file (`Representation.source`: restored from
    /// the disk, or adopted once written there); they are sent from it, a chunk at a time.
    private(set) var content: PasteboardContent
    /// The types offered by another endpoint whose bytes are fetched on request, and how.
    let remote: RemoteTypes?
    let acquiredAt: Timestamp
    /// The targets listed in TARGETS (besides TARGETS, TIMESTAMP and MULTIPLE), in order.
    let listed: [Atom]
    /// Every target served: the listed ones and those made only when asked for by name.
    let served: [Atom]
    private let typeByAtom: [Atom: PasteboardType]
    private let table: ConversionTable
    private let intern: (String) -> Atom
    private let nameOf: (Atom) -> String?
    private var derived: [PasteboardType: Derived] = [:]
    /// The content's pictures that do not read (`PasteboardContent.unreadablePictures`): served as given,
    /// never a source of another type, so no type made from them is listed.
    let unreadablePictures: [PasteboardType: String]
    /// Conversions that failed, with their reason, for the log (never content); drained by the owner.
    private(set) var failures: [(PasteboardType, String)] = []

    private enum Derived {
        case ready(Representation, invented: Bool)
        case failed(String)
        case converting
    }

    /// Types offered elsewhere, fetched when a reader asks (`PasteboardEngine.fetch`).
    struct RemoteTypes {
        var types: [PasteboardType]
        /// Starts fetching one type; the completion runs once, on the loop's thread.
        var fetch: (PasteboardType, @escaping (FetchResult) -> Void) -> Void
        /// Whether the plain text may be read before a reader asks for it (`fetchAhead`): for another display's
        /// live owner, never for a provider that makes a type only when a reader asks for it.
        var readsAhead = false

        init(types: [PasteboardType], readsAhead: Bool = false,
             fetch: @escaping (PasteboardType, @escaping (FetchResult) -> Void) -> Void) {
            self.types = types
            self.readsAhead = readsAhead
            self.fetch = fetch
        }
    }

    private enum Fetched {
        case fetching
        /// A large value relayed as it arrives: served as it comes to a reader of that very type; converted
        /// once it is all in (`ready`). Once complete with its bytes in a file it stays this: a final source,
        /// sent from the file, read whole only to convert it.
        case arriving(ArrivingBytes)
        case ready([UInt8])
        case failed(String)
    }
    private var fetched: [PasteboardType: Fetched] = [:]
    /// Called when a fetch ended: whatever waits for this content looks again.
    var onFetched: (() -> Void)?

    /// How long plain text read ahead of a request (`fetchAhead`) waits for it: a toolkit asks for the type
    /// within milliseconds of its TARGETS; past this the bytes are let go, and a request reads the origin again.
    static let fetchAheadWindow: Duration = .milliseconds(200)
    /// The largest value read ahead that is kept for the request (a larger one is let go, and this content is
    /// read ahead no more).
    static let fetchAheadCap = 1 << 20

    /// Plain text read ahead of a request: the type, until when it waits for one, and whether a request
    /// asked for it while it was on its way (it is then that request's fetch, kept as any other).
    private struct Ahead {
        var type: PasteboardType
        var until: MonotonicInstant
        var bytes: [UInt8]?
        var claimed = false
        /// Which read ahead this is: one dropped may still end after another started.
        var number: UInt64
    }
    private var ahead: Ahead?
    private var aheadCount: UInt64 = 0
    /// Reading ahead gave more than `fetchAheadCap`, or failed: not tried again for this content.
    private var aheadSpent = false

    /// What a requestor asking for a target gets now.
    enum Lookup {
        case value(PropertyValue)
        /// Not served, or its conversion failed.
        case refused
        /// Run this job off the loop (`ConversionJob.run`), hand its result to `finish`, then look again.
        case convert(ConversionJob)
        /// A job for it is under way.
        case converting
    }

    /// - Parameter names: how its type names are numbered as atoms (a list interned in one round trip), and
    ///   read back: those of its display, or a table of its own (`XDisplay.contentNames()`).
    init(content: PasteboardContent, remote: RemoteTypes? = nil, acquiredAt: Timestamp, table: ConversionTable = .standard,
         names: ContentNames) {
        let intern = names.intern
        self.content = content
        self.remote = remote
        self.acquiredAt = acquiredAt
        self.table = table
        let unreadable = content.unreadablePictures(using: table)
        unreadablePictures = unreadable
        var types = content.types
        for type in remote?.types ?? [] where !types.contains(type) { types.append(type) }
        offeredTypes = types
        let convertible = types.filter { unreadable[$0] == nil }
        offeredSources = convertible
        offeredFamilies = Set(convertible.compactMap { table.family(of: $0) })
        let servedTypes = table.servedTypes(for: types, derivingFrom: convertible)
        let all = servedTypes.listed + servedTypes.onRequest
        let atoms = intern(all.map(\.rawValue))
        listed = Array(atoms.prefix(servedTypes.listed.count))
        served = atoms
        var map: [Atom: PasteboardType] = [:]
        map.reserveCapacity(atoms.count)
        for (atom, type) in zip(atoms, all) { map[atom] = type }
        typeByAtom = map
        self.intern = { intern([$0])[0] }
        nameOf = names.name
    }

    /// The types the source offers: the content's and the remote ones.
    let offeredTypes: [PasteboardType]
    /// Those a plan may read (not the unreadable pictures), and their families: `sources`, made once.
    private let offeredSources: [PasteboardType]
    private let offeredFamilies: Set<TypeFamily>

    /// True when some type's bytes are fetched from another endpoint.
    var isRemote: Bool { remote != nil }

    /// The type a served target stands for.
    func type(of target: Atom) -> PasteboardType? { typeByAtom[target] }

    /// The target `type` is served as, nil when it is not served: a name looked up, never interned (a client asking
    /// for names nobody offers adds none to a display's or a content's table).
    func target(of type: PasteboardType) -> Atom? {
        typeByAtom.first { $0.value == type }?.key
    }

    /// The name of `atom` as this content numbers names: one of its targets, a type interned through it, or an
    /// atom of its display (the protocol's own targets, a reply's type).
    func name(of atom: Atom) -> String? { typeByAtom[atom]?.rawValue ?? nameOf(atom) }

    /// The value for `target` now, or what to do to have it. Conversion steps that must run on the loop's
    /// thread (COMPOUND_TEXT) run here, with `services`. With `arriving`, a value still arriving from another
    /// endpoint is given as it is (a source that is not final: only an INCR transfer may send it); without,
    /// the lookup waits for all of it.
    func lookup(_ target: Atom, services: ConversionServices, arriving: Bool = false) -> Lookup {
        guard let type = typeByAtom[target] else { return .refused }
        switch derived[type] {
        case .ready(let representation, _): return .value(propertyValue(representation, target: target))
        case .failed: return .refused
        case .converting: return .converting
        case nil: break
        }
        if unreadablePictures[type] != nil, let value = sourceValue(of: type, as: target) { return .value(value) }
        guard let plan = table.plan(producing: type, from: sources) else { return .refused }
        if plan.isIdentity, let value = sourceValue(of: plan.source, as: target) { return .value(value) }
        if plan.isIdentity, case .arriving(let bytes)? = fetched[plan.source], bytes.isFinal {
            // The kept file's bytes themselves when they are in one (a Wayland reader's pipe gets them by splice).
            return .value(PropertyValue(type: target, source: bytes.kept?.source ?? bytes))
        }
        var fetchedNow = data(for: plan.source)
        if fetchedNow == nil {
            let waiting = awaitRemote(plan.source, for: type)
            if arriving, plan.isIdentity, case .arriving(let bytes)? = fetched[plan.source] {
                // Sent on by INCR as the bytes come (the reader's transfer waits for them when it is faster).
                return .value(PropertyValue(type: target, source: bytes))
            }
            fetchedNow = data(for: plan.source)   // answered at once when the origin had the bytes at hand
            if fetchedNow == nil { return waiting }
        }
        let input = fetchedNow!
        if plan.isIdentity {
            // The source gave this type (or an alias of it): its bytes exactly, under the requested name.
            return .value(PropertyValue(type: target, bytes: input))
        }
        var companions: [PasteboardType: [UInt8]] = [:]
        for companion in plan.companions { companions[companion] = data(for: companion) }
        let workerSteps = plan.steps.prefix { !$0.needsCallerThread }.count
        if workerSteps > 0 {
            derived[type] = .converting
            let outputType = workerSteps == plan.steps.count ? type : canonicalType(of: plan.steps[workerSteps - 1].to)
            return .convert(ConversionJob(target: type, outputType: outputType, plan: plan, input: input, steps: workerSteps,
                                          companions: companions))
        }
        // Only loop-thread steps (COMPOUND_TEXT from text at hand): cheap, done here.
        do {
            var services = services
            services.companions = companions
            let representation = try plan.run(input, services: services)
            derived[type] = .ready(representation, invented: plan.fidelity == .invented)
            return .value(propertyValue(representation, target: target))
        } catch {
            derived[type] = .failed("\(error)")
            failures.append((type, "\(error)"))
            return .refused
        }
    }

    /// The value of a type the content has, as `target`: sent from its file when it stays in one, else its bytes.
    private func sourceValue(of type: PasteboardType, as target: Atom) -> PropertyValue? {
        if let source = content.source(for: type) { return PropertyValue(type: target, source: source) }
        return content.data(for: type).map { PropertyValue(type: target, bytes: $0) }
    }

    /// Serves `replacement` — the same content with its large representations in a file (`Representation.source`)
    /// — in place of the bytes in memory, which are let go. False (nothing changed) unless it has the same items
    /// with the same types and sizes.
    func adopt(_ replacement: PasteboardContent) -> Bool {
        guard replacement.hasSameShape(as: content) else { return false }
        content = replacement
        return true
    }

    /// Takes a finished job's result: the target's value, or the part of its plan that runs off the loop
    /// (kept under the intermediate type, a source for the rest).
    func finish(_ job: ConversionJob, _ result: Result<Representation, ConversionError>) {
        switch result {
        case .success(let representation):
            let invented = job.plan.steps.prefix(job.steps).contains { $0.fidelity == .invented }
            if job.outputType == job.target {
                derived[job.target] = .ready(representation, invented: invented)
            } else {
                // An intermediate (UTF-8 text before COMPOUND_TEXT): a source the next lookup converts from.
                derived[job.target] = nil
                if derived[job.outputType] == nil {
                    derived[job.outputType] = .ready(Representation(type: job.outputType, data: representation.data), invented: invented)
                }
            }
        case .failure(let error):
            derived[job.target] = .failed("\(error)")
            failures.append((job.target, "\(error)"))
        }
    }

    /// A source of `wanted` that is not here: fetching it when another endpoint offers it (look again once
    /// `onFetched` says so), else refused.
    private func awaitRemote(_ source: PasteboardType, for wanted: PasteboardType) -> Lookup {
        guard let remote, remote.types.contains(source) else { return .refused }
        switch fetched[source] {
        case .fetching: return .converting
        case .arriving(let bytes) where !bytes.isFinal: return .converting
        case .arriving: break
        case .failed(let reason):
            if derived[wanted] == nil, wanted != source { derived[wanted] = .failed(reason) }
            return .refused
        case .ready, nil: break
        }
        if let read = ahead, read.type == source {
            if let bytes = read.bytes {
                // Read ahead for this request: the lookup takes it at once.
                ahead = nil
                fetched[source] = .ready(bytes)
            } else {
                // On its way: this request's fetch now.
                ahead?.claimed = true
                fetched[source] = .fetching
            }
            return .converting
        }
        fetched[source] = .fetching
        var answeredAtOnce = true
        remote.fetch(source) { [weak self] result in
            guard let self else { return }
            self.store(result, for: source)
            // An answer within the call is used by the lookup itself; a later one wakes what waits.
            if !answeredAtOnce { self.onFetched?() }
        }
        answeredAtOnce = false
        if case .failed = fetched[source] { return awaitRemote(source, for: wanted) }
        return .converting
    }

    /// Keeps what a fetch of `source` gave, for this change.
    private func store(_ result: FetchResult, for source: PasteboardType) {
        switch result {
        case .data(let bytes): fetched[source] = .ready(bytes)
        case .failed(let reason): fetched[source] = .failed(reason)
        case .arriving(let bytes):
            fetched[source] = .arriving(bytes)
            if bytes.isFinal { return }   // complete already, in its file
            // Once all in, it is kept as any fetched value (and what waits to convert it looks again).
            bytes.whenEnded { [weak self] whole in
                guard let self, case .arriving(let current)? = self.fetched[source], current === bytes else { return }
                switch whole {
                case .data(let all): self.fetched[source] = .ready(all)
                case .failed(let reason): self.fetched[source] = .failed(reason)
                case .arriving: break   // complete in its file: kept as it is, a final source
                }
                self.onFetched?()
            }
        }
    }

    /// Starts reading the origin's plain text — the type UTF8_STRING is served from — ahead of a request for it,
    /// when that is fetched from another endpoint that allows it (`RemoteTypes.readsAhead`) and not read yet (one read ahead at a time; not again once one
    /// came too large). It waits for a request until `now + fetchAheadWindow`: a request within that takes it
    /// (or waits for it, when still on its way); past that it is dropped (`dropStaleAhead`). True when it started.
    @discardableResult
    func fetchAhead(now: MonotonicInstant) -> Bool {
        guard let remote, remote.readsAhead, ahead == nil, !aheadSpent,
              let source = table.plan(producing: .utf8String, from: sources)?.source,
              table.family(of: source) == .plainText, remote.types.contains(source),
              fetched[source] == nil, data(for: source) == nil else { return false }
        aheadCount += 1
        let number = aheadCount
        ahead = Ahead(type: source, until: now + Self.fetchAheadWindow, number: number)
        remote.fetch(source) { [weak self] result in
            guard let self, let read = self.ahead, read.number == number else { return }   // dropped meanwhile
            if read.claimed {
                self.ahead = nil
                self.store(result, for: source)
                self.onFetched?()
            } else if case .data(let bytes) = result, bytes.count <= Self.fetchAheadCap {
                self.ahead?.bytes = bytes
            } else {
                // Too large to hold for a request that may not come (or failed): let go, and not tried again.
                self.ahead = nil
                self.aheadSpent = true
            }
        }
        return true
    }

    /// When what was read ahead stops waiting for a request (nil: nothing waits).
    var aheadDeadline: MonotonicInstant? {
        guard let ahead, !ahead.claimed else { return nil }
        return ahead.until
    }

    /// Drops what was read ahead (or is on its way) that no request asked for by its deadline: the next request
    /// reads the origin again.
    func dropStaleAhead(now: MonotonicInstant) {
        guard let read = ahead, !read.claimed, read.until <= now else { return }
        ahead = nil
    }

    /// The bytes of offered `type` for another endpoint: at hand, or fetched as a reader's request would fetch
    /// them (and kept the same way); `completion` runs once.
    func fetchOffered(_ type: PasteboardType, completion: @escaping (FetchResult) -> Void) {
        if case .arriving(let bytes)? = fetched[type], bytes.isFinal { return completion(.arriving(bytes)) }
        if let bytes = data(for: type) { return completion(.data(bytes)) }
        guard let remote, remote.types.contains(type) else { return completion(.failed("\(type) is not offered")) }
        if case .failed(let reason) = fetched[type] { return completion(.failed(reason)) }
        remote.fetch(type) { [weak self] result in
            result.whole { whole in
                if case .data(let bytes) = whole, let self, self.data(for: type) == nil {
                    self.fetched[type] = .ready(bytes)
                    self.onFetched?()
                }
            }
            completion(result)
        }
    }

    /// Why the conversion to `target` failed, if it did.
    func failureReason(for target: Atom) -> String? {
        guard let type = typeByAtom[target] else { return nil }
        if case .failed(let reason) = derived[type] { return reason }
        if case .failed(let reason) = fetched[type] { return reason }
        return nil
    }

    /// The failures not yet logged, taken out.
    func takeFailures() -> [(PasteboardType, String)] {
        defer { failures = [] }
        return failures
    }

    /// What a plan may read: the source's types, then what was derived already — but nothing an invented
    /// step made (its structure is a guess, not something to convert further), and nothing of a family the
    /// source gave itself (its own is at hand and keeps the most: a WebP of a JPEG copy is made from the
    /// JPEG, lossy, not from a PNG derived from it).
    private var sources: [PasteboardType] {
        var types = offeredSources
        for (type, state) in derived {
            if case .ready(let representation, let invented) = state, !invented, representation.type == type,
               !(table.family(of: type).map(offeredFamilies.contains) ?? false) {
                types.append(type)
            }
        }
        return types
    }

    private func data(for type: PasteboardType) -> [UInt8]? {
        if let data = content.data(for: type) { return data }
        switch fetched[type] {
        case .ready(let bytes)?: return bytes
        case .arriving(let bytes)? where bytes.isFinal: return try? bytes.read(0..<bytes.count)
        default: break
        }
        if case .ready(let representation, _) = derived[type] { return representation.data }
        return nil
    }

    private func canonicalType(of format: RepresentationFormat) -> PasteboardType {
        table.rows.first { $0.format == format }!.type
    }

    private func propertyValue(_ representation: Representation, target: Atom) -> PropertyValue {
        let type = typeByAtom[target] == representation.type ? target : intern(representation.type.rawValue)
        return PropertyValue(type: type, bytes: representation.data)
    }
}

/// One conversion to run off the event loop: the first `steps` steps of `plan` on `input`.
struct ConversionJob: Sendable {
    /// The type asked for.
    let target: PasteboardType
    /// The type of what the job produces: `target`, or the intermediate the loop converts further.
    let outputType: PasteboardType
    let plan: ConversionPlan
    let input: [UInt8]
    let steps: Int
    /// The bytes of the plan's companions the content has (`ConversionPlan.companions`).
    var companions: [PasteboardType: [UInt8]] = [:]

    /// Runs on any thread: no step here needs the X connection. The services are made on the thread that runs it.
    func run(codePages: any CodePageDecoder, images: any ImageCodec, imageLimits: ImageLimits) -> Result<Representation, ConversionError> {
        let prefix = ConversionPlan(source: plan.source, target: outputType, steps: Array(plan.steps.prefix(steps)),
                                    companions: plan.companions)
        var services = ConversionServices(codePages: codePages, images: images, imageLimits: imageLimits)
        services.companions = companions
        do {
            return .success(try prefix.run(input, services: services))
        } catch {
            return .failure(error)
        }
    }
}

