// SPDX-License-Identifier: Apache-2.0
/// PNG's scanline filters undone (PNG specification §9.2) for 8-bit RGB and RGBA rows.
///
/// libspng undoes the filters one byte at a time and then widens RGB to RGBA pixel by pixel: on a 4K screenshot
/// that was half of its decoding time (docs/performance.md). Here each filter is one loop over the row with the
/// channel counts known, reading the row above from the output (where it already is, reconstructed) and
/// writing each pixel once: RGB as RGB, RGB widened to RGBA (alpha 255) on the way, or RGBA as RGBA.
public enum PNGUnfilter {
    /// Reconstructs one row. `filtered` is the row's bytes after its filter-type byte (`width × channels`);
    /// `previous` is the row above in the output (`width × outputChannels` bytes), nil for the first row;
    /// `output` receives `width × outputChannels` bytes. Each byte of `filtered` is read before any output byte
    /// after it is written, so `filtered` may lie in the output's own buffer (decoding in place) wherever each
    /// pixel is written no further than the bytes read so far (never with `bgr`, which writes a pixel backwards).
    /// Returns false for a filter type other than 0–4 (the output is then unspecified).
    ///
    /// `bgr` writes RGB as BGR (a 24-bit BMP's order; the filters work on each channel alone, so the row above
    /// is read in the same order).
    ///
    /// - Precondition: `width` > 0; (`channels`, `outputChannels`) is (3, 3), (3, 4) or (4, 4); `bgr` only with (3, 3).
    @inlinable
    public static func row(filter: UInt8, filtered: UnsafePointer<UInt8>, previous: UnsafePointer<UInt8>?,
                           output: UnsafeMutablePointer<UInt8>, width: Int, channels: Int, outputChannels: Int,
                           bgr: Bool = false) -> Bool {
        precondition(width > 0, "an empty row")
        switch (channels, outputChannels, bgr) {
        case (3, 3, false): return reconstruct(filter, filtered, previous, output, width, RGB.self)
        case (3, 3, true): return reconstruct(filter, filtered, previous, output, width, BGR.self)
        case (3, 4, false): return reconstruct(filter, filtered, previous, output, width, RGBWidened.self)
        case (4, 4, false): return reconstruct(filter, filtered, previous, output, width, RGBA.self)
        default: preconditionFailure("8-bit RGB to RGB, BGR or RGBA, or RGBA to RGBA, only")
        }
    }

    /// A row's layout as types, so that each `reconstruct` is specialised with its counts as constants (as plain
    /// parameters they were not, and the channel loops ran as loops: a third slower).
    public protocol Layout {
        static var channels: Int { get }
        static var stride: Int { get }
        static var bgr: Bool { get }
    }
    public enum RGB: Layout { public static var channels: Int { 3 }; public static var stride: Int { 3 }; public static var bgr: Bool { false } }
    public enum BGR: Layout { public static var channels: Int { 3 }; public static var stride: Int { 3 }; public static var bgr: Bool { true } }
    public enum RGBWidened: Layout { public static var channels: Int { 3 }; public static var stride: Int { 4 }; public static var bgr: Bool { false } }
    public enum RGBA: Layout { public static var channels: Int { 4 }; public static var stride: Int { 4 }; public static var bgr: Bool { false } }

    /// One loop per filter; `channels`, `stride` and `bgr` are constants in each specialisation, so the channel loops unroll.
    /// A pixel's bytes beyond `channels` in the output (RGB widened) are alpha, 255.
    @inlinable @inline(__always)
    static func reconstruct<L: Layout>(_ filter: UInt8, _ source: UnsafePointer<UInt8>, _ previous: UnsafePointer<UInt8>?,
                                       _ out: UnsafeMutablePointer<UInt8>, _ width: Int, _ layout: L.Type) -> Bool {
        let channels = L.channels, stride = L.stride, bgr = L.bgr
        guard filter <= 4 else { return false }
        // The first row's filters see a row of zeros above: Up is None, Average halves the left (5), Paeth is Sub.
        var effective = filter
        if previous == nil {
            switch filter {
            case 2: effective = 0
            case 3: effective = 5
            case 4: effective = 1
            default: break
            }
        }
        let widened = stride > channels
        // Where channel `c` of a pixel goes in the output.
        @inline(__always) func k(_ c: Int) -> Int { bgr ? 2 - c : c }
        var s = 0, o = 0
        switch effective {
        case 0:   // None
            for _ in 0..<width {
                for c in 0..<channels { out[o + k(c)] = source[s + c] }
                if widened { out[o + 3] = 255 }
                s += channels; o += stride
            }
        case 1:   // Sub: + the pixel to the left
            for c in 0..<channels { out[k(c)] = source[c] }
            if widened { out[3] = 255 }
            s = channels; o = stride
            for _ in 1..<width {
                for c in 0..<channels { out[o + k(c)] = source[s + c] &+ out[o - stride + k(c)] }
                if widened { out[o + 3] = 255 }
                s += channels; o += stride
            }
        case 2:   // Up: + the pixel above
            let up = previous!
            if !widened && !bgr {
                for i in 0..<(width * channels) { out[i] = source[i] &+ up[i] }
                return true
            }
            for _ in 0..<width {
                for c in 0..<channels { out[o + k(c)] = source[s + c] &+ up[o + k(c)] }
                if widened { out[o + 3] = 255 }
                s += channels; o += stride
            }
        case 3:   // Average: + the floor of the mean of left and above
            let up = previous!
            for c in 0..<channels { out[k(c)] = source[c] &+ (up[k(c)] >> 1) }
            if widened { out[3] = 255 }
            s = channels; o = stride
            for _ in 1..<width {
                for c in 0..<channels {
                    out[o + k(c)] = source[s + c] &+ UInt8((UInt16(out[o - stride + k(c)]) + UInt16(up[o + k(c)])) >> 1)
                }
                if widened { out[o + 3] = 255 }
                s += channels; o += stride
            }
        case 4:   // Paeth: + whichever of left, above and upper left is nearest to left + above − upper left
            let up = previous!
            for c in 0..<channels { out[k(c)] = source[c] &+ up[k(c)] }
            if widened { out[3] = 255 }
            s = channels; o = stride
            for _ in 1..<width {
                for c in 0..<channels {
                    let a = Int32(out[o - stride + k(c)]), b = Int32(up[o + k(c)]), d = Int32(up[o - stride + k(c)])
                    let pa = abs(b - d), pb = abs(a - d), pc = abs(a + b - 2 * d)
                    let predictor = pa <= pb && pa <= pc ? a : (pb <= pc ? b : d)
                    out[o + k(c)] = source[s + c] &+ UInt8(truncatingIfNeeded: predictor)
                }
                if widened { out[o + 3] = 255 }
                s += channels; o += stride
            }
        default:  // 5: Average on the first row, the left pixel halved
            for c in 0..<channels { out[k(c)] = source[c] }
            if widened { out[3] = 255 }
            s = channels; o = stride
            for _ in 1..<width {
                for c in 0..<channels { out[o + k(c)] = source[s + c] &+ (out[o - stride + k(c)] >> 1) }
                if widened { out[o + 3] = 255 }
                s += channels; o += stride
            }
        }
        return true
    }
}
