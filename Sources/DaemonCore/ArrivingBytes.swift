// SPDX-License-Identifier: Apache-2.0
import XTypes

/// One representation's bytes relayed as they arrive: an INCR transfer being read from an owner on one
/// display, sent on to a reader on another before its last chunk is in (`IncrSend` waits for more), so a large
/// copy crosses in one pass instead of being read whole and then sent whole.
///
/// Contract: used on the loop's thread only. `count` only grows and the bytes below it never change; it ends
/// once, with `finish` (the whole value, whose first `count` bytes are those already seen) or `fail`. Until
/// it has ended it is not final (`isFinal`), so it is only ever sent by INCR; a failed one throws on `read`, so
/// a transfer of it is cut off (the reader sees a transfer that never ends, never other bytes).
/// Where the bytes are while they arrive is the reader's (`peek`): no second copy is kept.
final class ArrivingBytes: ByteSource, @unchecked Sendable {
    enum State {
        case arriving
        case complete([UInt8])
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

    var count: Int {
        if case .complete(let bytes) = state { return bytes.count }
        return available
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
        case .complete(let bytes): bytes.withUnsafeBytes { body(UnsafeRawBufferPointer(rebasing: $0[range])) }
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

    /// The whole value is in; it must begin with the bytes seen so far (else the relay fails: what was sent
    /// on would not be this value).
    func finish(_ bytes: [UInt8]) {
        guard case .arriving = state else { return }
        guard bytes.count >= available else { return fail("the value kept is shorter than what was relayed") }
        state = .complete(bytes)
        end(.data(bytes))
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

    /// Runs `body` once with the whole value or why not, when it ends (at once if it has).
    func whenEnded(_ body: @escaping (FetchResult) -> Void) {
        switch state {
        case .complete(let bytes): body(.data(bytes))
        case .failed(let reason): body(.failed(reason))
        case .arriving: onEnd.append(body)
        }
    }

    private func end(_ result: FetchResult) {
        peek = nil
        let ended = onEnd
        onEnd = []
        changed()
        for body in ended { body(result) }
    }

    private func changed() {
        let waiting = onChange
        onChange = []
        for body in waiting { body() }
    }
}
