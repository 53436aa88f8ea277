// SPDX-License-Identifier: Apache-2.0
import Synchronization

/// Which types exist, which carry the same content, and how to turn one into another — as data.
///
/// The one answer to "given these offered types, to produce type T, read which one and convert how"
/// (`plan(producing:from:)`), used wherever a type is asked for: the daemon serving X requestors and
/// `pb paste` from its socket, `pb paste` and the library reading another owner through X, history. Also
/// which targets a holder of some types lists in TARGETS (`advertisedTypes(for:)`), and which reply types
/// answer a request (`accepts(reply:forRequested:)`). A new family of content is new rows and converter
/// functions (see `ConversionTable.standard`), not new serving code.
public struct ConversionTable: Sendable {
    public let rows: [TypeRow]
    /// The converters, in the order given.
    public var converters: [Converter] { graph.converters }
    private let graphSource: GraphSource

    /// Where the converters and their index come from: given to `init`, or the standard table's, built
    /// the first time a plan needs them (`pb paste` asks the table only about rows, and pays for none).
    private enum GraphSource: Sendable {
        case given(ConverterGraph)
        case standard
    }

    /// The converters and, by the format each reads, the ones that read it.
    private final class ConverterGraph: Sendable {
        let converters: [Converter]
        let from: [RepresentationFormat: [Converter]]
        /// The cheapest paths searched so far (`cheapestPath`), which depend on nothing but the two formats and the
        /// graph: at most two per pair of formats. Each served copy asks for a plan for every row (what it lists,
        /// what it makes on request), the same few dozen searches each time: a quarter of the daemon's loop for
        /// keeping a line of text, before they were kept (docs/performance.md).
        let paths = Mutex<[PathKey: FoundPath]>([:])

        init(_ converters: [Converter]) {
            self.converters = converters
            var from: [RepresentationFormat: [Converter]] = [:]
            for converter in converters { from[converter.from, default: []].append(converter) }
            self.from = from
        }

        /// The standard table's, built once on first use (a `static let` is initialised once, thread-safely).
        static let standard = ConverterGraph(ConversionTable.standardConverters)
    }

    private var graph: ConverterGraph {
        switch graphSource {
        case .given(let graph): graph
        case .standard: ConverterGraph.standard
        }
    }

    /// The types served for lists of offered types asked about so far (`servedTypes`): the same few lists come
    /// with every copy (wl-copy's five names for text, a browser's HTML and text), each a plan per row to answer.
    private let served = ServedTypesMemo()

    private final class ServedTypesMemo: Sendable {
        struct Key: Hashable, Sendable {
            var offered: [PasteboardType]
            var sources: [PasteboardType]
        }
        let answers = Mutex<[Key: ServedTypes]>([:])
        /// Lists kept at most; past it every one is forgotten (a peer sending ever new lists gets no more memory).
        static let capacity = 128
        /// A list longer than this is answered, not kept (hostile lists run to thousands of names).
        static let longestKept = 64
    }

    /// - Precondition: a type appears in one row only.
    public init(rows: [TypeRow], converters: [Converter]) {
        for (position, row) in rows.enumerated() {
            precondition(!rows[..<position].contains { $0.type == row.type }, "\(row.type) has two rows")
        }
        self.rows = rows
        graphSource = .given(ConverterGraph(converters))
    }

    /// The standard table: its rows as given (checked by the tests, not at every start), its converters
    /// built when a plan first needs them.
    init(standardRows rows: [TypeRow]) {
        self.rows = rows
        graphSource = .standard
    }

    // MARK: - Rows

    /// The position of `type`'s row. The rows are a few dozen short names: a scan costs less than hashing
    /// every name into an index at each start of `pb`, and builds nothing.
    private func position(of type: PasteboardType) -> Int? {
        let length = type.rawValue.utf8.count
        return rows.firstIndex { $0.type.rawValue.utf8.count == length && $0.type == type }
    }

    public func row(of type: PasteboardType) -> TypeRow? { position(of: type).map { rows[$0] } }
    public func format(of type: PasteboardType) -> RepresentationFormat? { row(of: type)?.format }
    public func family(of type: PasteboardType) -> TypeFamily? { row(of: type)?.family }

    /// The types of `family`, in order of preference.
    public func members(of family: TypeFamily) -> [PasteboardType] {
        rows.filter { $0.family == family }.map(\.type)
    }

    /// The types that carry the same bytes as `type` (itself first): a reader missing `type` may take any.
    public func aliases(of type: PasteboardType) -> [PasteboardType] {
        guard let format = format(of: type) else { return [type] }
        return [type] + rows.filter { $0.format == format && $0.type != type }.map(\.type)
    }

    /// Whether an owner's reply of type `reply` answers a request for `requested`: the same type, an alias,
    /// or any type of the family for a target whose owner chooses the encoding (`TEXT`). Anything else is
    /// an owner passing one format off as another (xclip answers every target with its one type's bytes).
    public func accepts(reply: PasteboardType, forRequested requested: PasteboardType) -> Bool {
        if reply == requested { return true }
        guard let asked = row(of: requested), let got = row(of: reply) else { return false }
        return asked.format == got.format || (asked.replyMayBeAnyOfFamily && asked.family == got.family)
    }

    // MARK: - Plans

    /// How to produce `wanted` from one of `offered`: the offered type to read and the converters to run,
    /// or nil when nothing offered converts to it. An offered `wanted` is read as it is; otherwise the plan
    /// that keeps the most wins (exact steps before faithful, invented and lossy ones), then the source
    /// earlier in the table's rows (richest first), then the shorter plan.
    ///
    /// A target whose owner chooses the encoding (`TEXT`) is always produced by a converter, even from
    /// itself: the reply is typed as the encoding chosen, never as `TEXT`.
    public func plan(producing wanted: PasteboardType, from offered: [PasteboardType]) -> ConversionPlan? {
        let wantedRow = row(of: wanted)
        let ownerChooses = wantedRow?.replyMayBeAnyOfFamily == true
        if offered.contains(wanted) && !ownerChooses { return ConversionPlan(source: wanted, target: wanted, steps: []) }
        guard let target = wantedRow?.format else { return nil }
        var best: (cost: Int, rank: Int, plan: ConversionPlan)?
        for source in offered {
            guard let rank = position(of: source),
                  let path = cheapestPath(from: rows[rank].format, to: target, atLeastOneStep: ownerChooses) else { continue }
            let cost = path.reduce(0) { $0 + $1.fidelity.cost }
            let candidate = ConversionPlan(source: source, target: wanted, steps: path,
                                           companions: path.compactMap(\.companion).filter(offered.contains))
            if let current = best {
                let better = cost != current.cost ? cost < current.cost
                    : rank != current.rank ? rank < current.rank
                    : path.count < current.plan.steps.count
                if !better { continue }
            }
            best = (cost, rank, candidate)
        }
        return best?.plan
    }

    /// The targets a holder of `offered` lists in TARGETS, in order: each offered type, and right after
    /// the first of a family, the other types of that family it can produce (for a family listed in table
    /// order, all of them in that order, where its first type is); then the types of other families it can
    /// produce, in row order. A type whose best plan invents structure is listed only when
    /// its converter says so (`Converter.advertised`). Other types are made only from `sources` (nil: every
    /// offered type): a picture whose bytes do not read is listed, but nothing is listed as made from it.
    public func advertisedTypes(for offered: [PasteboardType], derivingFrom sources: [PasteboardType]? = nil) -> [PasteboardType] {
        var listed: [PasteboardType] = []
        var seen: Set<PasteboardType> = []
        let sources = sources ?? offered
        func add(_ type: PasteboardType) { if seen.insert(type).inserted { listed.append(type) } }
        func derivable(_ type: PasteboardType) -> Bool {
            plan(producing: type, from: sources)?.isAdvertised == true
        }
        var familiesDone: Set<TypeFamily> = []
        for type in offered {
            guard let family = family(of: type) else { add(type); continue }
            if family.listedInTableOrder {
                guard familiesDone.insert(family).inserted else { continue }
                for member in members(of: family) where offered.contains(member) || derivable(member) { add(member) }
                continue
            }
            add(type)
            guard familiesDone.insert(family).inserted else { continue }
            for member in members(of: family) where !seen.contains(member) && derivable(member) { add(member) }
        }
        for row in rows where !seen.contains(row.type) && derivable(row.type) { add(row.type) }
        return listed
    }

    /// What a holder of `offered` serves, deriving other types from `sources` only: the types it lists in TARGETS
    /// (`advertisedTypes(for:derivingFrom:)`), then the types of the table's rows it makes only when asked for by
    /// name (a plan produces them, but they are not listed), in row order. The same answer each time for the
    /// same lists: kept.
    public func servedTypes(for offered: [PasteboardType], derivingFrom sources: [PasteboardType]) -> ServedTypes {
        let key = ServedTypesMemo.Key(offered: offered, sources: sources)
        let keeps = offered.count <= ServedTypesMemo.longestKept && sources.count <= ServedTypesMemo.longestKept
        if keeps, let known = served.answers.withLock({ $0[key] }) { return known }
        let listed = advertisedTypes(for: offered, derivingFrom: sources)
        let listedSet = Set(listed)
        let onRequest = rows.map(\.type).filter { !listedSet.contains($0) && plan(producing: $0, from: sources) != nil }
        let answer = ServedTypes(listed: listed, onRequest: onRequest)
        if keeps {
            served.answers.withLock { answers in
                if answers.count >= ServedTypesMemo.capacity { answers.removeAll() }
                answers[key] = answer
            }
        }
        return answer
    }

    private struct PathKey: Hashable, Sendable {
        var from: RepresentationFormat
        var to: RepresentationFormat
        var atLeastOneStep: Bool
    }

    /// A search's answer, kept: nil when nothing converts one format to the other.
    private struct FoundPath: Sendable {
        var path: [Converter]?
    }

    /// The fewest-cost chain of converters from `source` to `target` (empty when they are the same format),
    /// where an `invented` step may only come last and never after a `lossy` one: `searchPath`'s answer, searched
    /// once per graph.
    private func cheapestPath(from source: RepresentationFormat, to target: RepresentationFormat,
                              atLeastOneStep: Bool = false) -> [Converter]? {
        if source == target && !atLeastOneStep { return [] }
        let key = PathKey(from: source, to: target, atLeastOneStep: atLeastOneStep)
        let graph = self.graph
        if let found = graph.paths.withLock({ $0[key] }) { return found.path }
        let path = searchPath(from: source, to: target, atLeastOneStep: atLeastOneStep, in: graph)
        graph.paths.withLock { $0[key] = FoundPath(path: path) }
        return path
    }

    /// `cheapestPath`, searched. Formats are few: a plain search is enough.
    private func searchPath(from source: RepresentationFormat, to target: RepresentationFormat,
                            atLeastOneStep: Bool, in graph: ConverterGraph) -> [Converter]? {
        // Dijkstra over (format, whether an invented step was taken); paths are short and the graph small.
        var best: [RepresentationFormat: (cost: Int, path: [Converter])] = [source: (0, [])]
        var frontier: [(RepresentationFormat, Int, [Converter])] = [(source, 0, [])]
        var result: (cost: Int, path: [Converter])?
        let convertersFrom = graph.from
        while !frontier.isEmpty {
            frontier.sort { $0.1 < $1.1 }
            let (format, cost, path) = frontier.removeFirst()
            if let result, cost >= result.cost { break }
            for step in convertersFrom[format] ?? [] {
                // Nor is structure invented on what a lossy step left (a file list's paths as text do
                // not become paragraphs of RTF or HTML).
                if step.fidelity == .invented && path.contains(where: { $0.fidelity == .lossy }) { continue }
                let next = cost + step.fidelity.cost
                let nextPath = path + [step]
                if step.to == target {
                    if result == nil || next < result!.cost || (next == result!.cost && nextPath.count < result!.path.count) {
                        result = (next, nextPath)
                    }
                    continue
                }
                // Nothing converts what an invented step produced: its structure is a guess.
                guard step.fidelity != .invented else { continue }
                if let known = best[step.to], known.cost <= next { continue }
                best[step.to] = (next, nextPath)
                frontier.append((step.to, next, nextPath))
            }
        }
        return result?.path
    }
}

/// The types a holder serves (`ConversionTable.servedTypes`): those listed in TARGETS, in order, and those made
/// only when a reader asks for them by name.
public struct ServedTypes: Sendable, Equatable {
    public let listed: [PasteboardType]
    public let onRequest: [PasteboardType]
}

/// A chosen way to produce one type: read `source`, run `steps` in order.
public struct ConversionPlan: Sendable {
    /// The offered type to read.
    public let source: PasteboardType
    /// The type asked for.
    public let target: PasteboardType
    public let steps: [Converter]
    /// The offered types its steps read beside the source (`Converter.companion`): the caller hands their
    /// bytes to `run` in `ConversionServices.companions`.
    public let companions: [PasteboardType]

    public init(source: PasteboardType, target: PasteboardType, steps: [Converter], companions: [PasteboardType] = []) {
        self.source = source
        self.target = target
        self.steps = steps
        self.companions = companions
    }

    /// True when the source is read as it is (the same bytes, under its own name or an alias).
    public var isIdentity: Bool { steps.isEmpty }
    /// The least faithful step (exact for the identity).
    public var fidelity: Fidelity { steps.map(\.fidelity).max() ?? .exact }
    public var isLossy: Bool { fidelity == .lossy }
    /// Whether a holder of the source lists the target in TARGETS.
    public var isAdvertised: Bool { steps.allSatisfy(\.advertised) }
    /// Whether any step needs the thread that owns the X connection.
    public var needsCallerThread: Bool { steps.contains(where: \.needsCallerThread) }

    /// Runs the plan on `input` (the source's bytes) and returns the target's representation (typed as
    /// served: `TEXT` comes back as `STRING` or `UTF8_STRING`).
    public func run(_ input: [UInt8], services: ConversionServices) throws(ConversionError) -> Representation {
        var output = ConverterOutput(input)
        for step in steps {
            do {
                output = try step.function(output.data, services)
            } catch {
                throw ConversionError(from: step.from, to: step.to, reason: error.reason)
            }
        }
        return Representation(type: output.servedAs ?? target, data: output.data)
    }

    /// Runs the steps from `index` on: the daemon runs a plan's worker-thread prefix away from the loop and
    /// the rest (COMPOUND_TEXT) on it.
    public func run(_ input: [UInt8], from index: Int, services: ConversionServices) throws(ConversionError) -> Representation {
        try ConversionPlan(source: source, target: target, steps: Array(steps[index...]), companions: companions).run(input, services: services)
    }
}

extension PasteboardContent {
    /// The content's plain text as UTF-8 — from a plain-text representation, converted if it is not UTF-8
    /// (`STRING`) — for previews and logs of size; nil when it has none that converts without an X
    /// connection (rich text is not rendered here).
    public func plainText(using table: ConversionTable = .standard) -> [UInt8]? {
        let text = types.filter { table.family(of: $0) == .plainText }
        guard let plan = table.plan(producing: .utf8String, from: text), !plan.needsCallerThread,
              let data = data(for: plan.source) else { return nil }
        return try? plan.run(data, services: ConversionServices()).data
    }
}

// MARK: - Reading a type, the one way

/// Why a reader got no representation of the type it wanted.
public enum TypedReadError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Nothing offered is, or converts to, the type.
    case notOffered(PasteboardType)
    /// The owner answered a request for `asked` with a value of type `got` — one format passed off as
    /// another (xclip answers every target with its one type's bytes).
    case wrongReplyType(asked: PasteboardType, got: PasteboardType)
    case conversionFailed(ConversionError)

    public var description: String {
        switch self {
        case .notOffered(let type): "\(type) is not offered, and nothing offered converts to it"
        case .wrongReplyType(let asked, let got): "the owner answered \(asked) with \(got) data"
        case .conversionFailed(let error): "\(error)"
        }
    }
}

extension ConversionTable {
    /// How every reader gets a type from what an owner offers — `pb paste`, the library, history — and the
    /// same plan the daemon serves by: choose which offered type to read (`plan`), read it with `fetch`
    /// (which returns what the owner sent, its type included, or nil when the owner refused), check the
    /// reply's type (`accepts`), convert, and with `asUTF8Text` turn plain text of any encoding into UTF-8.
    ///
    /// Returns nil when the owner refused the type the plan chose. `fetch` errors pass through.
    public func read<Failure: Error>(
        _ wanted: PasteboardType, offered: [PasteboardType], services: ConversionServices, asUTF8Text: Bool,
        fetch: (PasteboardType) -> Result<Representation?, Failure>
    ) throws(ReadError<Failure>) -> Representation? {
        guard let plan = plan(producing: wanted, from: offered) else { throw .read(.notOffered(wanted)) }
        let reply: Representation
        switch fetch(plan.source) {
        case .failure(let error): throw .source(error)
        case .success(nil): return nil
        case .success(let representation?): reply = representation
        }
        guard accepts(reply: reply.type, forRequested: plan.source) else {
            throw .read(.wrongReplyType(asked: plan.source, got: reply.type))
        }
        // The reply may be an alias, or TEXT's chosen encoding: plan again from what came.
        guard let fromReply = self.plan(producing: wanted, from: [reply.type]) else { throw .read(.notOffered(wanted)) }
        let exact = ConversionPlan(source: fromReply.source, target: wanted, steps: fromReply.steps,
                                   companions: fromReply.steps.compactMap(\.companion).filter(plan.companions.contains))
        // The companions the steps read: each as the owner gives it, skipped when refused or mistyped.
        var services = services
        for companion in exact.companions {
            switch fetch(companion) {
            case .failure(let error): throw .source(error)
            case .success(let representation?) where accepts(reply: representation.type, forRequested: companion):
                services.companions[companion] = representation.data
            case .success: continue
            }
        }
        do {
            let produced = try exact.run(reply.data, services: services)
            return asUTF8Text ? try utf8Text(produced, services: services) : produced
        } catch {
            throw .read(.conversionFailed(error))
        }
    }

    /// Plain text of any encoding as UTF-8 (typed `UTF8_STRING`); anything else as it is.
    public func utf8Text(_ representation: Representation, services: ConversionServices) throws(ConversionError) -> Representation {
        guard family(of: representation.type) == .plainText, format(of: representation.type) != .utf8Text,
              let plan = plan(producing: .utf8String, from: [representation.type]) else { return representation }
        return try plan.run(representation.data, services: services)
    }

    /// Whether `type`'s bytes are shown as they are (not plain text in another encoding than UTF-8).
    public func isShownAsIs(_ type: PasteboardType) -> Bool {
        family(of: type) != .plainText || format(of: type) == .utf8Text
    }
}

/// A failure of `ConversionTable.read`: the table's, or the fetch's own.
public enum ReadError<Failure: Error>: Error {
    case read(TypedReadError)
    case source(Failure)
}
