// SPDX-License-Identifier: Apache-2.0
import Glibc

/// printf-style messages that C libraries hand to their callbacks (libtiff's error handler gets a format and
/// a `va_list`), made into a Swift string.
public enum CFormat {
    /// The message `format` and `arguments` make, cut at 512 bytes. The corresponding C function is `vsnprintf(3)`.
    public static func string(_ format: UnsafePointer<CChar>, _ arguments: CVaListPointer) -> String {
        var buffer = [CChar](repeating: 0, count: 512)
        let written = buffer.withUnsafeMutableBufferPointer { vsnprintf($0.baseAddress, $0.count, format, arguments) }
        guard written >= 0 else { return String(cString: format) }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
