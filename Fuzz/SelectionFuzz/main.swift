// SPDX-License-Identifier: Apache-2.0
// libFuzzer entry point for the Selection module: the SelectionRequest planner (TARGETS, TIMESTAMP,
// MULTIPLE, side-effect and content targets, times before the acquisition, INCR), the IncrSend and IncrReceive state
// machines, the Latin-1 / text-target conversions and the files family (URI lists and copied files). The first input byte picks the scenario; the rest
// is read by `FuzzInput` as a stream of choices. Every scenario checks the documented contracts and
// stops with `fatalError("invariant: …")` when one is broken. Built with -DFUZZING and -sanitize=fuzzer it
// is a libFuzzer binary; built plainly it replays the files named on its command line, or writes the
// seed corpus with `--write-seeds DIR`. See docs/fuzzing.md.
import Foundation
import FuzzSupport
import PasteboardCore
import Selection
import XTypes

// MARK: - Reading choices from the input

/// Bytes that are not all alike, so that a wrong range or a lost chunk shows.
func pattern(_ count: Int, seed: UInt32) -> [UInt8] {
    (0..<count).map { UInt8(truncatingIfNeeded: (UInt32(truncatingIfNeeded: $0) &* 2_654_435_761 &+ seed) >> 13) }
}

// MARK: - The atoms the requests are drawn from

/// Standard atoms numbered 1…N in `StandardAtoms.names` order, as the X door would intern them.
let atoms = StandardAtoms(atoms: (1...StandardAtoms.names.count).map { Atom(UInt32($0)) })
let textAtoms: [Atom] = [atoms.utf8String, atoms.textPlainUTF8, atoms.textPlain, atoms.string, atoms.text, atoms.compoundText]
let protocolTargets: [Atom] = [atoms.targets, atoms.timestamp, atoms.multiple]
let sideEffects: [Atom] = [atoms.delete, atoms.insertSelection, atoms.insertProperty, atoms.saveTargets]
/// Content targets that are not standard atoms (image/png, text/html … as a real owner would have).
let contentAtoms: [Atom] = (101...108).map { Atom(UInt32($0)) }

extension FuzzInput {
    /// A target or property: a protocol atom, a text atom, a side-effect atom, None, a content atom, or anything.
    mutating func atom() -> Atom {
        let choice = u8()
        let pick = Int(choice >> 3)
        switch choice % 8 {
        case 0: return protocolTargets[pick % protocolTargets.count]
        case 1: return textAtoms[pick % textAtoms.count]
        case 2: return sideEffects[pick % sideEffects.count]
        case 3: return .none
        case 4, 5: return contentAtoms[pick % contentAtoms.count]
        case 6: return Atom(UInt32(1 + pick % StandardAtoms.names.count))
        default: return Atom(u32())
        }
    }

    /// A request time relative to `acquiredAt`: CurrentTime, at or after it, before it, or anything.
    mutating func time(acquiredAt: Timestamp) -> Timestamp {
        switch u8() % 4 {
        case 0: return .currentTime
        case 1: return Timestamp(acquiredAt.rawValue &+ UInt32(u16()))
        case 2: return Timestamp(acquiredAt.rawValue &- 1 &- UInt32(u16()))
        default: return Timestamp(u32())
        }
    }
}

// MARK: - Scenario 1: answering a SelectionRequest

/// What one (target, property) should get, by the responder's contract.
enum Expected: Equatable {
    case refused
    case direct(PropertyValue)
    case incr(type: Atom, data: [UInt8])
}

func fuzzPlan(_ input: inout FuzzInput) {
    let threshold = 1 + Int(input.u16() % 4096)
    let chunkSize = input.bool() ? 1 + Int(input.u16() % 4096) : threshold
    let pairsByte = input.u8()
    let maximumPairs = pairsByte < 200 ? Int(pairsByte % 16) : 4096
    let responder = SelectionResponder(atoms: atoms, incrThreshold: threshold, chunkSize: chunkSize,
                                       maximumMultiplePairs: maximumPairs)
    let acquiredAt = Timestamp(input.u32())
    let request = SelectionRequest(requestor: WindowID(input.u32()), selection: input.bool() ? atoms.clipboard : atoms.primary,
                                   target: input.atom(), property: input.atom(), time: input.time(acquiredAt: acquiredAt))
    // The X door offers interned atoms, never None.
    var offered: [Atom] = []
    for _ in 0..<(input.u8() % 12) {
        let atom = input.atom()
        if !atom.isNone { offered.append(atom) }
    }
    var multiplePairs: [Atom]? = nil
    switch input.u8() % 8 {
    case 0: multiplePairs = nil
    case 1: multiplePairs = []
    case 2:
        // Long lists, built from a short repeated pattern (reaching past the 4096-pair default cap).
        let length = Int(input.u16() % 10_000)
        let motif = (0..<(1 + Int(input.u8() % 6))).map { _ in input.atom() }
        multiplePairs = (0..<length).map { motif[$0 % motif.count] }
    default:
        let length = Int(input.u8() % 40)
        multiplePairs = (0..<length).map { _ in input.atom() }
    }

    // The content, decided the first time each target is converted.
    var conversions: [Atom: Int] = [:]
    var converted: [Atom: PropertyValue?] = [:]
    let plan = responder.plan(for: request, acquiredAt: acquiredAt, offered: offered, multiplePairs: multiplePairs) { target in
        conversions[target, default: 0] += 1
        let value: PropertyValue?
        switch input.u8() % 7 {
        case 0: value = nil
        case 1: value = PropertyValue(type: target, bytes: pattern(Int(input.u16() % 12_000), seed: target.rawValue))
        case 2: value = PropertyValue(type: target, items: .shorts((0..<Int(input.u16() % 3_000)).map { UInt16(truncatingIfNeeded: $0) }))
        case 3: value = PropertyValue(type: atoms.atom, longs: (0..<Int(input.u16() % 1_500)).map { UInt32($0) })
        case 4: value = PropertyValue(type: atoms.string, bytes: Latin1.encode(utf8: input.take(Int(input.u8()))))
        case 5: value = PropertyValue(type: target, bytes: [])
        default: value = PropertyValue(type: target, bytes: input.take(Int(input.u8())))
        }
        converted[target] = .some(value)
        return value
    }

    #if !FUZZING
    if ProcessInfo.processInfo.environment["SELECTION_FUZZ_VERBOSE"] != nil {
        print("target \(request.target.rawValue) pairs \(multiplePairs?.count ?? -1): notify \(plan.notifyProperty.rawValue), "
              + "\(plan.writes.count) writes, \(plan.transfers.count) INCR, refusals \(plan.refusals)")
    }
    #endif
    // convert is for content targets only, and at most once per target and request.
    for (target, count) in conversions {
        invariant(count == 1, "convert called \(count) times for \(target) in one request")
        invariant(offered.contains(target), "convert called for \(target), which is not offered")
        invariant(!protocolTargets.contains(target) && !sideEffects.contains(target),
                  "convert called for the protocol or side-effect target \(target)")
    }
    // A refused request names no property and writes nothing.
    if plan.notifyProperty.isNone {
        invariant(plan.writes.isEmpty && plan.transfers.isEmpty, "a refused request still writes \(plan.writes.count) properties")
        invariant(!plan.refusals.isEmpty, "a refused request gives no reason")
    }

    /// The answer `target` must get on `property`, from what convert returned.
    func expected(_ target: Atom) -> Expected {
        let value: PropertyValue
        if target == atoms.targets {
            value = PropertyValue(type: atoms.atom, longs: responder.targetsList(offered: offered).map(\.rawValue))
        } else if target == atoms.timestamp {
            value = PropertyValue(type: atoms.integer, longs: [acquiredAt.rawValue])
        } else if sideEffects.contains(target) || !offered.contains(target) || target == atoms.multiple {
            return .refused
        } else {
            invariant(conversions[target] == 1, "offered target \(target) was answered without being converted once")
            guard let some = converted[target], let some else { return .refused }
            value = some
        }
        if value.byteCount <= threshold { return .direct(value) }
        guard case .bytes(let bytes) = value.items else { return .refused }
        return .incr(type: value.type, data: bytes)
    }

    var writes = plan.writes[...]
    var transfers = plan.transfers[...]
    /// Checks that the next write (and transfer) answers `target` on `property` as expected.
    func consumeAnswer(_ target: Atom, _ property: Atom, _ answer: Expected) {
        guard let write = writes.popFirst() else { fatalError("invariant: no write answers \(target) on \(property)") }
        invariant(write.property == property, "\(target) answered on \(write.property), asked on \(property)")
        switch answer {
        case .refused:
            fatalError("invariant: a refused target was written")
        case .direct(let value):
            invariant(write.value == value, "\(target) written as \(write.value.type) format \(write.value.format) "
                      + "\(write.value.byteCount) bytes, converted as \(value.type) format \(value.format) \(value.byteCount) bytes")
        case .incr(let type, let data):
            invariant(write.value == PropertyValue(type: atoms.incr, longs: [UInt32(clamping: data.count)]),
                      "INCR header for \(data.count) bytes is \(write.value)")
            guard let transfer = transfers.popFirst() else { fatalError("invariant: INCR header without a transfer") }
            invariant(transfer.key == TransferKey(requestor: request.requestor, property: property),
                      "transfer key \(transfer.key) for \(property)")
            invariant(transfer.type == type && transfer.data == data && transfer.chunkSize == chunkSize,
                      "transfer type, data or chunk size differ from the conversion")
            var send = transfer
            checkIncrSend(&send, deletes: Int.max)
        }
    }

    if request.target == atoms.multiple {
        guard !request.property.isNone, let pairs = multiplePairs, !pairs.isEmpty, pairs.count % 2 == 0 else {
            invariant(plan.isRefused && plan.refusals == [.malformedMultiple] && conversions.isEmpty,
                      "a MULTIPLE without property or with a bad pair list was not refused as malformed")
            return
        }
        if pairs.count / 2 > maximumPairs {
            invariant(plan.isRefused && plan.refusals == [.tooManyPairs(pairs.count / 2)] && conversions.isEmpty,
                      "MULTIPLE with \(pairs.count / 2) pairs over the cap of \(maximumPairs) was not refused as a whole")
            return
        }
        invariant(plan.notifyProperty == request.property, "MULTIPLE answered on \(plan.notifyProperty), asked on \(request.property)")
        // Every pair, in order: answered by the next write, or refused (its property becomes None).
        var result: [Atom] = []
        var refused = 0
        for index in stride(from: 0, to: pairs.count, by: 2) {
            let (target, property) = (pairs[index], pairs[index + 1])
            let answer: Expected = (target == atoms.multiple || property.isNone) ? .refused : expected(target)
            if answer == .refused {
                refused += 1
                result += [target, .none]
            } else {
                consumeAnswer(target, property, answer)
                result += [target, property]
            }
        }
        invariant(plan.refusals.count == refused, "\(refused) pairs refused, \(plan.refusals.count) reasons given")
        if refused > 0 {
            guard let last = writes.popFirst() else { fatalError("invariant: refused pairs but no ATOM_PAIR list written back") }
            invariant(last == PropertyWrite(property: request.property,
                                            value: PropertyValue(type: atoms.atomPair, longs: result.map(\.rawValue))),
                      "the ATOM_PAIR list written back does not mark exactly the refused pairs")
        }
    } else {
        let property = request.property.isNone ? request.target : request.property
        let answer = expected(request.target)
        if answer == .refused {
            invariant(plan.isRefused && plan.refusals.count == 1, "a refused target got \(plan.notifyProperty)")
        } else {
            invariant(plan.notifyProperty == property, "answered on \(plan.notifyProperty), expected \(property)")
            consumeAnswer(request.target, property, answer)
        }
    }
    invariant(writes.isEmpty && transfers.isEmpty, "\(writes.count) writes and \(transfers.count) transfers answer nothing")

    // TARGETS lists the protocol targets first, then each offered atom once, in order.
    let list = responder.targetsList(offered: offered)
    invariant(Array(list.prefix(3)) == protocolTargets, "TARGETS does not start with TARGETS, TIMESTAMP, MULTIPLE")
    invariant(Set(list).count == list.count && !list.contains(.none), "TARGETS has duplicates or None")
    invariant(Set(list) == Set(protocolTargets + offered), "TARGETS does not list every offered target")
    let firstSeen = offered.enumerated().filter { offered.firstIndex(of: $0.element) == $0.offset && !protocolTargets.contains($0.element) }
    invariant(Array(list.dropFirst(3)) == firstSeen.map(\.element), "TARGETS changes the order of the offered targets")
}

// MARK: - Scenario 2: sending by INCR

/// Runs `deletes` property deletions (or until the end) and checks what the owner writes.
func checkIncrSend(_ send: inout IncrSend, deletes: Int) {
    var received: [UInt8] = []
    var ended = false
    var chunks = 0
    var remainingDeletes = deletes
    while remainingDeletes > 0 {
        remainingDeletes -= 1
        let step = send.propertyDeleted()
        switch step {
        case .writeChunk(let range):
            invariant(!ended, "a chunk after the zero-length end")
            invariant(range.lowerBound == received.count, "chunk \(range) does not continue at \(received.count)")
            invariant(!range.isEmpty && range.count <= send.chunkSize && range.upperBound <= send.data.count,
                      "chunk \(range) is empty, over \(send.chunkSize) bytes or past \(send.data.count)")
            received += send.data[range]
            chunks += 1
        case .writeEnd:
            invariant(!ended, "two zero-length ends")
            invariant(received == send.data, "the end comes after \(received.count) of \(send.data.count) bytes")
            invariant(send.isComplete, "not complete after the end")
            ended = true
        case .done:
            invariant(ended, "done before the zero-length end")
        case .waitForMore:
            invariant(false, "a payload in memory waits for more bytes")
        }
        invariant(send.chunksWritten == chunks, "chunksWritten \(send.chunksWritten), \(chunks) chunks written")
        if ended && deletes == Int.max { break }
    }
    if ended {
        let expectedChunks = send.data.isEmpty ? 0 : (send.data.count - 1) / send.chunkSize + 1
        invariant(chunks == expectedChunks, "\(chunks) chunks for \(send.data.count) bytes of \(send.chunkSize)")
        invariant(send.propertyDeleted() == .done, "a delete after the end is not ignored")
    }
}

func fuzzIncrSend(_ input: inout FuzzInput) {
    let count = Int(input.u16() % 20_000)
    let chunkSize: Int
    switch input.u8() % 4 {
    case 0: chunkSize = Int.max
    case 1: chunkSize = Int(UInt32.max)
    default: chunkSize = 1 + Int(input.u16() % 5_000)
    }
    let data = input.bool() ? pattern(count, seed: input.u32()) : input.take(count)
    let send = IncrSend(key: TransferKey(requestor: WindowID(input.u32()), property: input.atom()), type: input.atom(),
                        data: data, chunkSize: chunkSize)
    invariant(send.header(incrAtom: atoms.incr) == PropertyValue(type: atoms.incr, longs: [UInt32(data.count)]),
              "the INCR header does not carry the total size \(data.count)")
    var running = send
    checkIncrSend(&running, deletes: Int(input.u8()))
}

// MARK: - Scenario 3: receiving by INCR

func fuzzIncrReceive(_ input: inout FuzzInput) {
    let cap: Int
    switch input.u8() % 4 {
    case 0: cap = 0
    case 1: cap = Int(input.u8())
    default: cap = Int(input.u32() % (1 << 20))
    }
    // A hostile header may announce up to 4 GiB; the reservation must stay within the cap.
    let sizeHint = input.bool() ? Int(input.u32()) : Int(input.u16())
    var receive = IncrReceive(cap: cap, sizeHint: sizeHint)
    // Slack for the allocator's rounding: exact under ASan, up to a page for glibc's mmap'd blocks.
    invariant(receive.data.capacity <= max(min(sizeHint, cap), 0) + 8192,
              "size hint \(sizeHint) with cap \(cap) reserved \(receive.data.capacity) bytes")
    var model: [UInt8] = []
    var type: Atom? = nil
    let types = [contentAtoms[0], contentAtoms[1], atoms.utf8String]
    while !input.isAtEnd {
        let chunkType = types[Int(input.u8() % 3)]
        let bytes: [UInt8]
        switch input.u8() % 4 {
        case 0: bytes = []
        case 1: bytes = pattern(Int(input.u16()), seed: UInt32(model.count))
        default: bytes = input.take(Int(input.u8()))
        }
        let outcome = receive.receive(type: chunkType, bytes: bytes)
        let expected: IncrReceive.Outcome
        if bytes.isEmpty {
            expected = .complete
        } else if let type, type != chunkType {
            expected = .typeMismatch
        } else {
            type = chunkType
            if model.count + bytes.count > cap {
                expected = .overCap
            } else {
                model += bytes
                expected = .needMore
            }
        }
        invariant(outcome == expected, "received \(bytes.count) bytes: \(outcome), expected \(expected)")
        invariant(receive.data.count <= cap, "\(receive.data.count) bytes received, over the cap of \(cap)")
        invariant(receive.data == model, "reassembled data differs from the chunks accepted")
        invariant(receive.type == type, "type \(String(describing: receive.type)), first chunk's \(String(describing: type))")
    }
}

// MARK: - Scenario 4: Latin-1 and the plain-text family of the conversion table

func fuzzText(_ input: inout FuzzInput) {
    let text = input.take(Int(input.u16()))
    let scalars = String(validating: text, as: UTF8.self).map { Array($0.unicodeScalars) }
    let fitsLatin1 = scalars.map { $0.allSatisfy { $0.value <= 0xFF } } ?? false
    invariant(Latin1.canEncode(utf8: text) == fitsLatin1, "canEncode is \(!fitsLatin1) for \(text.count) bytes")
    let latin1 = Latin1.encode(utf8: text)
    if let scalars {
        invariant(latin1 == scalars.map { $0.value <= 0xFF ? UInt8($0.value) : Latin1.replacement },
                  "valid UTF-8 is not encoded one byte per character with ? for the rest")
    }
    invariant(latin1.count <= text.count, "Latin-1 is longer than its UTF-8")
    if fitsLatin1 {
        invariant(Latin1.decode(latin1) == text, "Latin-1 text does not decode back to its UTF-8")
    }
    // Every byte string is Latin-1; its UTF-8 is valid, fits Latin-1 and encodes back to the same bytes.
    let decoded = Latin1.decode(text)
    invariant(String(validating: decoded, as: UTF8.self) != nil, "decoded Latin-1 is not valid UTF-8")
    invariant(Latin1.canEncode(utf8: decoded) && Latin1.encode(utf8: decoded) == text, "Latin-1 does not round-trip")

    // The plain-text family of the conversion table: every text target made from this UTF-8, and read back.
    struct Codec: CompoundTextCodec {
        func compoundText(fromUTF8 text: [UInt8]) -> [UInt8]? { [0x1B] + text }
        func utf8(fromCompoundText bytes: [UInt8]) -> [UInt8]? { bytes.first == 0x1B ? Array(bytes.dropFirst()) : nil }
    }
    let table = ConversionTable.standard
    let services = ConversionServices(compoundText: Codec())
    for type in table.members(of: .plainText) {
        guard let plan = table.plan(producing: type, from: [.utf8String]) else { fatalError("invariant: no plan for \(type)") }
        let value: Representation
        do { value = try plan.run(text, services: services) } catch { fatalError("invariant: \(type) failed: \(error)") }
        invariant(value.type != .text, "a reply typed TEXT")
        let back = try? table.utf8Text(value, services: services).data
        switch type {
        case .utf8String, .utf8PlainText, .plainText:
            invariant(value.data == text && back == text, "\(type) does not carry the UTF-8 unchanged")
        case .string:
            invariant(value.type == .string && value.data == latin1, "STRING is not the Latin-1 encoding")
            if fitsLatin1 { invariant(back == text, "STRING does not read back") }
        case .text:
            invariant(value.type == (fitsLatin1 ? .string : .utf8String), "TEXT answered as \(value.type)")
            invariant(back == text, "TEXT does not read back")
        case .compoundText:
            invariant(back == text, "COMPOUND_TEXT does not read back")
        default:
            break
        }
    }
    invariant(table.plan(producing: PasteboardType("image/png"), from: [.utf8String]) == nil, "text converted to an image")
}

// MARK: - Scenario 5: the files family (URI lists and file managers' formats from another owner)

func fuzzFiles(_ input: inout FuzzInput) {
    let table = ConversionTable.standard
    let bytes = input.take(Int(input.u16()))
    let marker = input.take(Int(input.u8() % 4))
    let source = [PasteboardType.uriList, .gnomeCopiedFiles, .mateCopiedFiles, .kdeCutSelection][Int(input.u8() % 4)]
    // Whatever an owner sends: every file format and the text either made or refused with a reason, never more
    // than the list holds, and what is made reads back as the same list.
    var services = ConversionServices()
    services.companions[.kdeCutSelection] = marker
    let offered = source == .uriList ? [source, .kdeCutSelection] : [source]
    let parsed: FileList? = source == .uriList ? try? FileList(uriList: bytes, action: FileList.action(fromKDECutMarker: marker))
        : source == .kdeCutSelection ? nil : try? FileList(copiedFiles: bytes)
    for type in table.members(of: .files) + [.utf8String] {
        guard let plan = table.plan(producing: type, from: offered) else { continue }
        let made: Representation
        do { made = try plan.run(bytes, services: services) } catch {
            invariant(!error.reason.isEmpty, "a refused conversion with no reason")
            invariant(plan.isIdentity || parsed == nil, "\(type) refused from a list that parses")
            continue
        }
        guard !plan.isIdentity, let list = parsed else { continue }
        switch type {
        case .gnomeCopiedFiles, .mateCopiedFiles:
            invariant((try? FileList(copiedFiles: made.data)) == list, "copied files do not read back")
        case .uriList:
            invariant((try? FileList(uriList: made.data))?.uris == list.uris, "the URI list does not read back")
        case .kdeCutSelection:
            invariant(made.data == list.kdeCutMarker, "the cut marker is not the action")
        default:
            invariant(String(validating: made.data, as: UTF8.self) != nil, "the paths are not UTF-8")
            invariant(made.data.split(separator: 0x0A, omittingEmptySubsequences: false).count == list.uris.count,
                      "not one line per file")
        }
    }
    // Each URI either names a local path that encodes back to a URI naming the same path, or is refused.
    for uri in parsed?.uris ?? [] {
        guard let path = try? FileURI.path(of: uri) else { continue }
        invariant(path.hasPrefix("/") && !path.utf8.contains(0), "a path that is not absolute or has a NUL")
        invariant(!path.split(separator: "/").contains { $0 == "." || $0 == ".." }, "a path with . or ..")
        invariant((try? FileURI.path(of: FileURI.encode(path: path))) == path, "a path does not round-trip")
    }
    invariant(table.plan(producing: .uriList, from: [.utf8String, .html]) == nil, "text made into files")
}

// MARK: - Entry point

func fuzzOneInput(_ bytes: [UInt8]) {
    var input = FuzzInput(bytes)
    switch input.u8() % 5 {
    case 0: fuzzPlan(&input)
    case 1: fuzzIncrSend(&input)
    case 2: fuzzIncrReceive(&input)
    case 3: fuzzText(&input)
    default: fuzzFiles(&input)
    }
}

/// Seeds in the input layout `fuzzOneInput` reads: a scenario byte, then the choices.
func writeSeeds(to directory: String) {
    func le16(_ v: UInt16) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8)] }
    func le32(_ v: UInt32) -> [UInt8] { le16(UInt16(v & 0xFFFF)) + le16(UInt16(v >> 16)) }
    // Atom choice bytes (see FuzzInput.atom()).
    let targets: UInt8 = 0, timestamp: UInt8 = 0 | 1 << 3, multiple: UInt8 = 0 | 2 << 3
    let utf8String: UInt8 = 1, string: UInt8 = 1 | 3 << 3, text: UInt8 = 1 | 4 << 3
    let delete: UInt8 = 2, none: UInt8 = 3, html: UInt8 = 4, png: UInt8 = 4 | 1 << 3
    let property = 7 as UInt8, propertyAtom = le32(400)
    /// A plan case: threshold, chunk choice, pairs cap, acquiredAt, requestor, selection, target, property, time,
    /// offered, pair list, then the conversions.
    func plan(target: [UInt8], property: [UInt8], time: [UInt8], offered: [UInt8], pairs: [UInt8], conversions: [UInt8],
              threshold: UInt16 = 1024, maximumPairs: UInt8 = 255) -> [UInt8] {
        [0] + le16(threshold) + [0] + [maximumPairs] + le32(1_000_000) + le32(0x0040_0001) + [1]
            + target + property + time + [UInt8(offered.count)] + offered + pairs + conversions
    }
    let prop = [property] + propertyAtom
    let textOffer: [UInt8] = [utf8String, string, text, html, png]
    let hello = Array("héllo wörld".utf8)
    let convertText: [UInt8] = [4, UInt8(hello.count)] + hello
    let convertBig: [UInt8] = [1] + le16(5000)
    var seeds: [String: [UInt8]] = [
        "plan-targets": plan(target: [targets], property: prop, time: [0], offered: textOffer, pairs: [0], conversions: []),
        "plan-timestamp": plan(target: [timestamp], property: prop, time: [1] + le16(5), offered: [], pairs: [0], conversions: []),
        "plan-utf8": plan(target: [utf8String], property: prop, time: [0], offered: textOffer, pairs: [0], conversions: convertText),
        "plan-string-none-property": plan(target: [string], property: [none], time: [0], offered: textOffer, pairs: [0],
                                          conversions: convertText),
        "plan-before-acquisition": plan(target: [utf8String], property: prop, time: [2] + le16(1), offered: textOffer, pairs: [0],
                                        conversions: convertText),
        "plan-delete": plan(target: [delete], property: prop, time: [0], offered: textOffer + [delete], pairs: [0], conversions: []),
        "plan-not-offered": plan(target: [png], property: prop, time: [0], offered: [utf8String], pairs: [0], conversions: []),
        "plan-incr": plan(target: [html], property: prop, time: [0], offered: textOffer, pairs: [0], conversions: convertBig),
        "plan-shorts-too-large": plan(target: [html], property: prop, time: [0], offered: textOffer, pairs: [0],
                                      conversions: [2] + le16(2000)),
    ]
    // MULTIPLE pair lists (case 3 of the pair choice: a length byte, then atoms).
    func pairList(_ atoms: [[UInt8]]) -> [UInt8] { [3, UInt8(atoms.count)] + atoms.flatMap { $0 } }
    let p1 = [property] + le32(401), p2 = [property] + le32(402), p3 = [property] + le32(403)
    seeds["multiple-text"] = plan(target: [multiple], property: prop, time: [0], offered: textOffer,
                                  pairs: pairList([[utf8String], p1, [string], p2, [targets], p3]), conversions: convertText + convertText)
    seeds["multiple-refusals"] = plan(target: [multiple], property: prop, time: [0], offered: textOffer,
                                      pairs: pairList([[utf8String], p1, [multiple], p2, [png], [none], [delete], p3, [html], p1]),
                                      conversions: convertText + convertBig)
    seeds["multiple-odd"] = plan(target: [multiple], property: prop, time: [0], offered: textOffer,
                                 pairs: pairList([[utf8String], p1, [string]]), conversions: [])
    seeds["multiple-no-property"] = plan(target: [multiple], property: [none], time: [0], offered: textOffer,
                                         pairs: pairList([[utf8String], p1]), conversions: [])
    seeds["multiple-empty"] = plan(target: [multiple], property: prop, time: [0], offered: textOffer, pairs: [1], conversions: [])
    seeds["multiple-over-cap"] = plan(target: [multiple], property: prop, time: [0], offered: textOffer,
                                      pairs: [2] + le16(8194) + [1, utf8String, property] + le32(401), conversions: convertText)
    seeds["multiple-small-cap"] = plan(target: [multiple], property: prop, time: [0], offered: textOffer,
                                       pairs: pairList([[utf8String], p1, [string], p2, [text], p3]), conversions: convertText,
                                       maximumPairs: 2)
    // INCR send: size, chunk choice, data choice, key, type, deletes.
    seeds["incr-send"] = [1] + le16(10_000) + [2] + le16(4096) + [1] + le32(7) + le32(1) + prop + [html] + [255]
    seeds["incr-send-empty"] = [1] + le16(0) + [2] + le16(16) + [1] + le32(7) + le32(1) + prop + [html] + [3]
    seeds["incr-send-exact"] = [1] + le16(64) + [2] + le16(16) + [1] + le32(7) + le32(1) + prop + [html] + [10]
    // INCR receive: cap, size hint, chunks.
    seeds["incr-receive"] = [2, 2] + le32(100_000) + [0] + le16(20_000) + [0, 1] + le16(100) + [0, 2, 5] + Array("hello".utf8) + [0, 0]
    seeds["incr-receive-over-cap"] = [2, 1, 20, 1] + le32(UInt32.max) + [0, 2, 15] + Array("fifteen bytes!!".utf8)
        + [0, 2, 10] + Array("ten bytes!".utf8) + [0, 0]
    seeds["incr-receive-mismatch"] = [2, 2] + le32(1000) + [0] + le16(0) + [0, 2, 3, 1, 2, 3, 1, 2, 1, 7, 2, 0]
    // Text: length, UTF-8.
    // Files: length, bytes, marker length, marker, source choice (0 URI list, 1 GNOME, 2 MATE).
    for (name, sample, marker, sourceChoice) in [
        ("files-uri-list", "file:///tmp/a%20b\r\n# comment\r\nfile://localhost/tmp/c\r\nsftp://host/x\r\n", "1", 0 as UInt8),
        ("files-gnome-cut", "cut\nfile:///tmp/a%23b\nfile:///tmp/%2E%2E/x\nfile:///tmp/a%2Fb", "", 1),
        ("files-mate-copy", "copy\nfile:///home/me/na%C3%AFve.txt\n\0", "", 2),
        ("files-broken", "move\nfile:///tmp/a b\n", "0", 1),
    ] {
        let utf8 = Array(sample.utf8), mark = Array(marker.utf8)
        seeds[name] = [4] + le16(UInt16(utf8.count)) + utf8 + [UInt8(mark.count)] + mark + [sourceChoice]
    }
    for (name, sample) in [("text-ascii", "plain text\n\twith tab"), ("text-latin1", "café, naïve, ÿ"),
                           ("text-beyond", "日本語 and emoji 😀"), ("text-mixed", "€uro ß")] {
        let utf8 = Array(sample.utf8)
        seeds[name] = [3] + le16(UInt16(utf8.count)) + utf8 + le32(104)
    }
    seeds["text-invalid-utf8"] = [3] + le16(8) + [0xC3, 0x28, 0xE2, 0x82, 0xFF, 0xED, 0xA0, 0x80]
    try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    for (name, bytes) in seeds.sorted(by: { $0.key < $1.key }) {
        fuzzOneInput(bytes)
        guard FileManager.default.createFile(atPath: directory + "/" + name, contents: Data(bytes)) else { fatalError("cannot write \(name)") }
        print("wrote \(directory)/\(name)")
    }
}

FuzzMain.run(fuzzOneInput, writeSeeds: writeSeeds(to:))

extension IncrSend {
    /// The bytes sent: the responder is given bytes in memory here, never a source.
    var data: [UInt8] {
        guard case .bytes(let bytes) = payload else { fatalError("invariant: the fuzzer's values are in memory") }
        return bytes
    }
}
