// SPDX-License-Identifier: Apache-2.0
// libFuzzer entry point for the control protocol: FrameDecoder fed in arbitrary chunks, the request and
// response decoders on arbitrary bodies, and encode → decode of messages built from the input. The first
// input byte picks the scenario (see `fuzzOneInput`). Every scenario checks the documented contracts and
// stops with `fatalError("invariant: …")` when one is broken. Scenario 3 is the remote socket's dispatcher, 4 the peering frames. Built with -DFUZZING and -sanitize=fuzzer it
// is a libFuzzer binary; built plainly it replays the files named on its command line, or writes the seed
// corpus with `--write-seeds DIR`. See docs/fuzzing.md.
import ControlProtocol
import DaemonCore
import PasteboardCore
import Foundation
import FuzzSupport
import SystemSupport

// MARK: - Reading choices from the input

/// SplitMix64, for the chunk sizes a stream is cut into.
struct SplitMix64 {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

#if FUZZING
/// ASan's count of bytes currently allocated (sanitizer/allocator_interface.h).
@_silgen_name("__sanitizer_get_current_allocated_bytes")
func sanitizerAllocatedBytes() -> Int
#else
func sanitizerAllocatedBytes() -> Int { 0 }
#endif

// MARK: - What every decoded value must satisfy

func checkName(_ name: String, _ what: String) {
    invariant(!name.isEmpty && name.utf8.count <= PasteboardLimits.maximumPasteboardNameLength && !name.utf8.contains(0),
              "decoded \(what) of \(name.utf8.count) bytes breaks the name rules")
}

func checkType(_ type: String) {
    invariant(!type.isEmpty && type.utf8.count <= PasteboardLimits.maximumTypeNameLength && !type.utf8.contains(0),
              "decoded type name of \(type.utf8.count) bytes breaks the type rules")
}

func checkText(_ text: String) {
    invariant(text.utf8.count <= ControlLimits.maximumStringLength, "decoded text of \(text.utf8.count) bytes")
}

func checkItems(_ items: [PasteboardItem]) {
    invariant(items.count <= PasteboardLimits.maximumItems, "\(items.count) items decoded")
    for item in items {
        invariant(!item.representations.isEmpty && item.representations.count <= PasteboardLimits.maximumRepresentationsPerItem,
                  "an item with \(item.representations.count) representations")
        item.types.map(\.rawValue).forEach(checkType)
        invariant(Set(item.types).count == item.types.count, "an item offers a type twice")
        invariant(item.byteCount == item.representations.reduce(0) { $0 + $1.data.count }, "byteCount is not the sum")
    }
}

func check(_ request: ControlRequest) {
    switch request {
    case .hello(_, let client): checkText(client)
    case .setItems(let pasteboard, let items, let options):
        checkName(pasteboard, "pasteboard")
        checkItems(items)
        invariant(CopyOptions.all.isSuperset(of: options), "unknown copy options decoded")
    case .setExpiringItems(let pasteboard, let items, let options, let milliseconds):
        checkName(pasteboard, "pasteboard")
        checkItems(items)
        invariant(CopyOptions.all.isSuperset(of: options), "unknown copy options decoded")
        invariant((1...ControlLimits.maximumExpiryMilliseconds).contains(milliseconds), "an expiry of \(milliseconds) ms decoded")
    case .addItems(let pasteboard, let items):
        checkName(pasteboard, "pasteboard")
        checkItems(items)
    case .clear(let name), .changeCount(let name), .items(let name), .targets(let name), .createPasteboard(let name, _),
         .removePasteboard(let name):
        checkName(name, "pasteboard")
    case .addDisplay(let name), .removeDisplay(let name), .onDisplay(let name):
        checkName(name, "display")
    case .watch(let names):
        invariant(names.count <= ControlLimits.maximumListCount, "\(names.count) watched names")
        names.forEach { checkName($0, "watched pasteboard") }
    case .watchEvents(let names, let events):
        invariant(names.count <= ControlLimits.maximumListCount, "\(names.count) watched names")
        names.forEach { checkName($0, "watched pasteboard") }
        invariant(WatchEvents.all.isSuperset(of: events) && !events.isEmpty, "watch events \(events.rawValue) decoded")
    case .read(let pasteboard, let types, let display):
        checkName(pasteboard, "pasteboard")
        invariant(types.count <= ControlLimits.maximumListCount, "\(types.count) types to read")
        types.forEach(checkType)
        checkText(display)
    case .setItemProviders(let pasteboard, let types, let options):
        checkName(pasteboard, "pasteboard")
        invariant(types.count <= PasteboardLimits.maximumItems, "\(types.count) provided items")
        types.forEach { $0.forEach(checkType) }
        invariant(CopyOptions.all.isSuperset(of: options), "unknown copy options decoded")
    case .provided: break
    case .provideFailed(_, let reason): checkText(reason)
    case .peer(_, _, let name, _): invariant(name.utf8.count <= PeerLimits.maximumTextLength, "a peer name over its cap")
    case .addPeer(let socket, _), .removePeer(let socket):
        invariant(!socket.isEmpty && socket.utf8.count <= 4096 && !socket.utf8.contains(0), "an invalid socket path decoded")
    case .beginCopy(let pasteboard, let types, let options, let milliseconds):
        checkName(pasteboard, "pasteboard")
        invariant(!types.isEmpty && types.count <= PasteboardLimits.maximumRepresentationsPerItem, "a copy of \(types.count) types")
        invariant(Set(types).count == types.count, "a copy offers a type twice")
        types.forEach(checkType)
        invariant(CopyOptions.all.isSuperset(of: options), "unknown copy options decoded")
        invariant(milliseconds <= ControlLimits.maximumExpiryMilliseconds, "an expiry of \(milliseconds) ms decoded")
    case .copyChunk(_, let data):
        invariant(!data.isEmpty && data.count <= ControlLimits.maximumChunkBytes, "a chunk of \(data.count) bytes decoded")
    case .status, .pasteboards, .history, .sourcedHistory, .historyItem, .historyCopy, .historyDelete, .historyClear, .pause, .resume, .displays,
         .peers, .commitCopy:
        break
    }
}

func check(_ response: ControlResponse) {
    switch response {
    case .hello(_, _, let version): checkText(version)
    case .changeCount(let pasteboard, _): checkName(pasteboard, "pasteboard")
    case .ok: break
    case .error(_, let message): checkText(message)
    case .status(let pairs):
        invariant(pairs.count <= ControlLimits.maximumListCount, "\(pairs.count) status pairs")
        pairs.forEach { checkText($0.key); checkText($0.value) }
    case .pasteboards(let infos):
        invariant(infos.count <= ControlLimits.maximumListCount, "\(infos.count) pasteboards")
        infos.forEach { checkName($0.name, "pasteboard") }
    case .history(let entries), .sourcedHistory(let entries):
        invariant(entries.count <= ControlLimits.maximumListCount, "\(entries.count) history entries")
        for entry in entries {
            checkName(entry.pasteboard, "pasteboard")
            entry.types.forEach(checkType)
            checkText(entry.preview)
            checkSource(entry.source)
        }
    case .change(let event):
        checkName(event.pasteboard, "pasteboard")
        event.types.forEach(checkType)
        checkText(event.state)
        if let image = event.image { checkType(image.type.rawValue) }
        checkSource(event.source)
    case .read(let event):
        checkName(event.pasteboard, "pasteboard")
        checkType(event.type)
        checkSource(event.reader)
        checkText(event.refusal ?? "")
        checkText(event.via)
    case .items(let items): checkItems(items)
    case .changed(let pasteboard, _, let types, let state, let image):
        checkName(pasteboard, "pasteboard")
        types.forEach(checkType)
        checkText(state)
        if let image { checkType(image.type.rawValue) }
    case .targets(let types):
        invariant(types.count <= ControlLimits.maximumListCount, "\(types.count) targets")
        types.forEach(checkType)
    case .provide(_, let type): checkType(type)
    case .peers(let peers):
        for peer in peers { checkText(peer.state); checkText(peer.lastError) }
    }
}

/// A source decoded: a name of 1 to `maximumNameBytes` bytes on one line, a positive process id.
func checkSource(_ source: ContentSource?) {
    guard let source else { return }
    invariant(!source.application.isEmpty && source.application.utf8.count <= ContentSource.maximumNameBytes,
              "a source name of \(source.application.utf8.count) bytes")
    invariant(!source.application.unicodeScalars.contains { $0.value < 0x20 }, "a source name with a control character")
    invariant(source.processID.map { $0 > 0 } ?? true, "a process id that is not positive")
}

/// Runs `decode`; a thrown error must be a `ControlProtocolError` (returned as nil after describing it).
func typed<T>(_ decode: () throws -> T) -> T? {
    do {
        return try decode()
    } catch let error as ControlProtocolError {
        invariant(!error.description.isEmpty, "an error without a description")
        return nil
    } catch {
        fatalError("invariant: decoding threw \(type(of: error)), not ControlProtocolError: \(error)")
    }
}

// MARK: - Scenario 1: an arbitrary body

/// Decodes `body` as a request and as a response. Whatever decodes is valid, re-encodes to exactly the
/// same frame, and that frame decodes to an equal value — unless representations of its items were left out
/// (each with its reason): then what was kept re-encodes to a frame that decodes to it, leaving nothing out.
func checkBody(_ body: [UInt8]) {
    var requestSkipped: [SkippedRepresentation] = []
    let request = typed { try ControlRequest.decode(body: body, skipped: &requestSkipped) }
    var responseSkipped: [SkippedRepresentation] = []
    let response = typed { try ControlResponse.decode(body: body, skipped: &responseSkipped) }
    invariant(request == nil || response == nil, "one body decodes as both a request and a response")
    if let request {
        check(request)
        checkReencoding(request, of: body, skipped: requestSkipped, kind: "request \(request.kind)",
                        encode: { $0.encode() }, segments: { $0.encodeSegments() },
                        decode: { try ControlRequest.decode(body: $0, skipped: &$1) })
    }
    if let response {
        check(response)
        checkReencoding(response, of: body, skipped: responseSkipped, kind: "response \(response.kind)",
                        encode: { $0.encode() }, segments: { $0.encodeSegments() },
                        decode: { try ControlResponse.decode(body: $0, skipped: &$1) })
    }
}

/// `message`, decoded from `body` leaving out `skipped`, re-encodes canonically (as `body` when nothing was
/// left out) and decodes to itself again, leaving nothing more out.
func checkReencoding<Message: Equatable>(_ message: Message, of body: [UInt8], skipped: [SkippedRepresentation], kind: String,
                                         encode: (Message) -> [UInt8], segments: (Message) -> [[UInt8]],
                                         decode: ([UInt8], inout [SkippedRepresentation]) throws -> Message) {
    let frame = encode(message)
    invariant(skipped.allSatisfy { !$0.reason.isEmpty }, "a representation left out without a reason")
    if skipped.isEmpty { invariant(frame == FrameEncoder.frame(body), "\(kind) re-encodes to different bytes") }
    invariant(Array(segments(message).joined()) == frame, "\(kind) segments differ from encode()")
    var again: [SkippedRepresentation] = []
    do {
        let decoded = try decode(Array(frame.dropFirst(FrameEncoder.headerLength)), &again)
        invariant(decoded == message, "re-encoded \(kind) decodes to another value")
        invariant(again.isEmpty, "re-encoded \(kind) leaves representations out again")
    } catch {
        fatalError("invariant: re-encoded \(kind) does not decode: \(error)")
    }
}

// MARK: - Scenario 2: a byte stream cut into arbitrary chunks

func fuzzStream(_ input: inout FuzzInput) {
    let limits = [ControlLimits.defaultMaximumFrameLength, 1 << 16, 256, 0]
    let maximum = limits[Int(input.u8() % 4)]
    var random = SplitMix64(state: UInt64(input.u32()))
    let stream = Array(input.rest)

    // What the stream holds, read at once: complete frames up to the first oversize header.
    var expectedFrames: [[UInt8]] = []
    var expectedFailure: ControlProtocolError? = nil
    var offset = 0
    while stream.count - offset >= 4 {
        let length = (0..<4).reduce(0) { $0 | Int(stream[offset + $1]) << (8 * $1) }
        if length > maximum {
            expectedFailure = .frameTooLarge(length: length, maximum: maximum)
            break
        }
        guard stream.count - offset - 4 >= length else { break }
        expectedFrames.append(Array(stream[offset + 4..<offset + 4 + length]))
        offset += 4 + length
    }

    var decoder = FrameDecoder(maximumFrameLength: maximum)
    var frames: [[UInt8]] = []
    var failure: ControlProtocolError? = nil
    func drain() {
        while failure == nil {
            do {
                guard let frame = try decoder.nextFrame() else { return }
                frames.append(frame)
            } catch let error as ControlProtocolError {
                failure = error
            } catch {
                fatalError("invariant: nextFrame threw \(type(of: error)), not ControlProtocolError")
            }
        }
    }
    var position = 0
    while position < stream.count {
        let remaining = stream.count - position
        let size: Int
        switch random.next() % 8 {
        case 0: size = 0
        case 1, 2: size = Int(random.next() % 5)
        case 3, 4: size = Int(random.next() % 64)
        case 5: size = Int(random.next() % 4096)
        default: size = remaining
        }
        let chunk = stream[position..<position + min(size, remaining)]
        let before = sanitizerAllocatedBytes()
        let buffered = decoder.bufferedByteCount
        decoder.append(chunk)
        // The buffer grows to the data it holds and to at most one announced frame within the maximum;
        // a header announcing more must be refused before anything is reserved for it.
        let grown = sanitizerAllocatedBytes() - before
        invariant(grown <= 2 * (buffered + chunk.count + maximum + 8) + (64 << 10),
                  "appending \(chunk.count) bytes allocated \(grown) bytes (maximum frame \(maximum))")
        position += chunk.count
        if random.next() % 3 == 0 { drain() }
    }
    drain()
    invariant(frames == expectedFrames, "\(frames.count) frames decoded, \(expectedFrames.count) in the stream")
    invariant(failure == expectedFailure, "failure \(String(describing: failure)), expected \(String(describing: expectedFailure))")
    if let expectedFailure {
        // The stream cannot be resynchronised: the same error every time, and input is discarded.
        do {
            _ = try decoder.nextFrame()
            fatalError("invariant: nextFrame returned after frameTooLarge")
        } catch let error as ControlProtocolError {
            invariant(error == expectedFailure, "a second nextFrame threw \(error)")
        } catch {
            fatalError("invariant: nextFrame threw \(type(of: error))")
        }
        decoder.append([0, 0, 0, 0])
        invariant(decoder.bufferedByteCount == 0, "bytes are buffered after frameTooLarge")
    } else {
        invariant(decoder.bufferedByteCount == stream.count - offset,
                  "\(decoder.bufferedByteCount) bytes buffered, \(stream.count - offset) left in the stream")
        invariant(decoder.hasPartialFrame == (stream.count > offset), "hasPartialFrame is \(decoder.hasPartialFrame)")
    }
    for frame in frames { checkBody(frame) }
}

// MARK: - Scenario 3: messages built from the input, encoded and decoded

/// The longest prefix of `text` at a scalar boundary within `maximum` bytes of UTF-8 (what the writer sends).
func truncated(_ text: String, _ maximum: Int) -> String {
    guard text.utf8.count > maximum else { return text }
    var count = 0
    for scalar in text.unicodeScalars {
        let size = UTF8.width(scalar)
        if count + size > maximum { break }
        count += size
    }
    return String(decoding: Array(text.utf8.prefix(count)), as: UTF8.self)
}

func isValidName(_ name: String) -> Bool {
    !name.isEmpty && name.utf8.count <= PasteboardLimits.maximumPasteboardNameLength && !name.utf8.contains(0)
}

func isValidType(_ name: String) -> Bool {
    !name.isEmpty && name.utf8.count <= PasteboardLimits.maximumTypeNameLength && !name.utf8.contains(0)
}

extension FuzzInput {
    /// Text from the input (invalid UTF-8 becomes U+FFFD), sometimes stretched around `nearLength` bytes.
    mutating func text(nearLength: Int) -> String {
        let choice = u8()
        let motif = String(decoding: take(Int(choice >> 2) % 12), as: UTF8.self)
        guard choice & 3 == 3, !motif.isEmpty else { return motif }
        let target = nearLength - 4 + Int(u8() % 8)
        let size = motif.utf8.count
        return String(repeating: motif, count: (target + size - 1) / size)
    }
    mutating func name() -> String { text(nearLength: 255) }
    /// A type name, sometimes stretched around the type-name limit.
    mutating func typeName() -> String { text(nearLength: bool() ? 255 : PasteboardLimits.maximumTypeNameLength) }
    mutating func freeText() -> String { text(nearLength: ControlLimits.maximumStringLength) }
    mutating func list<T>(_ maximum: UInt8, _ element: (inout FuzzInput) -> T) -> [T] {
        (0..<Int(u8() % maximum)).map { _ in element(&self) }
    }
    /// Items from representations drawn from the input. `PasteboardItem` refuses invalid ones (checked
    /// here against its rules), so only valid items are returned.
    mutating func items() -> [PasteboardItem] {
        var items: [PasteboardItem] = []
        for _ in 0..<Int(u8() % 4) {
            // Data of 64 KiB or more is carried as its own segment by encodeSegments().
            let pairs = list(5) { input in
                (type: PasteboardType(input.typeName()),
                 data: input.u8() == 0xFF ? [UInt8](repeating: input.u8(), count: (64 << 10) - 8 + Int(input.u8() % 16))
                                          : input.take(Int(input.u8())))
            }
            let valid = !pairs.isEmpty && pairs.allSatisfy { isValidType($0.type.rawValue) }
                && Set(pairs.map(\.type)).count == pairs.count
            if let item = try? PasteboardItem(pairs) {
                invariant(valid, "PasteboardItem accepted representations that break its rules")
                items.append(item)
            } else {
                invariant(!valid, "PasteboardItem refused valid representations")
            }
        }
        return items
    }
}

/// Encodes `value`; it must decode to `expected` when every name is valid, else fail with a typed error.
func roundTrip<Message: Hashable>(_ value: Message, expected: Message, namesValid: Bool, kind: String,
                                  encode: (Message) -> [UInt8], segments: (Message) -> [[UInt8]],
                                  decode: ([UInt8]) throws -> Message) {
    let frame = encode(value)
    invariant(Array(segments(value).joined()) == frame, "\(kind) segments differ from encode()")
    let length = (0..<4).reduce(0) { $0 | Int(frame[$1]) << (8 * $1) }
    invariant(length == frame.count - 4, "\(kind) frame header says \(length), body is \(frame.count - 4) bytes")
    let decoded = typed { try decode(Array(frame.dropFirst(4))) }
    if namesValid {
        guard let decoded else { fatalError("invariant: \(kind) with valid names does not decode") }
        invariant(decoded == expected, "\(kind) decodes to another value")
        invariant(encode(decoded) == frame, "decoded \(kind) re-encodes to other bytes")
    } else {
        invariant(decoded == nil, "\(kind) with an invalid name was accepted")
    }
}

func fuzzEncode(_ input: inout FuzzInput) {
    let text = ControlLimits.maximumStringLength
    if input.bool() {
        let kind = ControlRequest.Kind.allCases[Int(input.u8()) % ControlRequest.Kind.allCases.count]
        var valid = true
        func name() -> String {
            let name = input.name()
            valid = valid && isValidName(name)
            return name
        }
        func typeName() -> String {
            let name = input.typeName()
            valid = valid && isValidType(name)
            return name
        }
        func socket() -> String {
            let path = input.text(nearLength: input.bool() ? 4096 : 108)
            valid = valid && !path.isEmpty && path.utf8.count <= 4096 && !path.utf8.contains(0)
            return path
        }
        let request: ControlRequest
        var expected: ControlRequest? = nil
        switch kind {
        case .hello:
            let client = input.freeText()
            let version = input.u8()
            request = .hello(version: version, client: client)
            expected = .hello(version: version, client: truncated(client, text))
        case .setItems:
            let pasteboard = name()
            request = .setItems(pasteboard: pasteboard, items: input.items(),
                                options: CopyOptions(rawValue: input.u32()).intersection(.all))
        case .setExpiringItems:
            let pasteboard = name()
            let milliseconds = input.u64() % (ControlLimits.maximumExpiryMilliseconds + 2)
            valid = valid && milliseconds >= 1 && milliseconds <= ControlLimits.maximumExpiryMilliseconds
            request = .setExpiringItems(pasteboard: pasteboard, items: input.items(),
                                        options: CopyOptions(rawValue: input.u32()).intersection(.all), expiresAfterMilliseconds: milliseconds)
        case .addItems: request = .addItems(pasteboard: name(), items: input.items())
        case .clear: request = .clear(pasteboard: name())
        case .changeCount: request = .changeCount(pasteboard: name())
        case .items: request = .items(pasteboard: name())
        case .targets: request = .targets(pasteboard: name())
        case .status: request = .status
        case .pasteboards: request = .pasteboards
        case .createPasteboard: request = .createPasteboard(name: name(), persistent: input.bool())
        case .removePasteboard: request = .removePasteboard(name: name())
        case .history: request = .history(limit: input.u32())
        case .historyItem: request = .historyItem(index: input.u32())
        case .historyCopy: request = .historyCopy(index: input.u32())
        case .historyDelete: request = .historyDelete(index: input.u32())
        case .historyClear: request = .historyClear
        case .pause: request = .pause
        case .resume: request = .resume
        case .watch: request = .watch(pasteboards: (0..<Int(input.u8() % 6)).map { _ in name() })
        case .watchEvents:
            let names = (0..<Int(input.u8() % 6)).map { _ in name() }
            request = .watchEvents(pasteboards: names, events: WatchEvents(rawValue: 1 + input.u32() % 3))
        case .sourcedHistory: request = .sourcedHistory(limit: input.u32())
        case .displays: request = .displays
        case .addDisplay: request = .addDisplay(name: name())
        case .removeDisplay: request = .removeDisplay(name: name())
        case .onDisplay: request = .onDisplay(name: name())
        case .peers: request = .peers
        case .peer:
            let (version, daemon, peerName, maximum) = (input.u8(), input.u64(), input.freeText(), input.u64())
            request = .peer(version: version, daemon: daemon, name: peerName, maximumFrameBytes: maximum)
            expected = .peer(version: version, daemon: daemon, name: truncated(peerName, PeerLimits.maximumTextLength), maximumFrameBytes: maximum)
        case .addPeer: request = .addPeer(socket: socket(), persistent: input.bool())
        case .removePeer: request = .removePeer(socket: socket())
        case .read:
            let (pasteboard, types) = (name(), (0..<Int(input.u8() % 5)).map { _ in typeName() })
            let display = input.freeText()
            request = .read(pasteboard: pasteboard, types: types, display: display)
            expected = .read(pasteboard: pasteboard, types: types, display: truncated(display, text))
        case .setItemProviders:
            let pasteboard = name()
            let types = (0..<Int(input.u8() % 4)).map { _ in (0..<Int(input.u8() % 4)).map { _ in typeName() } }
            request = .setItemProviders(pasteboard: pasteboard, types: types, options: CopyOptions(rawValue: input.u32()).intersection(.all))
        case .provided:
            let id = input.u64()
            request = .provided(request: id, data: input.take(Int(input.u16())))
        case .provideFailed:
            let (id, reason) = (input.u64(), input.freeText())
            request = .provideFailed(request: id, reason: reason)
            expected = .provideFailed(request: id, reason: truncated(reason, text))
        case .beginCopy:
            let pasteboard = name()
            let types = (0..<Int(input.u8() % 4)).map { _ in typeName() }
            let milliseconds = input.u64() % (ControlLimits.maximumExpiryMilliseconds + 2)
            valid = valid && !types.isEmpty && Set(types).count == types.count && milliseconds <= ControlLimits.maximumExpiryMilliseconds
            request = .beginCopy(pasteboard: pasteboard, types: types, options: CopyOptions(rawValue: input.u32()).intersection(.all),
                                 expiresAfterMilliseconds: milliseconds)
        case .copyChunk:
            let index = input.u16()
            let data = input.take(Int(input.u16()))
            valid = valid && !data.isEmpty
            request = .copyChunk(representation: index, data: data)
        case .commitCopy: request = .commitCopy
        }
        invariant(request.kind == kind, "request \(request) has kind \(request.kind), built as \(kind)")
        roundTrip(request, expected: expected ?? request, namesValid: valid, kind: "request \(kind)",
                  encode: { $0.encode() }, segments: { $0.encodeSegments() },
                  decode: { try ControlRequest.decode(body: $0) })
    } else {
        let kind = ControlResponse.Kind.allCases[Int(input.u8()) % ControlResponse.Kind.allCases.count]
        var valid = true
        func name() -> String {
            let name = input.name()
            valid = valid && isValidName(name)
            return name
        }
        func typeName() -> String {
            let name = input.typeName()
            valid = valid && isValidType(name)
            return name
        }
        /// A source as a peer could name it (any text, cut to its cap by `ContentSource`), or none.
        func source() -> ContentSource? {
            let name = input.freeText()
            let pid = Int32(bitPattern: input.u32())
            return input.u8() % 4 == 0 ? nil : ContentSource(application: name, processID: pid)
        }
        let response: ControlResponse
        let expected: ControlResponse
        switch kind {
        case .hello:
            let (version, pid, daemon) = (input.u8(), input.u32(), input.freeText())
            response = .hello(version: version, daemonPID: pid, daemonVersion: daemon)
            expected = .hello(version: version, daemonPID: pid, daemonVersion: truncated(daemon, text))
        case .changeCount:
            response = .changeCount(pasteboard: name(), count: input.u64())
            expected = response
        case .ok:
            response = .ok
            expected = response
        case .error:
            let (code, message) = (ErrorCode(rawValue: input.u16()), input.freeText())
            response = .error(code: code, message: message)
            expected = .error(code: code, message: truncated(message, text))
        case .status:
            let pairs = input.list(4) { StatusPair($0.freeText(), $0.freeText()) }
            response = .status(pairs: pairs)
            expected = .status(pairs: pairs.map { StatusPair(truncated($0.key, text), truncated($0.value, text)) })
        case .pasteboards:
            response = .pasteboards((0..<Int(input.u8() % 4)).map { _ in
                PasteboardInfo(name: name(), changeCount: input.u64(), persistent: input.bool(), owned: input.bool())
            })
            expected = response
        case .history, .sourcedHistory:
            let sourced = kind == .sourcedHistory
            let entries = (0..<Int(input.u8() % 4)).map { _ in
                HistoryEntry(index: input.u32(), timestamp: Int64(bitPattern: input.u64()), pasteboard: name(),
                             types: (0..<Int(input.u8() % 4)).map { _ in typeName() }, size: input.u64(),
                             preview: input.freeText(), source: sourced ? source() : nil)
            }
            let kept = entries.map {
                var entry = $0
                entry.preview = truncated(entry.preview, text)
                return entry
            }
            response = sourced ? .sourcedHistory(entries) : .history(entries)
            expected = sourced ? .sourcedHistory(kept) : .history(kept)
        case .change:
            let (pasteboard, count, types) = (name(), input.u64(), (0..<Int(input.u8() % 4)).map { _ in typeName() })
            let state = input.freeText()
            let image = input.u8() % 2 == 0 ? nil
                : ImageSummary(type: PasteboardType(typeName()), width: Int(input.u32()), height: Int(input.u32()), byteCount: Int(input.u32()))
            let patterns = input.u8() % 2 == 0 ? nil : TextPatterns(rawValue: input.u32())
            let event = ChangeEvent(pasteboard: pasteboard, count: count, types: types, state: state, image: image, source: source(),
                                    patterns: patterns)
            response = .change(event)
            var kept = event
            kept.state = truncated(state, text)
            expected = .change(kept)
        case .read:
            let refusal = input.freeText()
            let via = input.freeText()
            let event = ReadEvent(pasteboard: name(), type: typeName(), reader: source(), time: Int64(bitPattern: input.u64()),
                                  refusal: refusal.isEmpty ? nil : refusal, via: via)
            response = .read(event)
            var kept = event
            kept.refusal = event.refusal.map { truncated($0, text) }
            kept.via = truncated(via, text)
            expected = .read(kept)
        case .items:
            response = .items(input.items())
            expected = response
        case .changed:
            let (pasteboard, count, types) = (name(), input.u64(), (0..<Int(input.u8() % 4)).map { _ in typeName() })
            let state = input.freeText()
            let image = input.u8() % 2 == 0 ? nil
                : ImageSummary(type: PasteboardType(typeName()), width: Int(input.u32()), height: Int(input.u32()), byteCount: Int(input.u32()))
            response = .changed(pasteboard: pasteboard, count: count, types: types, state: state, image: image)
            expected = .changed(pasteboard: pasteboard, count: count, types: types, state: truncated(state, text), image: image)
        case .targets:
            response = .targets((0..<Int(input.u8() % 5)).map { _ in typeName() })
            expected = response
        case .provide:
            response = .provide(request: input.u64(), type: typeName())
            expected = response
        case .peers:
            let peers = (0..<Int(input.u8() % 3)).map { _ in
                PeerInfo(socket: "/run/" + input.text(nearLength: 100).replacingOccurrences(of: "\0", with: ""), state: input.freeText(), lastError: input.freeText())
            }
            response = .peers(peers)
            expected = .peers(peers.map { PeerInfo(socket: $0.socket, state: truncated($0.state, text), lastError: truncated($0.lastError, text)) })
        }
        invariant(response.kind == kind, "response has kind \(response.kind), built as \(kind)")
        roundTrip(response, expected: expected, namesValid: valid, kind: "response \(kind)",
                  encode: { $0.encode() }, segments: { $0.encodeSegments() },
                  decode: { try ControlResponse.decode(body: $0) })
    }
}

// MARK: - Scenario 4: the remote socket's dispatcher

/// What a remote client sends (docs/remote.md), as the remote socket's server takes it: the stream cut into
/// chunks arriving over time, frames decoded, requests decoded, hello first, each one screened by
/// `RemoteAccess` at a rate chosen from the input; the content a copy carries judged as the engine judges it.
/// Nothing but the permitted kinds is ever let through, never more than the rate allows, every refusal is a
/// well-formed answer, and content copied sensitive or local-only is always withheld and never described.
func fuzzRemote(_ input: inout FuzzInput) {
    let perSecond = 1 + Int(input.u8() % 32)
    let access = RemoteAccess(requestsPerSecond: perSecond)
    let start = MonotonicInstant(nanoseconds: 1_000_000_000)
    var now = start
    var rate = access.newRate(now: now)
    var random = SplitMix64(state: UInt64(input.u32()))
    var decoder = FrameDecoder(maximumFrameLength: [1 << 20, 4096, 64][Int(input.u8() % 3)])
    let stream = Array(input.rest)
    var position = 0
    var greeted = false
    var admitted = 0
    var copy = CopyTransfer(maximumBytes: decoder.maximumFrameLength)
    stream: while position < stream.count {
        let size = min(stream.count - position, 1 + Int(random.next() % 97))
        decoder.append(stream[position..<position + size])
        position += size
        now += .milliseconds(Int64(random.next() % 200))
        while true {
            let body: [UInt8]
            do {
                guard let frame = try decoder.nextFrame() else { break }
                body = frame
            } catch {
                break stream   // a frame over the cap: the server answers and closes
            }
            var skipped: [SkippedRepresentation] = []
            guard let request = typed({ try ControlRequest.decode(body: body, skipped: &skipped) }) else { continue }
            if case .hello = request { greeted = true } else if !greeted { break stream }   // answered and closed
            guard let refusal = access.screen(request, rate: &rate, now: now) else {
                invariant(RemoteAccess.permittedKinds.contains(request.kind), "\(request.kind) was let through the remote socket")
                // A copy's chunks and commit cost a 64th of a request each.
                admitted += request.kind == .copyChunk || request.kind == .commitCopy ? 1 : 64
                let elapsed = now - start
                let allowed = 2 * perSecond + Int(elapsed.components.seconds) * perSecond + Int(elapsed.components.attoseconds / 1_000_000_000_000_000) * perSecond / 1000 + 1
                invariant(admitted <= 64 * allowed, "\(admitted / 64) requests let through in \(elapsed) at \(perSecond) a second")
                checkCopy(copy.take(request, now: now), request, copy: copy)
                continue
            }
            if request.kind == .copyChunk || request.kind == .commitCopy {
                let wasOpen = copy.isOpen
                let answer = copy.refused(request, with: refusal)
                invariant(!copy.isOpen, "a copy stays open after one of its pieces was refused")
                invariant(answer == nil || answer == refusal, "a refused piece is answered with something else")
                invariant(!wasOpen || answer != nil, "an open copy failed without an answer")
            }
            guard case .error(let code, let message) = refusal, code == .denied || code == .unavailable, !message.isEmpty else {
                fatalError("invariant: the refusal of \(request.kind) is \(refusal)")
            }
            invariant(code == .unavailable || !RemoteAccess.permittedKinds.contains(request.kind), "a permitted \(request.kind) was denied")
            let frame = refusal.encode()
            invariant((try? ControlResponse.decode(body: Array(frame.dropFirst(FrameEncoder.headerLength)))) == refusal,
                      "the refusal does not decode to itself")
        }
    }
}

/// What a copy in pieces did with `request` (`CopyTransfer.take`): only its kinds are taken, a begin is answered
/// `ok` or an error, a commit is a whole copy within the cap, whose content is judged as a `setItems`'s.
func checkCopy(_ step: CopyTransfer.Step, _ request: ControlRequest, copy: CopyTransfer) {
    let kinds: Set<ControlRequest.Kind> = [.beginCopy, .copyChunk, .commitCopy]
    switch step {
    case .pass:
        invariant(!kinds.contains(request.kind), "a \(request.kind) passed the copy by")
        if let (_, items) = request.carriedItems { checkWithheld(items, request) }
    case .taken:
        invariant(request.kind == .copyChunk || request.kind == .commitCopy, "a \(request.kind) was taken silently")
    case .answer(let answer):
        invariant(kinds.contains(request.kind), "a copy answered a \(request.kind)")
        if case .error(_, let message) = answer { invariant(!message.isEmpty && !copy.isOpen, "an open copy after an error, or no reason") }
        else { invariant(answer == .ok && request.kind == .beginCopy && copy.isOpen, "a copy answered \(answer) to \(request.kind)") }
    case .commit(let committed):
        invariant(request.kind == .commitCopy && !copy.isOpen, "a commit from \(request.kind)")
        guard let (_, items) = committed.carriedItems, items.count == 1 else { fatalError("invariant: a commit of \(committed.kind)") }
        checkItems(items)
        let body = committed.encode().count - FrameEncoder.headerLength
        invariant(body <= copy.maximumBytes, "a committed copy of \(body) bytes is over the cap of \(copy.maximumBytes)")
        checkWithheld(items, committed)
    }
}

/// Content a remote copy makes is withheld exactly when it is sensitive, local-only or carries a secret marker,
/// and a change to withheld content is described to remote watchers without types or picture.
func checkWithheld(_ items: [PasteboardItem], _ request: ControlRequest) {
    var options: CopyOptions = []
    if case .setItems(_, _, let given) = request { options = given }
    if case .setExpiringItems(_, _, let given, _) = request { options = given }
    let content = PasteboardContent(items: items, isSensitive: options.contains(.sensitive), isLocalOnly: options.contains(.localOnly))
    let withheld = RemoteAccess.withholding(content)
    if options.contains(.sensitive) || options.contains(.localOnly) {
        invariant(withheld != nil, "content copied \(options.rawValue) is served remotely")
    }
    if !Set(content.types.map(\.rawValue)).isDisjoint(with: SnapshotPolicy.concealedMarkers) {
        invariant(withheld != nil, "content with a concealed marker is served remotely")
    }
    let event = ControlResponse.changed(pasteboard: "general", count: 1, types: content.types.map(\.rawValue), state: "data", image: nil)
    if case .changed(_, _, let types, let state, let image) = RemoteAccess.event(event, contentWithheld: withheld != nil), withheld != nil {
        invariant(types.isEmpty && image == nil && state == "sensitive", "withheld content is described to a remote watcher")
    }
}

// MARK: - Scenario 4: the peering frames

/// A body from another daemon (docs/protocol.md, "Peering"): decoded or refused with a `ControlProtocolError`,
/// never a trap; what decodes holds the caps (types, path, names) and re-encodes to the same bytes.
func fuzzPeer(_ input: inout FuzzInput) {
    let body = Array(input.rest)
    guard let frame = typed({ try PeerFrame.decode(body: body) }) else { return }
    invariant(Array(frame.encode().dropFirst(4)) == body, "a peer frame re-encodes to other bytes")
    invariant(Array(frame.encodeSegments().joined()) == frame.encode(), "peer frame segments differ from encode()")
    func checkOrigin(_ origin: PeerOrigin) {
        invariant(origin.path.first == origin.daemon && origin.path.count <= PeerLimits.maximumHops, "a path off its origin or too long")
    }
    switch frame {
    case .welcome(_, _, let name, _): invariant(name.utf8.count <= PeerLimits.maximumTextLength, "a name over its cap")
    case .offer(let offer):
        checkName(offer.pasteboard, "pasteboard")
        checkOrigin(offer.origin)
        invariant(offer.types.count <= PeerLimits.maximumTypes, "\(offer.types.count) types")
        invariant(Set(offer.types.map(\.name)).count == offer.types.count, "a type offered twice")
        offer.types.map(\.name).forEach(checkType)
    case .cleared(let pasteboard, let origin):
        checkName(pasteboard, "pasteboard")
        checkOrigin(origin)
    case .fetch(_, _, let type): checkType(type)
    case .data: break
    case .failed(_, let reason): invariant(reason.utf8.count <= PeerLimits.maximumTextLength, "a reason over its cap")
    }
}

// MARK: - Entry point

func fuzzOneInput(_ bytes: [UInt8]) {
    var input = FuzzInput(bytes)
    switch input.u8() % 5 {
    case 0: checkBody(Array(input.rest))
    case 1: fuzzStream(&input)
    case 2: fuzzEncode(&input)
    case 3: fuzzRemote(&input)
    default: fuzzPeer(&input)
    }
}

/// Seeds in the input layout `fuzzOneInput` reads: one valid body per request and response kind, a stream
/// of several frames, an oversize header, and a few messages for the encode scenario.
func writeSeeds(to directory: String) throws {
    let item = try PasteboardItem([(type: PasteboardType("text/plain;charset=utf-8"), data: Array("héllo".utf8)),
                                   (type: .html, data: Array("<b>héllo</b>".utf8)),
                                   (type: .png, data: [0x89, 0x50, 0x4E, 0x47, 0, 0, 0, 0])])
    let plain = try PasteboardItem([(type: PasteboardType("UTF8_STRING"), data: Array("second item".utf8))])
    let requests: [ControlRequest] = [
        .hello(version: 1, client: "pb 1.0 (fuzz seed)"),
        .setItems(pasteboard: "general", items: [item, plain], options: [.sensitive, .pasteOnce]),
        .addItems(pasteboard: "general", items: [plain]),
        .clear(pasteboard: "general"), .changeCount(pasteboard: "find"), .status, .pasteboards,
        .createPasteboard(name: "notes", persistent: true), .removePasteboard(name: "notes"),
        .history(limit: 10), .historyItem(index: 2), .historyCopy(index: 0), .historyDelete(index: 1),
        .historyClear, .pause, .resume, .watch(pasteboards: ["general", "primary"]), .watch(pasteboards: []),
        .items(pasteboard: "general"),
        .read(pasteboard: "general", types: ["image/png", "text/html", "text/plain;charset=utf-8"], display: ":0"),
        .targets(pasteboard: "general"),
    ]
    let responses: [ControlResponse] = [
        .hello(version: 1, daemonPID: 4242, daemonVersion: "pasteboardd 1.0"),
        .changeCount(pasteboard: "general", count: 17), .ok,
        .error(code: .typeNotOffered, message: "the owner does not offer image/png"),
        .status(pairs: [StatusPair("pid", "4242"), StatusPair("display", ":0")]),
        .pasteboards([PasteboardInfo(name: "general", changeCount: 3, persistent: true, owned: true),
                      PasteboardInfo(name: "primary", changeCount: 9, persistent: false, owned: false)]),
        .history([HistoryEntry(index: 0, timestamp: 1_764_000_000, pasteboard: "general",
                               types: ["text/plain;charset=utf-8", "text/html"], size: 18, preview: "héllo")]),
        .items([item, plain]), .items([]),
        .changed(pasteboard: "general", count: 18, types: ["UTF8_STRING"], state: "owned"),
        .targets(["TARGETS", "TIMESTAMP", "MULTIPLE", "UTF8_STRING", "text/html"]),
    ]
    var seeds: [String: [UInt8]] = [:]
    func body(_ frame: [UInt8]) -> [UInt8] { Array(frame.dropFirst(4)) }
    for (index, request) in requests.enumerated() {
        seeds["request-\(index)-\(request.kind)"] = [0] + body(request.encode())
    }
    for (index, response) in responses.enumerated() {
        seeds["response-\(index)-\(response.kind)"] = [0] + body(response.encode())
    }
    // Streams: option byte (maximum: 0 default, 1 64 KiB, 2 256 bytes, 3 zero), chunking seed, frames.
    let conversation = requests.prefix(6).flatMap { $0.encode() } + responses.prefix(4).flatMap { $0.encode() }
    seeds["stream-conversation"] = [1, 0, 1, 2, 3, 4] + conversation
    seeds["stream-small-maximum"] = [1, 2, 9, 9, 9, 9] + conversation
    seeds["stream-oversize-header"] = [1, 1, 5, 0, 0, 0] + requests[0].encode() + [0xFF, 0xFF, 0xFF, 0xFF, 1, 2, 3]
    seeds["stream-truncated"] = [1, 0, 7, 0, 0, 0] + requests[1].encode().dropLast(3)
    seeds["stream-zero-length"] = [1, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 1]
    // Remote dispatcher: rate byte, chunking seed, frame cap choice, then what a remote client sends — a session,
    // every refused kind, a burst over the rate, a sensitive and a local-only copy, no hello first.
    let secret = try PasteboardItem([(type: PasteboardType("text/plain;charset=utf-8"), data: Array("pw".utf8)),
                                     (type: PasteboardType("org.nspasteboard.ConcealedType"), data: [])])
    let session: [ControlRequest] = [
        .hello(version: 1, client: "pb (remote)"), .setItems(pasteboard: "general", items: [item], options: []),
        .read(pasteboard: "general", types: ["text/rtf"], display: ""), .targets(pasteboard: "general"),
        .changeCount(pasteboard: "general"), .watch(pasteboards: []),
    ]
    seeds["remote-session"] = [3, 8, 1, 2, 3, 4, 0] + session.flatMap { $0.encode() }
    seeds["remote-refused"] = [3, 31, 7, 7, 7, 7, 0] + ([requests[0]] + requests.filter { !RemoteAccess.permittedKinds.contains($0.kind) }).flatMap { $0.encode() }
    seeds["remote-burst"] = [3, 0, 9, 0, 0, 0, 0] + requests[0].encode() + Array(repeating: ControlRequest.changeCount(pasteboard: "general").encode(), count: 40).joined()
    seeds["remote-withheld"] = [3, 4, 5, 5, 5, 5, 0] + [requests[0], .setItems(pasteboard: "general", items: [item], options: .sensitive),
                                                        .setItems(pasteboard: "primary", items: [plain], options: .localOnly),
                                                        .setItems(pasteboard: "general", items: [secret], options: [])].flatMap { $0.encode() }
    seeds["remote-no-hello"] = [3, 4, 5, 5, 5, 5, 0] + requests[8].encode() + requests[0].encode()
    // A copy in pieces: two types, chunks of each, a commit; then one over the cap (64-byte frames), a stray
    // chunk and commit, a sensitive copy, and a begin while a copy is open.
    let pieces: [ControlRequest] = [
        requests[0], .beginCopy(pasteboard: "general", types: ["text/plain;charset=utf-8", "text/html"], options: [], expiresAfterMilliseconds: 0),
        .copyChunk(representation: 0, data: Array("hél".utf8)), .copyChunk(representation: 1, data: Array("<b>".utf8)),
        .copyChunk(representation: 0, data: Array("lo".utf8)), .commitCopy,
        .copyChunk(representation: 0, data: [1]), .commitCopy,
        .beginCopy(pasteboard: "primary", types: ["UTF8_STRING"], options: .sensitive, expiresAfterMilliseconds: 5000),
        .copyChunk(representation: 0, data: Array("pw".utf8)), .copyChunk(representation: 3, data: [2]), .commitCopy,
        .beginCopy(pasteboard: "general", types: ["UTF8_STRING"], options: .localOnly, expiresAfterMilliseconds: 0),
        .beginCopy(pasteboard: "general", types: ["UTF8_STRING"], options: [], expiresAfterMilliseconds: 0),
    ]
    seeds["remote-copy-pieces"] = [3, 31, 5, 5, 5, 5, 0] + pieces.flatMap { $0.encode() }
    seeds["remote-copy-over-cap"] = [3, 31, 6, 6, 6, 6, 2] + [requests[0], pieces[1]].flatMap { $0.encode() }
        + Array(repeating: ControlRequest.copyChunk(representation: 0, data: Array(repeating: 0x61, count: 40)).encode(), count: 3).joined()
        + ControlRequest.commitCopy.encode()
    seeds["remote-copy-burst"] = [3, 0, 9, 0, 0, 0, 0] + [requests[0], pieces[1]].flatMap { $0.encode() }
        + Array(repeating: ControlRequest.copyChunk(representation: 1, data: [0x62]).encode(), count: 200).joined() + ControlRequest.commitCopy.encode()
    for (index, request) in pieces.enumerated() where [.beginCopy, .copyChunk, .commitCopy].contains(request.kind) && index < 3 {
        seeds["request-copy-\(index)-\(request.kind)"] = [0] + body(request.encode())
    }
    seeds["request-copy-commit"] = [0] + body(ControlRequest.commitCopy.encode())
    // Peering frames: one of each kind.
    let origin = PeerOrigin(daemon: 7, serial: 2, path: [7, 9])
    let frames: [PeerFrame] = [
        .welcome(version: 1, daemon: 9, name: "pasteboardd 1 on :0", maximumFrameBytes: 1 << 28),
        .offer(PeerOffer(token: 3, pasteboard: "general", origin: origin, types: [PeerType("UTF8_STRING", size: 5), PeerType("text/html")])),
        .cleared(pasteboard: "general", origin: origin), .fetch(request: 1, token: 3, type: "text/html"),
        .data(request: 1, bytes: Array("<b>x</b>".utf8)), .failed(request: 2, reason: "CLIPBOARD changed since"),
    ]
    for frame in frames { seeds["peer-\(frame.kind)"] = [4] + body(frame.encode()) }
    // Encode scenario: request/response choice, kind index, then the fields.
    seeds["encode-hello"] = [2, 1, 0, 4 << 2 | 3] + Array("ab€d".utf8.prefix(4)) + [5, 1]
    // setItems with a 3-byte and a 65 540-byte representation (the second is a segment of its own).
    seeds["encode-setitems"] = [2, 1, 1, 7 << 2] + Array("general".utf8) + [1, 2, 10 << 2] + Array("text/plain".utf8)
        + [0, 3, 1, 2, 3] + [9 << 2] + Array("text/html".utf8) + [0xFF, 0x41, 12] + [3, 0, 0, 0]
    seeds["encode-read"] = [2, 1, 18, 7 << 2] + Array("general".utf8) + [2, 9 << 2] + Array("image/png".utf8)
        + [9 << 2] + Array("text/html".utf8) + [2 << 2] + Array(":0".utf8)
    seeds["encode-long-name"] = [2, 1, 3, 5 << 2 | 3] + Array("abcde".utf8) + [6]
    seeds["encode-error"] = [2, 0, 3, 9, 0, 3 << 2 | 3] + Array("é€".utf8.prefix(3)) + [7]
    seeds["encode-history"] = [2, 0, 6, 1] + [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0] + [7 << 2] + Array("general".utf8)
        + [2, 4 << 2] + Array("text".utf8) + [4 << 2] + Array("text".utf8) + [0, 0, 0, 0, 0, 0, 0, 0] + [2 << 2] + Array("hi".utf8)
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    for (name, bytes) in seeds.sorted(by: { $0.key < $1.key }) {
        fuzzOneInput(bytes)
        guard FileManager.default.createFile(atPath: directory + "/" + name, contents: Data(bytes)) else {
            fatalError("cannot write \(name)")
        }
        print("wrote \(directory)/\(name)")
    }
}

FuzzMain.run(fuzzOneInput, writeSeeds: writeSeeds(to:))
