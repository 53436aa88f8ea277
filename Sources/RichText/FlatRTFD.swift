// SPDX-License-Identifier: Apache-2.0
/// Flat RTFD (`com.apple.flat-rtfd`): Apple's serialized `NSFileWrapper` directory holding `TXT.rtf` and attachments.
///
/// Layout (notes §1): `"rtfd" 0`, then a typed value (1 data, 2 list, 3 dictionary, 4 string, 0 nil); integers are
/// 32-bit little-endian; sized bytes are `len` + bytes, or `0x80000000 len pad` + `pad` zeros + bytes when the
/// writer page-aligned a large payload. Dictionaries are `count`, the keys, each value's size, then the values.
/// The reader checks every length and count against the bytes left before allocating and enforces the limits
/// below; hostile input is a `RichTextError`, never a trap.
public enum FlatRTFD {
    public static let maximumSize = 256 << 20
    public static let maximumDepth = 16
    public static let maximumEntries = 10_000
    public static let maximumNameLength = 255

    static let magic: [UInt8] = [0x72, 0x74, 0x66, 0x64]
    static let metadataKey = "."
    static let ignoredKeys: Set<String> = ["__@PreferredName@__", "__@UTF8PreferredName@__"]

    /// The regular files of a flat RTFD, in the order they were stored, plus what was skipped.
    public struct Archive: Equatable, Sendable {
        public var files: [(name: String, bytes: [UInt8])]
        public var warnings: [String]

        public subscript(name: String) -> [UInt8]? { files.first { $0.name == name }?.bytes }

        public static func == (a: Archive, b: Archive) -> Bool {
            a.warnings == b.warnings && a.files.map(\.name) == b.files.map(\.name) && a.files.map(\.bytes) == b.files.map(\.bytes)
        }
    }

    // MARK: - Reading

    /// Parses flat RTFD bytes into files. Subdirectories are skipped with a warning; `TXT.rtf` must be present.
    public static func parse(_ bytes: [UInt8]) throws -> Archive {
        guard bytes.count <= maximumSize else {
            throw RichTextError(.limitExceeded, format: "flat RTFD", "\(bytes.count) bytes is over the \(maximumSize)-byte limit")
        }
        var cursor = Cursor(bytes: bytes, position: 0, end: bytes.count)
        if bytes.starts(with: magic) {
            guard bytes.count >= 8 else { throw RichTextError(.malformed, format: "flat RTFD", "truncated header", offset: 0) }
            guard bytes[4] == 0 && bytes[5] == 0 && bytes[6] == 0 && bytes[7] == 0 else {
                throw RichTextError(.malformed, format: "flat RTFD", "bad version in header", offset: 4)
            }
            cursor.position = 8
        }
        guard case .dictionary(let entries) = try cursor.value(depth: 1) else {
            throw RichTextError(.malformed, format: "flat RTFD", "the root is not a directory", offset: cursor.position)
        }
        if entries.contains(where: { $0.key == ".." }) {
            throw RichTextError(.malformed, format: "flat RTFD", "a single serialized file, not an RTFD directory")
        }
        var archive = Archive(files: [], warnings: [])
        for entry in entries {
            if entry.key == metadataKey || ignoredKeys.contains(entry.key) { continue }
            try validateName(entry.key)
            switch entry.value {
            case .data(let range): archive.files.append((entry.key, Array(bytes[range])))
            case .string(let s): archive.files.append((entry.key, Array(s.utf8)))
            case .dictionary: archive.warnings.append("skipped subdirectory \(entry.key)")
            case .list, .null: archive.warnings.append("skipped entry \(entry.key) of unexpected type")
            }
        }
        guard archive["TXT.rtf"] != nil else {
            throw RichTextError(.malformed, format: "flat RTFD", "no TXT.rtf entry")
        }
        return archive
    }

    /// Rejects names that could escape a directory or are not file names: empty, `.`, `..`, `/`, NUL, too long.
    static func validateName(_ name: String) throws {
        guard !name.isEmpty, name != ".", name != "..", !name.contains("/"), !name.unicodeScalars.contains("\0"),
            name.utf8.count <= maximumNameLength
        else {
            throw RichTextError(.malformed, format: "flat RTFD", "invalid entry name \(name.debugDescription)")
        }
    }

    enum Value {
        case data(Range<Int>)
        case string(String)
        case list([Value])
        case dictionary([(key: String, value: Value)])
        case null
    }

    struct Cursor {
        let bytes: [UInt8]
        var position: Int
        let end: Int

        func error(_ message: String, at offset: Int? = nil) -> RichTextError {
            RichTextError(.malformed, format: "flat RTFD", message, offset: offset ?? position)
        }

        mutating func word() throws -> UInt32 {
            guard end - position >= 4 else { throw error("truncated: a 4-byte word runs past the end") }
            let b = bytes
            let p = position
            position += 4
            return UInt32(b[p]) | UInt32(b[p + 1]) << 8 | UInt32(b[p + 2]) << 16 | UInt32(b[p + 3]) << 24
        }

        mutating func count(minimumBytesEach: Int) throws -> Int {
            let at = position
            let raw = try word()
            guard raw <= UInt32(Int32.max) else { throw error("negative count", at: at) }
            let n = Int(raw)
            guard n <= FlatRTFD.maximumEntries else {
                throw RichTextError(.limitExceeded, format: "flat RTFD", "\(n) entries is over the limit of \(FlatRTFD.maximumEntries)", offset: at)
            }
            guard n * minimumBytesEach <= end - position else { throw error("count \(n) is larger than the data left", at: at) }
            return n
        }

        /// Sized bytes, following the page-padding marker.
        mutating func sized() throws -> Range<Int> {
            let at = position
            var length = try word()
            if length == 0x8000_0000 {
                length = try word()
                let pad = try word()
                guard pad <= UInt32(Int32.max), Int(pad) <= end - position else { throw error("padding runs past the end", at: at) }
                position += Int(pad)
            }
            guard length <= UInt32(Int32.max), Int(length) <= end - position else {
                throw error("length \(length) runs past the end", at: at)
            }
            let range = position..<(position + Int(length))
            position += Int(length)
            return range
        }

        mutating func name() throws -> String {
            let range = try sized()
            guard range.count <= 4096 else { throw error("a key of \(range.count) bytes", at: range.lowerBound) }
            guard let s = String(validating: bytes[range], as: UTF8.self) else {
                throw error("a key that is not UTF-8", at: range.lowerBound)
            }
            return s
        }

        mutating func value(depth: Int) throws -> Value {
            guard depth <= FlatRTFD.maximumDepth else {
                throw RichTextError(.limitExceeded, format: "flat RTFD", "nesting deeper than \(FlatRTFD.maximumDepth)", offset: position)
            }
            let at = position
            switch try word() {
            case 0: return .null
            case 1: return .data(try sized())
            case 4:
                let range = try sized()
                return .string(String(decoding: bytes[range], as: UTF8.self))
            case 2:
                let n = try count(minimumBytesEach: 8)
                let lengths = try (0..<n).map { _ in try word() }
                return .list(try lengths.map { try bounded($0, depth: depth) })
            case 3:
                let n = try count(minimumBytesEach: 12)
                var keys: [String] = []
                var seen: Set<String> = []
                keys.reserveCapacity(n)
                for _ in 0..<n {
                    let keyAt = position
                    let key = try name()
                    guard seen.insert(key).inserted else { throw error("duplicate key \(key.debugDescription)", at: keyAt) }
                    keys.append(key)
                }
                let lengths = try (0..<n).map { _ in try word() }
                var entries: [(key: String, value: Value)] = []
                for (key, length) in zip(keys, lengths) { entries.append((key, try bounded(length, depth: depth))) }
                return .dictionary(entries)
            default:
                throw error("unknown value type", at: at)
            }
        }

        /// Parses one value inside its declared size and moves past it.
        mutating func bounded(_ length: UInt32, depth: Int) throws -> Value {
            guard length <= UInt32(Int32.max), Int(length) <= end - position else {
                throw error("value size \(length) runs past the end")
            }
            var inner = Cursor(bytes: bytes, position: position, end: position + Int(length))
            let value = try inner.value(depth: depth + 1)
            position += Int(length)
            return value
        }
    }

    // MARK: - Writing

    /// Serializes files as flat RTFD: magic, a dictionary with keys in byte order and `"."` metadata last
    /// (mode 0644, the given modification time). Payloads of a page or more are page-aligned as Apple does.
    /// Names must already be valid file names (see `RTFDBundle.sanitizedName`).
    public static func serialize(
        _ files: [(name: String, bytes: [UInt8])], modificationTime: Int32 = 0, pageSize: Int = 4096
    ) -> [UInt8] {
        let sorted = files.sorted { Array($0.name.utf8).lexicographicallyPrecedes(Array($1.name.utf8)) }
        var info: [UInt8] = []
        appendWord(&info, UInt32(sorted.count))
        for file in sorted { appendSized(&info, Array(file.name.utf8)) }
        for _ in sorted { appendWord(&info, 16) }
        for _ in sorted {
            appendWord(&info, UInt32(bitPattern: modificationTime))
            appendWord(&info, 0o644)
            appendWord(&info, 0)
            appendWord(&info, 0)
        }
        let entries = sorted.map { (Array($0.name.utf8), $0.bytes) } + [(Array(metadataKey.utf8), info)]

        var out: [UInt8] = magic + [0, 0, 0, 0]
        appendWord(&out, 3)
        appendWord(&out, UInt32(entries.count))
        for entry in entries { appendSized(&out, entry.0) }
        // Value sizes depend on where each value lands (page padding), so lay them out first.
        var offset = out.count + 4 * entries.count
        var sizes: [Int] = []
        for entry in entries {
            let size = 4 + sizedLength(entry.1.count, sizeWordAt: offset + 4, pageSize: pageSize)
            sizes.append(size)
            offset += size
        }
        for size in sizes { appendWord(&out, UInt32(size)) }
        for entry in entries {
            appendWord(&out, 1)
            appendSized(&out, entry.1, pageSize: pageSize)
        }
        return out
    }

    static func padding(_ length: Int, sizeWordAt offset: Int, pageSize: Int) -> Int? {
        guard pageSize > 0, length >= pageSize, (offset + 4) % pageSize != 0 else { return nil }
        return pageSize - (offset + 12) % pageSize
    }

    static func sizedLength(_ length: Int, sizeWordAt offset: Int, pageSize: Int) -> Int {
        if let pad = padding(length, sizeWordAt: offset, pageSize: pageSize) { return 12 + pad + length }
        return 4 + length
    }

    static func appendWord(_ out: inout [UInt8], _ value: UInt32) {
        out += [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value >> 16 & 0xFF), UInt8(value >> 24)]
    }

    static func appendSized(_ out: inout [UInt8], _ bytes: [UInt8], pageSize: Int = 0) {
        if let pad = padding(bytes.count, sizeWordAt: out.count, pageSize: pageSize) {
            appendWord(&out, 0x8000_0000)
            appendWord(&out, UInt32(bytes.count))
            appendWord(&out, UInt32(pad))
            out += repeatElement(0, count: pad)
        } else {
            appendWord(&out, UInt32(bytes.count))
        }
        out += bytes
    }

    // MARK: - Documents

    /// Reads flat RTFD into a document whose attachments carry the files `\NeXTGraphic` names.
    public static func readDocument(_ bytes: [UInt8], codePages: any CodePageDecoder = BuiltInCodePages()) throws -> ReadResult {
        let archive = try parse(bytes)
        var result = RTFReader.read(archive["TXT.rtf"] ?? [], codePages: codePages)
        result.warnings = archive.warnings + result.warnings
        for p in result.document.paragraphs.indices {
            for r in result.document.paragraphs[p].runs.indices {
                guard var attachment = result.document.paragraphs[p].runs[r].attributes.attachment else { continue }
                if attachment.bytes.isEmpty {
                    if let data = archive[attachment.fileName] {
                        attachment.bytes = data
                    } else {
                        result.warnings.append("attachment \(attachment.fileName) is missing from the RTFD")
                    }
                }
                result.document.paragraphs[p].runs[r].attributes.attachment = attachment
            }
        }
        return result
    }

    /// Writes a document as flat RTFD: `TXT.rtf` with `\NeXTGraphic` references plus one file per attachment
    /// (names sanitised and made unique). Attachments without bytes are dropped with a warning.
    public static func writeDocument(_ document: AttributedDocument) -> ConversionOutput {
        var doc = document
        var files: [(name: String, bytes: [UInt8])] = []
        var used: Set<String> = ["TXT.rtf", "."]
        var warnings: [String] = []
        for p in doc.paragraphs.indices {
            var runs: [TextRun] = []
            for var run in doc.paragraphs[p].runs {
                if var attachment = run.attributes.attachment {
                    guard !attachment.bytes.isEmpty else {
                        warnings.append("dropped attachment \(attachment.fileName): no data")
                        continue
                    }
                    let name = RTFDBundle.uniqueName(RTFDBundle.sanitizedName(attachment.fileName), used: &used)
                    attachment.fileName = name
                    files.append((name, attachment.bytes))
                    run.attributes.attachment = attachment
                }
                runs.append(run)
            }
            doc.paragraphs[p].runs = runs
        }
        let rtf = RTFWriter.write(doc, attachments: .nextGraphic)
        files.insert(("TXT.rtf", rtf.bytes), at: 0)
        return ConversionOutput(bytes: serialize(files), warnings: warnings + rtf.warnings)
    }
}
