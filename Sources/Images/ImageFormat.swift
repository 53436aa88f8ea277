// SPDX-License-Identifier: Apache-2.0
/// The picture formats pasteboard reads (all six) and writes (all but GIF), known by their magic bytes.
public enum ImageFormat: String, CaseIterable, Sendable, CustomStringConvertible {
    case png, jpeg, gif, bmp, tiff, webp

    public var description: String {
        switch self {
        case .png: "PNG"
        case .jpeg: "JPEG"
        case .gif: "GIF"
        case .bmp: "BMP"
        case .tiff: "TIFF"
        case .webp: "WebP"
        }
    }

    /// The MIME type the format is offered under.
    public var mimeType: String { "image/\(rawValue)" }

    /// The usual file extension.
    public var fileExtension: String { self == .jpeg ? "jpg" : rawValue }

    /// Whether pasteboard writes this format (GIF is read only).
    public var isWritable: Bool { self != .gif }

    /// Whether the format keeps every pixel it is given (JPEG does not; WebP as written here does when its
    /// source was lossless).
    public var isLossless: Bool { self != .jpeg }

    /// The format `bytes` are in, by their magic bytes; nil for anything else.
    public static func sniff(_ bytes: [UInt8]) -> ImageFormat? {
        bytes.withUnsafeBufferPointer { sniff($0) }
    }

    static func sniff(_ b: UnsafeBufferPointer<UInt8>) -> ImageFormat? {
        func starts(_ magic: [UInt8], at offset: Int = 0) -> Bool {
            guard b.count >= offset + magic.count else { return false }
            for (index, byte) in magic.enumerated() where b[offset + index] != byte { return false }
            return true
        }
        if starts([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .png }
        if starts([0xFF, 0xD8, 0xFF]) { return .jpeg }
        if starts(Array("GIF87a".utf8)) || starts(Array("GIF89a".utf8)) { return .gif }
        if starts(Array("BM".utf8)) && b.count >= 26 { return .bmp }
        if starts([0x49, 0x49, 0x2A, 0x00]) || starts([0x4D, 0x4D, 0x00, 0x2A]) { return .tiff }
        if starts(Array("RIFF".utf8)) && starts(Array("WEBP".utf8), at: 8) { return .webp }
        return nil
    }

    /// The format a MIME type names (`image/x-ms-bmp` and `image/jpg` included), case-insensitively.
    public init?(mimeType: String) {
        switch mimeType.lowercased() {
        case "image/png": self = .png
        case "image/jpeg", "image/jpg", "image/pjpeg": self = .jpeg
        case "image/gif": self = .gif
        case "image/bmp", "image/x-bmp", "image/x-ms-bmp": self = .bmp
        case "image/tiff", "image/tif": self = .tiff
        case "image/webp": self = .webp
        default: return nil
        }
    }

    /// The format a file name's extension names.
    public init?(fileExtension: String) {
        switch fileExtension.lowercased() {
        case "png": self = .png
        case "jpg", "jpeg", "jpe": self = .jpeg
        case "gif": self = .gif
        case "bmp", "dib": self = .bmp
        case "tif", "tiff": self = .tiff
        case "webp": self = .webp
        default: return nil
        }
    }
}
