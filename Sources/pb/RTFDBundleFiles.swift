// SPDX-License-Identifier: Apache-2.0
import RichText
import SystemSupport

/// RTFD bundle directories on disk (`Name.rtfd/` holding `TXT.rtf` and attachment files), read into and
/// written from flat RTFD through SystemSupport; `RTFDBundle` in RichText does the pure part.
enum RTFDBundleFiles {
    /// Reads a bundle directory into flat RTFD bytes. Regular files directly inside it are included;
    /// subdirectories, other kinds of file and dot files are skipped. Keeps to the flat-RTFD limits on the
    /// number of files and their total size before reading them.
    static func read(directoryPath: String) throws -> [UInt8] {
        guard (try? FileSystem.status(directoryPath).kind) == .directory else {
            throw RichTextError(.io, format: "RTFD bundle", "\(directoryPath) is not a directory")
        }
        let names: [String]
        do { names = try FileSystem.listDirectory(directoryPath) } catch {
            throw RichTextError(.io, format: "RTFD bundle", "cannot list \(directoryPath): \(error)")
        }
        guard names.count <= FlatRTFD.maximumEntries else {
            throw RichTextError(.limitExceeded, format: "RTFD bundle", "\(names.count) files is over the limit")
        }
        var files: [(name: String, bytes: [UInt8])] = []
        var total = 0
        for name in names where !name.hasPrefix(".") {
            let path = directoryPath + "/" + name
            guard let status = try? FileSystem.status(path), status.kind == .regular else { continue }
            total += Int(status.size)
            guard total <= FlatRTFD.maximumSize else {
                throw RichTextError(.limitExceeded, format: "RTFD bundle", "files larger than \(FlatRTFD.maximumSize) bytes in total")
            }
            do { files.append((name, try FileSystem.readFile(path, limit: FlatRTFD.maximumSize))) } catch {
                throw RichTextError(.io, format: "RTFD bundle", "cannot read \(path): \(error)")
            }
        }
        return try RTFDBundle.flatRTFD(files: files, directoryPath: directoryPath)
    }

    /// Writes flat RTFD bytes as a bundle directory, names sanitised (no `/`, `..`, NUL, empty).
    /// Creates the directory (and parents) if needed; existing files of the same names are replaced.
    static func write(flatRTFD: [UInt8], toDirectoryPath directoryPath: String) throws {
        let files = try RTFDBundle.files(fromFlatRTFD: flatRTFD)
        do { try FileSystem.createDirectory(directoryPath, mode: 0o755, intermediate: true) } catch {
            throw RichTextError(.io, format: "RTFD bundle", "cannot create \(directoryPath): \(error)")
        }
        for file in files {
            let path = directoryPath + "/" + file.name
            do { try AtomicFile.write(file.bytes, to: path, mode: 0o644) } catch {
                throw RichTextError(.io, format: "RTFD bundle", "cannot write \(path): \(error)")
            }
        }
    }
}
