// SPDX-License-Identifier: Apache-2.0
/// One baseline JPEG from JPEGs of horizontal strips of a picture, joined with restart markers, so that strips
/// can be encoded as their rows arrive (the PNG decoder hands rows to the JPEG encoder on another thread).
///
/// A restart marker resets what a JPEG's entropy-coded data carries from one block to the next (the DC
/// predictions), and the encoder pads the bits before it as it pads them before the end: so the data of a
/// strip encoded on its own is exactly the data of that restart interval in the whole picture. The joined
/// file is the first strip's headers with the picture's height in SOF and a DRI marker (restart interval = the
/// MCUs of one strip), then each strip's data followed by RST0…RST7 in turn, then EOI. It decodes to the
/// pixels a single encoding gives, as long as the strips are whole MCU rows (8 pixel rows at 4:4:4, 16 at
/// 4:2:0) and were encoded with the same settings (so their quantisation and Huffman tables are the same).
public enum JPEGStrips {
    /// Joins `strips` (top to bottom, each a complete baseline JPEG from one encoder, every strip but the last
    /// `mcusPerStrip` MCUs) into a picture `height` rows tall.
    public static func join(_ strips: [[UInt8]], height: Int, mcusPerStrip: Int) throws(ImageError) -> [UInt8] {
        guard let first = strips.first else { throw ImageError("no JPEG strips to join") }
        if strips.count == 1 { return first }
        guard (1...0xFFFF).contains(mcusPerStrip), (1...0xFFFF).contains(height) else {
            throw ImageError("JPEG strips of \(mcusPerStrip) MCUs cannot be joined")
        }
        var output: [UInt8] = []
        output.reserveCapacity(strips.reduce(0) { $0 + $1.count } + strips.count * 2)
        for (index, strip) in strips.enumerated() {
            let parts = try split(strip)
            if index == 0 {
                var headers = Array(strip[0..<parts.scanStart])
                headers[parts.frameHeight] = UInt8(height >> 8)
                headers[parts.frameHeight + 1] = UInt8(height & 0xFF)
                output += headers
                output += [0xFF, 0xDD, 0, 4, UInt8(mcusPerStrip >> 8), UInt8(mcusPerStrip & 0xFF)]   // DRI
                output += strip[parts.scanStart..<parts.dataStart]
            } else {
                output += [0xFF, 0xD0 + UInt8((index - 1) % 8)]   // RSTn
            }
            output += strip[parts.dataStart..<(strip.count - 2)]
        }
        output += [0xFF, 0xD9]
        return output
    }

    /// Where a baseline JPEG's SOF height, its SOS segment and its entropy-coded data start (the data runs
    /// to the EOI at the very end).
    static func split(_ jpeg: [UInt8]) throws(ImageError) -> (frameHeight: Int, scanStart: Int, dataStart: Int) {
        let malformed = ImageError("a JPEG strip is not a baseline JPEG ending in EOI")
        guard jpeg.count >= 4, jpeg[0] == 0xFF, jpeg[1] == 0xD8, jpeg[jpeg.count - 2] == 0xFF, jpeg[jpeg.count - 1] == 0xD9 else {
            throw malformed
        }
        var offset = 2
        var frameHeight: Int? = nil
        while offset + 4 <= jpeg.count {
            guard jpeg[offset] == 0xFF else { throw malformed }
            let marker = jpeg[offset + 1]
            let length = Int(jpeg[offset + 2]) << 8 | Int(jpeg[offset + 3])
            guard length >= 2, offset + 2 + length <= jpeg.count else { throw malformed }
            switch marker {
            case 0xC0, 0xC1:   // SOF0, SOF1: P, then Y (the height)
                guard length >= 8 else { throw malformed }
                frameHeight = offset + 5
            case 0xC2...0xCF where marker != 0xC4 && marker != 0xC8 && marker != 0xCC:
                throw malformed   // progressive, lossless or arithmetic: not joined
            case 0xDD:
                throw malformed   // restart markers of its own
            case 0xDA:
                guard let frameHeight else { throw malformed }
                return (frameHeight, offset, offset + 2 + length)
            default:
                break
            }
            offset += 2 + length
        }
        throw malformed
    }
}
