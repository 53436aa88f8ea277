// SPDX-License-Identifier: Apache-2.0
/// Why a picture could not be read or written: one line for people, never the picture's content.
public struct ImageError: Error, Equatable, Sendable, CustomStringConvertible {
    public var reason: String
    public init(_ reason: String) { self.reason = reason }
    public var description: String { reason }

    /// The picture has more pixels than the limit allows (known from its header, before any decoding).
    public static func tooLarge(width: Int, height: Int, limits: ImageLimits) -> ImageError {
        ImageError("\(width) × \(height) pixels is over the limit of \(limits.maximumPixels) pixels")
    }
    public static func truncated(_ format: ImageFormat) -> ImageError { ImageError("the \(format) data is truncated") }
    /// A header field lies past the end of the bytes.
    public static let headerTruncated = ImageError("the header is truncated")
    /// A TIFF's first directory lies (at least partly) past the end of the bytes, or is not there.
    public static let tiffDirectoryMissing = ImageError("the TIFF's first directory is missing or truncated")

    /// Whether the error says the bytes ended too soon: what a complete picture's first bytes alone give when its
    /// header goes on past them.
    public var isTruncation: Bool {
        self == .headerTruncated || self == .tiffDirectoryMissing || ImageFormat.allCases.contains { self == .truncated($0) }
    }
}

/// What a peer's picture may cost: the most pixels decoded (checked from the header, before any
/// allocation for pixels) and the most bytes an ancillary chunk or metadata block may take.
public struct ImageLimits: Equatable, Sendable {
    /// The most pixels (width × height) of one picture. The default, 64 Mi pixels (8192 × 8192, or 16384 ×
    /// 4096), is 256 MiB decoded: twice an 8K screenshot.
    public var maximumPixels: Int
    /// The most bytes of one metadata chunk (PNG ancillary chunks, TIFF tag data).
    public var maximumChunkBytes: Int

    public static let defaultMaximumPixels = 64 << 20

    public init(maximumPixels: Int = ImageLimits.defaultMaximumPixels, maximumChunkBytes: Int = 16 << 20) {
        self.maximumPixels = maximumPixels
        self.maximumChunkBytes = maximumChunkBytes
    }

    /// Throws `tooLarge` unless `width × height` is within the limit (and both are positive).
    public func check(width: Int, height: Int) throws(ImageError) {
        guard width > 0, height > 0 else { throw ImageError("the picture has no pixels (\(width) × \(height))") }
        let (pixels, overflow) = width.multipliedReportingOverflow(by: height)
        if overflow || pixels > maximumPixels { throw .tooLarge(width: width, height: height, limits: self) }
    }
}
