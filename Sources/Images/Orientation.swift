// SPDX-License-Identifier: Apache-2.0
extension PixelImage {
    /// The picture turned upright according to an EXIF orientation (1 upright; 2 mirrored; 3 turned 180°;
    /// 4 flipped; 5 transposed; 6 turned 90° clockwise to be upright; 7 transversed; 8 turned 90°
    /// anticlockwise), as viewers show it.
    public func oriented(_ orientation: Int) -> PixelImage {
        guard (2...8).contains(orientation) else { return self }
        let swaps = orientation >= 5
        let outWidth = swaps ? height : width, outHeight = swaps ? width : height
        let w = width, h = height
        let out = [UInt32](unsafeUninitializedCapacity: w * h) { output, initialized in
            pixels.withUnsafeBytes { raw in
                let input = raw.bindMemory(to: UInt32.self)
                for y in 0..<outHeight {
                    for x in 0..<outWidth {
                        // The source pixel shown at (x, y).
                        let (sx, sy): (Int, Int)
                        switch orientation {
                        case 2: (sx, sy) = (w - 1 - x, y)
                        case 3: (sx, sy) = (w - 1 - x, h - 1 - y)
                        case 4: (sx, sy) = (x, h - 1 - y)
                        case 5: (sx, sy) = (y, x)
                        case 6: (sx, sy) = (y, h - 1 - x)
                        case 7: (sx, sy) = (w - 1 - y, h - 1 - x)
                        default: (sx, sy) = (w - 1 - y, x)
                        }
                        output[y * outWidth + x] = input[sy * w + sx]
                    }
                }
            }
            initialized = w * h
        }
        let bytes = out.withUnsafeBytes { Array($0) }
        return PixelImage(width: outWidth, height: outHeight, pixels: bytes, fromLossySource: fromLossySource)
    }
}
