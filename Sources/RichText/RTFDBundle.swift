// SPDX-License-Identifier: Apache-2.0
/// RTFD bundle directories (`Name.rtfd/` holding `TXT.rtf` and attachment files) to and from flat RTFD, as
/// files in memory. RichText does no I/O: the caller lists and reads the directory (skipping subdirectories
/// and dot files, keeping to `FlatRTFD.maximumEntries` and `FlatRTFD.maximumSize`) and writes the files back.
public enum RTFDBundle {
    /// Flat RTFD bytes from the files of a bundle directory (stored in name order, whatever order they come in). `directoryPath` only names the
    /// bundle in errors. Throws if there is no `TXT.rtf` or the files are over the flat-RTFD limits.
    public static func flatRTFD(files: [(name: String, bytes: [UInt8])], directoryPath: String) throws -> [UInt8] {
        guard files.count <= FlatRTFD.maximumEntries else {
            throw RichTextError(.limitExceeded, format: "RTFD bundle", "\(files.count) files is over the limit")
        }
        guard files.reduce(0, { $0 + $1.bytes.count }) <= FlatRTFD.maximumSize else {
            throw RichTextError(.limitExceeded, format: "RTFD bundle", "files larger than \(FlatRTFD.maximumSize) bytes in total")
        }
        guard files.contains(where: { $0.name == "TXT.rtf" }) else {
            throw RichTextError(.malformed, format: "RTFD bundle", "\(directoryPath) has no TXT.rtf")
        }
        return FlatRTFD.serialize(files)
    }

    /// The files to write for flat RTFD bytes: `TXT.rtf` as it is, every other name sanitised
    /// (no `/`, `..`, NUL, empty) and made unique. Throws if the bytes are not flat RTFD.
    public static func files(fromFlatRTFD flatRTFD: [UInt8]) throws -> [(name: String, bytes: [UInt8])] {
        let archive = try FlatRTFD.parse(flatRTFD)
        var used: Set<String> = []
        var files: [(name: String, bytes: [UInt8])] = []
        for file in archive.files {
            let name = file.name == "TXT.rtf" ? "TXT.rtf" : uniqueName(sanitizedName(file.name), used: &used)
            used.insert(name)
            files.append((name, file.bytes))
        }
        return files
    }

    /// A safe file name: `/`, `\`, NUL and control characters become `_`, leading dots are removed, empty becomes
    /// `attachment`, and the UTF-8 length is at most 255 bytes (keeping the extension).
    public static func sanitizedName(_ name: String) -> String {
        var scalars = String.UnicodeScalarView()
        for s in name.unicodeScalars {
            if s == "/" || s == "\\" || s.value < 0x20 || s.value == 0x7F { scalars.append("_") } else { scalars.append(s) }
        }
        var result = String(scalars)
        while result.hasPrefix(".") { result.removeFirst() }
        if result.isEmpty || result == "TXT.rtf" { result = "attachment" + (result.isEmpty ? "" : "-" + result) }
        while result.utf8.count > FlatRTFD.maximumNameLength { result.removeFirst() }
        return result
    }

    /// `name`, or `name 2.ext`, `name 3.ext`, … so that it is not in `used`; inserts the result.
    static func uniqueName(_ name: String, used: inout Set<String>) -> String {
        var candidate = name
        var n = 2
        while used.contains(candidate) {
            if let dot = name.lastIndex(of: "."), dot != name.startIndex {
                candidate = "\(name[..<dot]) \(n)\(name[dot...])"
            } else {
                candidate = "\(name) \(n)"
            }
            n += 1
        }
        used.insert(candidate)
        return candidate
    }
}
