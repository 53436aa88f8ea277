// SPDX-License-Identifier: Apache-2.0
import CImageShims
import Images

/// The image libraries, each opened by its SONAME on its first use in the process (CImageShims), so that
/// neither pb nor pasteboardd loads them at start-up: a table of each one's functions. Any thread may ask
/// at any time (the opening happens once); a library that is missing or lacks a function refuses the
/// conversion with the reason and the package to install, now and on every later call.
enum ImageLibraries {
    static func spng() throws(ImageError) -> pbi_spng { try table(pbi_spng_load, "libspng", package: "libspng0") }
    static func zlib() throws(ImageError) -> pbi_zlib { try table(pbi_zlib_load, "zlib", package: "zlib1g") }
    static func deflate() throws(ImageError) -> pbi_deflate { try table(pbi_deflate_load, "libdeflate", package: "libdeflate0") }
    static func turboJPEG() throws(ImageError) -> pbi_turbojpeg { try table(pbi_turbojpeg_load, "TurboJPEG", package: "libturbojpeg0") }
    static func webp() throws(ImageError) -> pbi_webp { try table(pbi_webp_load, "libwebp", package: "libwebp7") }
    static func gif() throws(ImageError) -> pbi_gif { try table(pbi_gif_load, "giflib", package: "libgif7") }
    static func tiff() throws(ImageError) -> pbi_tiff { try table(pbi_tiff_load, "libtiff", package: "libtiff6") }

    private static func table<Table>(_ load: (UnsafeMutablePointer<UnsafePointer<CChar>?>) -> UnsafePointer<Table>?, _ name: String,
                                     package: String) throws(ImageError) -> Table {
        var failure: UnsafePointer<CChar>? = nil
        guard let table = load(&failure) else {
            throw ImageError("\(name) cannot be loaded (\(failure.map { String(cString: $0) } ?? "unknown")): install \(package)")
        }
        return table.pointee
    }
}
