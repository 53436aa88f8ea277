// SPDX-License-Identifier: Apache-2.0
/// The policy between decoders and encoders: what is checked before decoding, what happens to the pixels,
/// and how each format is written.
///
/// - The pixel cap is checked from the header (`ImageHeader`) before any decoder runs, and again by each
///   decoder from its own reading of the header.
/// - JPEG's EXIF orientation is applied (the pixels come out as viewers show them).
/// - JPEG and BMP (24-bit) have no alpha: a picture with transparency is flattened onto white first.
/// - WebP is written lossless when the picture came from a lossless source and lossy (quality 90) when it
///   came from JPEG or lossy WebP, or has more than 16 Mi pixels (the lossless encoder's memory). JPEG is written at quality 90, with colour at full resolution (4:4:4) for
///   pictures from lossless sources — screenshots, whose coloured edges and text 4:2:0 smears (a test
///   screenshot: 51 dB against 27 dB, for 1.6 times the bytes) — and 4:2:0 for pictures that were lossy already.
public enum ImageTranscoder {
    public static let jpegQuality = 90
    /// The largest picture written as lossless WebP (16 Mi pixels: a 5K screen); libwebp's lossless encoder
    /// needs three to four times the picture's pixel bytes besides the picture, so larger pictures are written lossy.
    public static let losslessWebPMaximumPixels = 16 << 20

    /// Decodes any picture pasteboard reads.
    public static func decode(_ bytes: [UInt8], codec: any ImageCodec, limits: ImageLimits) throws(ImageError) -> PixelImage {
        let header = try ImageHeader.read(bytes)
        if header.format != .gif {
            // GIF's logical screen may be 0 × 0 (the decoder then uses the frame's size and checks it).
            try limits.check(width: header.width, height: header.height)
        }
        switch header.format {
        case .bmp:
            return try BMPCodec.decode(bytes, limits: limits)
        case .jpeg:
            return try codec.decode(bytes, format: .jpeg, limits: limits).oriented(header.orientation)
        default:
            return try codec.decode(bytes, format: header.format, limits: limits)
        }
    }

    /// Encodes `image` as `format` by the policy above.
    /// The picture is consumed (lossless WebP writes from its buffer when this was the last copy).
    public static func encode(_ image: consuming PixelImage, as format: ImageFormat, codec: any ImageCodec) throws(ImageError) -> [UInt8] {
        switch format {
        case .gif:
            throw ImageError("GIF is read, not written")
        case .bmp:
            return try BMPCodec.encode(image.isOpaque ? image : image.flattenedOntoWhite())
        case .jpeg:
            return try codec.encode(image.isOpaque ? image : image.flattenedOntoWhite(), format: .jpeg,
                                    settings: ImageEncodeSettings(quality: jpegQuality, lossless: false, fullChroma: !image.fromLossySource))
        default:
            let settings = ImageEncodeSettings(quality: jpegQuality, lossless: !image.fromLossySource
                                               && image.width * image.height <= losslessWebPMaximumPixels)
            return try codec.encode(consume image, format: format, settings: settings)
        }
    }

    /// `bytes` (any format pasteboard reads) as `format`.
    /// PNG → JPEG and PNG → BMP go through the codec's one-pass path when it has one (rows encoded as they are
    /// decoded): a PNG is a lossless source, so JPEG is 4:4:4, and alpha is composited onto white, as `encode` does.
    public static func convert(_ bytes: [UInt8], to format: ImageFormat, codec: any ImageCodec,
                               limits: ImageLimits) throws(ImageError) -> [UInt8] {
        if format == .jpeg || format == .bmp, ImageFormat.sniff(bytes) == .png {
            let header = try ImageHeader.read(bytes)
            try limits.check(width: header.width, height: header.height)
            let settings = ImageEncodeSettings(quality: jpegQuality, lossless: false, fullChroma: true)
            if let converted = try codec.convertPNG(bytes, to: format, limits: limits, settings: settings) { return converted }
        }
        return try encode(try decode(bytes, codec: codec, limits: limits), as: format, codec: codec)
    }
}
