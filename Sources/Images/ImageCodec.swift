// SPDX-License-Identifier: Apache-2.0
/// The C codecs, as the pure core sees them: decoding PNG, JPEG, GIF, TIFF and WebP to pixels and encoding
/// pixels as PNG, JPEG, TIFF and WebP. `ImageCodecs.SystemImageCodec` is the implementation (libspng,
/// TurboJPEG, giflib, libtiff, libwebp); the daemon and the library inject it, as they inject iconv for
/// code pages. Every call stands alone (no shared state), so calls may run on several threads at once.
public protocol ImageCodec: Sendable {
    /// Decodes `bytes`, which sniff as `format` (never BMP, which the pure core reads itself). Checks
    /// the picture's size against `limits` from the library's own reading of the header before it
    /// allocates pixels; throws with a reason for anything it cannot read whole (a truncated file included).
    func decode(_ bytes: [UInt8], format: ImageFormat, limits: ImageLimits) throws(ImageError) -> PixelImage

    /// Encodes `image` as `format` (PNG, JPEG, TIFF or WebP) with `settings`. JPEG ignores alpha: the
    /// caller flattens first. The picture is consumed: an encoder may reuse its pixel buffer as working memory
    /// when nothing else holds it (lossless WebP does), so a caller that passes its last copy saves a copy.
    func encode(_ image: consuming PixelImage, format: ImageFormat, settings: ImageEncodeSettings) throws(ImageError) -> [UInt8]

    /// A PNG as JPEG or BMP in one pass, if this codec can for this PNG: the bytes (JPEG: the pixels) that
    /// encoding the decoded picture composited onto white would give (`PixelImage.flattenOntoWhite`; BMP as
    /// `BMPCodec.encode` writes it), sooner. nil when it cannot (the caller then decodes and encodes); the default.
    func convertPNG(_ bytes: [UInt8], to format: ImageFormat, limits: ImageLimits, settings: ImageEncodeSettings) throws(ImageError) -> [UInt8]?
}

extension ImageCodec {
    public func convertPNG(_ bytes: [UInt8], to format: ImageFormat, limits: ImageLimits,
                           settings: ImageEncodeSettings) throws(ImageError) -> [UInt8]? {
        nil
    }
}

/// How an encoder writes: the policy's choices, in one value.
public struct ImageEncodeSettings: Equatable, Sendable {
    /// JPEG and lossy WebP quality, 1–100.
    public var quality: Int
    /// WebP: lossless (for pictures from lossless sources) or lossy.
    public var lossless: Bool
    /// JPEG: colour at full resolution (4:4:4) rather than halved both ways (4:2:0).
    public var fullChroma: Bool

    public init(quality: Int = 90, lossless: Bool = true, fullChroma: Bool = true) {
        self.quality = quality
        self.lossless = lossless
        self.fullChroma = fullChroma
    }
}
