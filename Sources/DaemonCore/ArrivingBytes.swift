// SPDX-License-Identifier: Apache-2.0
import PasteboardCore
import XTypes

/// One representation's bytes relayed as they arrive: an INCR transfer being read from an owner on one
/// display, sent on to a reader on another before its last chunk is in (`IncrSend` waits for more), so a large
/// copy crosses in one pass instead of being read whole and then sent whole.
///
/// Contract: used on the loop's thread only. `count` only grows and the bytes below it never change; it ends
/// once, with `finish` (the whole value, whose first `count` bytes are those already seen) or `fail`. Until
/// it has ended it is not final (`isFinal`), so it is only ever sent by INCR; a failed one throws on `read`, so
/// a transfer of it is cut off (the reader sees a transfer that never ends, never other bytes).
/// Where the bytes are while they arrive is the reader's (`peek`: its buffer, or the file it reads a large copy
/// into): no second copy is kept. Once complete it is the representation kept, bytes in memory or in its file
/// (`kept`): a final source, read where it is.
final class ArrivingBytes: ByteSource, @unchecked Sendable {
    enum State {
        case arriving
        case complete(Representation)
        case failed(String)
    }

    struct Failed: Error, CustomStringConvertible {
        var reason: String
        var description: String { reason }
    }

    private(set) var state: State = .arriving
    /// The announced size, a lower bound (the origin's INCR header), for the header sent on.
    let expectedCount: Int
    private var available = 0
    /// Reads bytes below `available` from where the reader collects them; let go once it has ended.
    private var peek: ((Range<Int>, (UnsafeRawBufferPointer) -> Void) -> Bool)?
    /// Called once at the next growth or end (a transfer waiting for more bytes).
    private var onChange: [() -> Void] = []
    /// Called once when it ends, with the whole value or why not.
    private var onEnd: [(FetchResult) -> Void] = []

    /// - Parameter peek: calls its body with the bytes of a range below what `grew(to:)` said, where the reader
    ///   keeps them; false once the reader is gone (then `read` throws: a transfer of it is cut off, never given
    ///   short bytes).
    init(expectedCount: Int, peek: @escaping (Range<Int>, (UnsafeRawBufferPointer) -> Void) -> Bool) {
        self.expectedCount = expectedCount
        self.peek = peek
    }

    /// A complete one, already: the representation another endpoint has at hand, as a source (a file's bytes stay
    /// there).
    static func kept(_ representation: Representation) -> ArrivingBytes {
        let bytes = ArrivingBytes(expectedCount: representation.byteCount) { _, _ in false }
        bytes.finish(representation)
        return bytes
    }

    var count: Int {
        if case .complete(let representation) = state { return representation.byteCount }
        return available
    }

    /// What it ended as, once complete.
    var kept: Representation? {
        if case .complete(let representation) = state { return representation }
        return nil
    }

    var isFinal: Bool {
        if case .complete = state { return true }
        return false
    }

    /// Why it failed, once it has.
    var failure: String? {
        if case .failed(let reason) = state { return reason }
        return nil
    }

    func read(_ range: Range<Int>) throws -> [UInt8] {
        var copy: [UInt8] = []
        try withBytes(range) { copy = Array($0) }
        return copy
    }

    /// The bytes of `range` where they are: in the reader's buffer while they arrive (no copy), then in the value.
    func withBytes(_ range: Range<Int>, _ body: (UnsafeRawBufferPointer) -> Void) throws {
        switch state {
        case .complete(let representation):
            if let source = representation.source { return try source.withBytes(range, body) }
            representation.data.withUnsafeBytes { body(UnsafeRawBufferPointer(rebasing: $0[range])) }
        case .failed(let reason): throw Failed(reason: reason)
        case .arriving:
            precondition(range.upperBound <= available, "read past the bytes arrived")
            guard let peek, peek(range, body) else { throw Failed(reason: "the read stopped") }
        }
    }

    /// The reader has `count` bytes now.
    func grew(to count: Int) {
        guard case .arriving = state, count > available else { return }
        available = count
        changed()
    }

    /// The whole value is in, as `representation` keeps it (in memory, or in the file it was read into); it must
    /// begin with the bytes seen so far (else the relay fails: what was sent on would not be this value).
    func finish(_ representation: Representation) {
        guard case .arriving = state else { return }
        guard representation.byteCount >= available else { return fail("the value kept is shorter than what was relayed") }
        state = .complete(representation)
        end(ended)
    }

    /// How it ended, as `whenEnded` says it: the bytes when they are in memory, else this (a final source, read
    /// where the bytes are: `FetchResult.whole` reads them when a reader needs them all at once).
    private var ended: FetchResult {
        switch state {
        case .complete(let representation): representation.source == nil ? .data(representation.data) : .arriving(self)
        case .failed(let reason): .failed(reason)
        case .arriving: .arriving(self)
        }
    }

    /// The value will not be complete: the owner stopped, timed out, or what it sent was not kept.
    func fail(_ reason: String) {
        guard case .arriving = state else { return }
        state = .failed(reason)
        end(.failed(reason))
    }

    /// Runs `body` once, at the next growth or at the end (at once if it has ended).
    func whenChanged(_ body: @escaping () -> Void) {
        guard case .arriving = state else { return body() }
        onChange.append(body)
    }

    /// Runs `body` once when it ends (at once if it has): with the whole value in memory, why not, or — kept in a
    /// file — itself, complete (`isFinal`).
    func whenEnded(_ body: @escaping (FetchResult) -> Void) {
        guard case .arriving = state else { return body(ended) }
        onEnd.append(body)
    }

    private func end(_ result: FetchResult) {
        peek = nil
        let waiting = onEnd
        onEnd = []
        changed()
        for body in waiting { body(result) }
    }

    private func changed() {
        let waiting = onChange
        onChange = []
        for body in waiting { body() }
    }
}
