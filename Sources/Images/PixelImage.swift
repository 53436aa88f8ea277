// SPDX-License-Identifier: Apache-2.0
/// A decoded picture: 8-bit RGBA, straight (not premultiplied) alpha, rows top to bottom, no padding.
///
/// Every decoder produces one and every encoder takes one; the policy (`ImageTranscoder`) works on it in
/// between (orientation, flattening onto white).
public struct PixelImage: Equatable, Sendable {
    public let width: Int
    public let height: Int
    /// `width × height × 4` bytes: R, G, B, A per pixel.
    public var pixels: [UInt8]
    /// The picture came out of a lossy encoding (JPEG, lossy WebP): re-encoding it losslessly would keep
    /// its artefacts at great cost, so lossless-or-lossy choices follow the source.
    public var fromLossySource: Bool

    /// - Precondition: `pixels.count == width × height × 4`.
    public init(width: Int, height: Int, pixels: [UInt8], fromLossySource: Bool = false) {
        precondition(width >= 0 && height >= 0 && pixels.count == width * height * 4, "pixel buffer of the wrong size")
        self.width = width
        self.height = height
        self.pixels = pixels
        self.fromLossySource = fromLossySource
    }

    /// True when every pixel is fully opaque (an encoder may then drop the alpha channel).
    public var isOpaque: Bool {
        pixels.withUnsafeBufferPointer { buffer in
            var index = 3
            while index < buffer.count {
                if buffer[index] != 255 { return false }
                index += 4
            }
            return true
        }
    }

    /// The picture composited onto white: every alpha becomes 255 (for formats without alpha: JPEG,
    /// 24-bit BMP). Colour = (colour × alpha + 255 × (255 − alpha)) / 255, rounded.
    public func flattenedOntoWhite() -> PixelImage {
        var copy = self
        copy.pixels.withUnsafeMutableBufferPointer { buffer in
            if let base = buffer.baseAddress { Self.flattenOntoWhite(base, count: buffer.count / 4) }
        }
        return copy
    }

    /// Composites `count` RGBA pixels at `pixels` onto white in place, as `flattenedOntoWhite()` does (which
    /// calls it; the PNG → JPEG pipeline calls it on each strip of rows).
    public static func flattenOntoWhite(_ pixels: UnsafeMutablePointer<UInt8>, count: Int) {
        var index = 0
        let end = count * 4
        while index < end {
            let alpha = Int(pixels[index + 3])
            if alpha != 255 {
                let white = 255 * (255 - alpha)
                for channel in 0..<3 {
                    pixels[index + channel] = UInt8((Int(pixels[index + channel]) * alpha + white + 127) / 255)
                }
                pixels[index + 3] = 255
            }
            index += 4
        }
    }

    /// The RGB bytes without alpha (3 per pixel), for encoders of opaque pictures.
    public func rgbBytes() -> [UInt8] {
        let count = width * height
        return [UInt8](unsafeUninitializedCapacity: count * 3) { out, initialized in
            pixels.withUnsafeBufferPointer { input in
                for pixel in 0..<count {
                    out[pixel * 3] = input[pixel * 4]
                    out[pixel * 3 + 1] = input[pixel * 4 + 1]
                    out[pixel * 3 + 2] = input[pixel * 4 + 2]
                }
            }
            initialized = count * 3
        }
    }

    /// Undoes premultiplied alpha (libtiff's RGBA interface premultiplies): colour = colour × 255 / alpha.
    public mutating func unpremultiply() {
        pixels.withUnsafeMutableBufferPointer { buffer in
            var index = 0
            while index < buffer.count {
                let alpha = Int(buffer[index + 3])
                if alpha != 255 && alpha != 0 {
                    for channel in 0..<3 {
                        buffer[index + channel] = UInt8(min(255, (Int(buffer[index + channel]) * 255 + alpha / 2) / alpha))
                    }
                }
                index += 4
            }
        }
    }
}
