import Foundation

/// RTFD bundle directories (`Name.rtfd/` holding `TXT.rtf` and attachment files) to and from flat RTFD.
public enum RTFDBundle {
    /// Reads an RTFD bundle directory (TXT.rtf + attachments) into flat RTFD bytes.
    /// Regular files directly inside the directory are included; subdirectories and dot files are skipped.
    public static func read(directoryPath: String) throws -> [UInt8] {
        let manager = FileManager.default
        var isDirectory: ObjCBool = false
        guard manager.fileExists(atPath: directoryPath, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw RichTextError(.io, format: "RTFD bundle", "\(directoryPath) is not a directory")
        }
        let names: [String]
        do {
            names = try manager.contentsOfDirectory(atPath: directoryPath).sorted()
        } catch {
            throw RichTextError(.io, format: "RTFD bundle", "cannot list \(directoryPath): \(error.localizedDescription)")
        }
        guard names.count <= FlatRTFD.maximumEntries else {
            throw RichTextError(.limitExceeded, format: "RTFD bundle", "\(names.count) files is over the limit")
        }
        var files: [(name: String, bytes: [UInt8])] = []
        var total = 0
        for name in names where !name.hasPrefix(".") {
            let path = (directoryPath as NSString).appendingPathComponent(name)
            var childIsDirectory: ObjCBool = false
            guard manager.fileExists(atPath: path, isDirectory: &childIsDirectory), !childIsDirectory.boolValue else { continue }
            let size = (try? manager.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
            total += size
            guard total <= FlatRTFD.maximumSize else {
                throw RichTextError(.limitExceeded, format: "RTFD bundle", "files larger than \(FlatRTFD.maximumSize) bytes in total")
            }
            guard let data = manager.contents(atPath: path) else {
                throw RichTextError(.io, format: "RTFD bundle", "cannot read \(path)")
            }
            files.append((name, Array(data)))
        }
        guard files.contains(where: { $0.name == "TXT.rtf" }) else {
            throw RichTextError(.malformed, format: "RTFD bundle", "\(directoryPath) has no TXT.rtf")
        }
        return FlatRTFD.serialize(files)
    }

    /// Writes flat RTFD bytes as a bundle directory, names sanitised (no `/`, `..`, NUL, empty).
    /// Creates the directory (and parents) if needed; existing files of the same names are replaced.
    public static func write(flatRTFD: [UInt8], toDirectoryPath: String) throws {
        let archive = try FlatRTFD.parse(flatRTFD)
        let manager = FileManager.default
        do {
            try manager.createDirectory(atPath: toDirectoryPath, withIntermediateDirectories: true)
        } catch {
            throw RichTextError(.io, format: "RTFD bundle", "cannot create \(toDirectoryPath): \(error.localizedDescription)")
        }
        var used: Set<String> = []
        for file in archive.files {
            let name = file.name == "TXT.rtf" ? "TXT.rtf" : uniqueName(sanitizedName(file.name), used: &used)
            used.insert(name)
            let path = (toDirectoryPath as NSString).appendingPathComponent(name)
            guard manager.createFile(atPath: path, contents: Data(file.bytes)) else {
                throw RichTextError(.io, format: "RTFD bundle", "cannot write \(path)")
            }
        }
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
