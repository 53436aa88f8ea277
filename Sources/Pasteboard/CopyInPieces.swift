// SPDX-License-Identifier: Apache-2.0
import ControlProtocol
import SystemSupport

/// Bytes read as they come, whose length is known only at their end: a pipe (`producer | pb copy`).
public protocol ByteStream: AnyObject {
    /// Up to `maximum` (at least 1) more bytes, waiting for them if need be; empty at the end. Throws the read's
    /// error.
    func read(maximum: Int) throws -> [UInt8]
}

/// One representation of an item written with `Pasteboard.setItem(streaming:options:)`: bytes known (in memory,
/// or in a source such as a file, read a chunk at a time), or read from a stream to its end.
public enum StreamedRepresentation {
    case whole(Representation)
    case stream(PasteboardType, any ByteStream)

    public var type: PasteboardType {
        switch self {
        case .whole(let representation): representation.type
        case .stream(let type, _): type
        }
    }
}

/// Why a copy in pieces could not go that way (`DaemonClient.copyInPieces`).
enum CopyInPiecesError: Error {
    /// The daemon is older than `beginCopy` (it answered `badRequest` for an unknown kind): nothing was sent but
    /// the begin; send the copy whole instead.
    case notSpoken
    /// A stream could not be read; the copy was cut short (the daemon keeps nothing of it).
    case unreadable(any Error)
}

extension DaemonClient {
    /// How many bytes each `copyChunk` carries.
    static let copyChunkBytes = 256 << 10

    /// Sends `representations` as one item to `pasteboard` in pieces — `beginCopy`, `copyChunk`s of
    /// `copyChunkBytes`, `commitCopy` (docs/protocol.md) — reading each stream as it goes, so no more than a chunk
    /// of it is held; returns the commit's answer. `progress` is told the bytes sent so far (and the total, when
    /// no stream is among them). A failure the daemon answers mid-way (over its cap) is thrown as soon as it
    /// arrives, and the rest is not sent. Throws `CopyInPiecesError.notSpoken` when the daemon does not know
    /// `beginCopy`, having sent nothing else.
    func copyInPieces(_ representations: [StreamedRepresentation], pasteboard: String, options: CopyOptions,
                      expiresAfterMilliseconds: UInt64, progress: ((Int, Int?) -> Void)?) throws -> ControlResponse {
        let begin = ControlRequest.beginCopy(pasteboard: pasteboard, types: representations.map(\.type.rawValue), options: options,
                                             expiresAfterMilliseconds: expiresAfterMilliseconds)
        if let refusal = Self.refusal(of: { () throws(DaemonClientError) in _ = try send(begin) }) {
            if case .daemon(code: .badRequest, let message) = refusal, message.hasPrefix("unknown request kind") {
                throw CopyInPiecesError.notSpoken
            }
            throw refusal
        }
        var total: Int? = 0
        for representation in representations {
            if case .whole(let whole) = representation, let sum = total { total = sum + whole.byteCount } else { total = nil }
        }
        var sent = 0
        func post(_ index: Int, _ chunk: [UInt8]) throws {
            if let failure = Self.refusal(of: { () throws(DaemonClientError) in try postChunk(index, chunk) }) { throw failure }
            sent += chunk.count
            progress?(sent, total)
        }
        for (index, representation) in representations.enumerated() {
            switch representation {
            case .whole(let whole):
                var offset = 0
                while offset < whole.byteCount {
                    let end = min(whole.byteCount, offset + Self.copyChunkBytes)
                    let chunk: [UInt8]
                    if let source = whole.source {
                        do { chunk = try source.read(offset..<end) } catch { throw CopyInPiecesError.unreadable(error) }
                    } else {
                        chunk = Array(whole.data[offset..<end])
                    }
                    try post(index, chunk)
                    offset = end
                }
            case .stream(_, let stream):
                while true {
                    let chunk: [UInt8]
                    do { chunk = try stream.read(maximum: Self.copyChunkBytes) } catch { throw CopyInPiecesError.unreadable(error) }
                    if chunk.isEmpty { break }
                    try post(index, chunk)
                }
            }
        }
        var answer: ControlResponse = .ok
        if let failure = Self.refusal(of: { () throws(DaemonClientError) in answer = try send(.commitCopy, timeoutMilliseconds: 30_000) }) {
            throw failure
        }
        return answer
    }

    /// Posts one chunk; throws the daemon's refusal of the copy if one has arrived meanwhile (it answers mid-way
    /// only to refuse: the rest is then not sent).
    private func postChunk(_ index: Int, _ chunk: [UInt8]) throws(DaemonClientError) {
        try post(.copyChunk(representation: UInt16(index), data: chunk))
        guard let answer = try answerArrived() else { return }
        if case .error(let code, let message) = answer { throw .daemon(code: code, message: message) }
        throw .protocolFailure("unexpected answer while a copy was sent: \(answer.kind)")
    }

    /// What `body` threw, or nil.
    private static func refusal(of body: () throws(DaemonClientError) -> Void) -> DaemonClientError? {
        do { try body() } catch { return error }
        return nil
    }
}
