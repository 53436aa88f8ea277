// SPDX-License-Identifier: Apache-2.0
import Pasteboard
import SystemSupport

/// Standard input that is not a regular file — a pipe, a terminal, a socket (`producer | pb copy`) — whose length
/// is known only at its end. `start` reads up to `wholeUpTo` bytes: input that ends by then is copied whole, in
/// one request (a short `echo hi | pb copy` stays one frame); input that goes on is a `ByteStream`, sent in
/// pieces as it is read (`Pasteboard.setItem(streaming:options:)`), so pb holds a chunk of it, never all of it.
///
/// With `trimmingNewline` (`-n`), one trailing newline (LF or CRLF) is left out: which bytes are the last is
/// known only at the end, so the last two bytes read are held back until then. Past `limit` bytes, a read throws
/// `SystemError.limitExceeded` (the daemon would refuse the copy anyway).
final class PipedInput: ByteStream {
    /// How standard input began.
    enum Start {
        /// It ended within `wholeUpTo` bytes: all of it (trimmed as asked).
        case whole([UInt8])
        /// It goes on: the stream of all of it, the bytes read so far included.
        case continuing(PipedInput)
    }

    /// Input up to this long is copied whole: the size from which a regular file is sent from where it is too.
    static let wholeUpTo = CopiedFile.streamedFrom

    private let descriptor: FileDescriptor
    private let limit: Int
    private let trimmingNewline: Bool
    /// Read, not yet given out.
    private var pending: [UInt8] = []
    private var ended = false
    /// The trailing newline was looked for (once, at the end).
    private var trimmed = false
    private var given = 0

    private init(_ descriptor: FileDescriptor, limit: Int, trimmingNewline: Bool) {
        self.descriptor = descriptor
        self.limit = limit
        self.trimmingNewline = trimmingNewline
    }

    /// Reads standard input until it ends or `wholeUpTo` bytes (and the two held back) have come.
    static func start(_ descriptor: FileDescriptor = .standardInput, limit: Int, trimmingNewline: Bool) throws -> Start {
        let input = PipedInput(descriptor, limit: limit, trimmingNewline: trimmingNewline)
        try input.fill(wholeUpTo + 3)
        guard input.ended else { return .continuing(input) }
        let bytes = trimmingNewline ? trimmingOneNewline(input.pending) : input.pending
        guard bytes.count <= limit else { throw SystemError.limitExceeded(operation: "read(standard input)", limit: limit) }
        return .whole(bytes)
    }

    /// The first bytes of the input (up to `count`, fewer when it is shorter), read but not given out yet: for
    /// sniffing what it is (`{\rtf`) before it is sent.
    func first(_ count: Int) -> [UInt8] { Array(pending.prefix(count)) }

    func read(maximum: Int) throws -> [UInt8] {
        let holdBack = trimmingNewline ? 2 : 0
        try fill(maximum + holdBack)
        if ended && trimmingNewline && !trimmed {
            pending = trimmingOneNewline(pending)
            trimmed = true
        }
        let count = min(maximum, ended ? pending.count : max(0, pending.count - holdBack))
        let chunk = Array(pending.prefix(count))
        pending.removeFirst(count)
        given += count
        guard given <= limit else { throw SystemError.limitExceeded(operation: "read(standard input)", limit: limit) }
        return chunk
    }

    /// Reads until `count` bytes are pending or the input ends.
    private func fill(_ count: Int) throws {
        while !ended && pending.count < count {
            switch try descriptor.readAvailable(max: max(64 << 10, count - pending.count)) {
            case .data(let bytes): pending += bytes
            case .endOfFile: ended = true
            case .wouldBlock: _ = try Poller.wait(PollRequest(descriptor, .readable), timeoutMilliseconds: nil)
            }
        }
    }
}
