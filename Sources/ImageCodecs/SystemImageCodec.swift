// SPDX-License-Identifier: Apache-2.0
import Images

/// The image codecs of the system's C libraries behind one door: libspng (PNG), TurboJPEG (JPEG), giflib
/// (GIF, read only), libtiff (TIFF) and libwebp (WebP). BMP is read and written by the pure core
/// (`BMPCodec`). Each library is opened on the first call that needs it (`ImageLibraries`); a missing one is
/// the thrown reason. Every call creates and frees its own library handle, so calls run on any thread at once;
/// nothing is printed (the libraries' messages become the thrown reason).
public struct SystemImageCodec: ImageCodec {
    /// PNG's zlib level: 3, with the Paeth filter, writes a 4K screenshot within 6 % of level 6's size in about
    /// half its time (docs/performance.md).
    public var pngCompressionLevel: Int32 = 3

    public init() {}

    public func decode(_ bytes: [UInt8], format: ImageFormat, limits: ImageLimits) throws(ImageError) -> PixelImage {
        switch format {
        case .png: return try PNG.decode(bytes, limits: limits)
        case .jpeg: return try JPEG.decode(bytes, limits: limits)
        case .gif: return try GIF.decode(bytes, limits: limits)
        case .tiff: return try TIFF.decode(bytes, limits: limits)
        case .webp: return try WebP.decode(bytes, limits: limits)
        case .bmp: return try BMPCodec.decode(bytes, limits: limits)
        }
    }

    public func encode(_ image: consuming PixelImage, format: ImageFormat, settings: ImageEncodeSettings) throws(ImageError) -> [UInt8] {
        switch format {
        case .png: return try PNG.encode(image, compressionLevel: pngCompressionLevel)
        case .jpeg: return try JPEG.encode(image, quality: settings.quality, fullChroma: settings.fullChroma)
        case .tiff: return try TIFF.encode(image)
        case .webp: return try WebP.encode(consume image, settings: settings)
        case .bmp: return try BMPCodec.encode(image)
        case .gif: throw ImageError("GIF is read, not written")
        }
    }

    /// To JPEG: 8-bit RGB and RGBA PNGs that are not interlaced, decoded and encoded on two threads at once
    /// (`PNGToJPEG`). To BMP: 8-bit RGB PNGs that are not interlaced, decoded straight into the bitmap's rows.
    public func convertPNG(_ bytes: [UInt8], to format: ImageFormat, limits: ImageLimits,
                           settings: ImageEncodeSettings) throws(ImageError) -> [UInt8]? {
        switch format {
        case .jpeg: return try PNGToJPEG.convert(bytes, limits: limits, quality: settings.quality, fullChroma: settings.fullChroma)
        case .bmp: return try PNG.decodeToBMP(bytes, limits: limits)
        default: return nil
        }
    }
}

/// Appends what a library writes through a callback (libspng's stream, libtiff's client I/O).
final class ByteSink {
    var bytes: [UInt8] = []
    var position = 0

    func write(_ source: UnsafeRawPointer, _ count: Int) {
        let chunk = UnsafeRawBufferPointer(start: source, count: count)
        if position == bytes.count {
            bytes.append(contentsOf: chunk)
        } else {
            let overlap = min(count, bytes.count - position)
            bytes.replaceSubrange(position..<(position + overlap), with: chunk)
        }
        position += count
    }
}
