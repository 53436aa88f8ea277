// SPDX-License-Identifier: Apache-2.0
import CLISupport
import Pasteboard
import RichText
import SystemSupport

/// `pb convert`: documents between txt, rtf, html, rtfd (flat) and rtfd-dir, like macOS textutil.
extension Runner {
    static let maximumDocumentBytes = 512 << 20

    func convert(_ request: ConvertRequest) -> ExitCode {
        if request.to.flatMap(Self.imageType(named:)) != nil || request.from.flatMap(Self.imageType(named:)) != nil {
            return convertImage(request, input: nil)
        }
        let to: DocumentFormat?
        do {
            to = try request.to.map { try Self.format(named: $0) }
        } catch {
            return usage(error)
        }
        // Read the input: a file, a bundle directory, or standard input.
        var from: DocumentFormat
        var input: [UInt8]
        do {
            let named = try request.from.map { try Self.format(named: $0) }
            if let path = request.inputPath, path != "-" {
                let isDirectory = (try? FileSystem.status(path).kind) == .directory
                from = named ?? (isDirectory ? .rtfdDirectory : Self.format(forPath: path) ?? .txt)
                if from == .rtfdDirectory {
                    input = try RTFDBundleFiles.read(directoryPath: path)
                    from = .rtfd
                } else {
                    input = try FileSystem.readFile(path, limit: Self.maximumDocumentBytes)
                    if named == nil && Self.format(forPath: path) == nil { from = Self.sniff(input) }
                }
            } else {
                guard named != .rtfdDirectory else {
                    return fail("an RTFD bundle directory is read from a path, not standard input", .usage)
                }
                input = try FileDescriptor.standardInput.readToEnd(limit: Self.maximumDocumentBytes)
                from = named ?? Self.sniff(input)
            }
        } catch let error as UsageError {
            return usage(error)
        } catch {
            return fail("cannot read the input: \(error)")
        }

        if request.from == nil && PasteboardType.imageType(of: input) != nil {
            return convertImage(request, input: input)
        }
        if request.info {
            do {
                Output.line(try RichTextConverter.info(input, format: from, codePages: CodePageFunction.system))
                return .success
            } catch {
                return fail("\(error)")
            }
        }
        guard let to else { return fail("convert needs --to FORMAT", .usage) }
        do {
            let target: DocumentFormat = to == .rtfdDirectory ? .rtfd : to
            let output = try RichTextConverter.convert(input, from: from, to: target, codePages: CodePageFunction.system,
                                                       pictures: ConversionServices.system.pictures)
            for warning in output.warnings.prefix(20) { Output.error("\(programName) convert: warning: \(warning)") }
            if output.warnings.count > 20 { Output.error("\(programName) convert: \(output.warnings.count - 20) more warnings") }
            if to == .rtfdDirectory {
                guard let path = request.outputPath else {
                    return fail("--to rtfd-dir writes a directory: give it with -o DIRECTORY", .usage)
                }
                try RTFDBundleFiles.write(flatRTFD: output.bytes, toDirectoryPath: path)
            } else if let path = request.outputPath, path != "-" {
                try AtomicFile.write(output.bytes, to: path, mode: 0o644)
            } else {
                try Output.write(output.bytes)
            }
            return .success
        } catch {
            return fail("\(error)")
        }
    }

    /// Pictures: any format pasteboard reads (PNG, JPEG, GIF, BMP, TIFF, WebP, known by their content) to
    /// any it writes (all but GIF), through the library's image codecs; `--info` prints the format and size.
    func convertImage(_ request: ConvertRequest, input given: [UInt8]?) -> ExitCode {
        let input: [UInt8]
        do {
            if let given {
                input = given
            } else if let path = request.inputPath, path != "-" {
                input = try FileSystem.readFile(path, limit: Self.maximumDocumentBytes)
            } else {
                input = try FileDescriptor.standardInput.readToEnd(limit: Self.maximumDocumentBytes)
            }
        } catch {
            return fail("cannot read the input: \(error)")
        }
        guard let source = PasteboardType.imageType(of: input) else {
            return fail("the input is not a PNG, JPEG, GIF, BMP, TIFF or WebP picture")
        }
        if request.info {
            guard let summary = ImageSummary(input) else { return fail("the \(source) header cannot be read") }
            Output.line("Format: \(source)\nSize: \(input.count) bytes\nPixels: \(summary.width) × \(summary.height)")
            return .success
        }
        guard let name = request.to else { return fail("convert needs --to FORMAT", .usage) }
        guard let target = Self.imageType(named: name), ConversionTable.standard.plan(producing: target, from: [source]) != nil else {
            return fail("a picture converts to png, jpeg, bmp, tiff or webp, not '\(name)'", .usage)
        }
        do {
            let output = try ConversionTable.standard.convert(input, from: source, to: target)
            if let path = request.outputPath, path != "-" {
                try AtomicFile.write(output.data, to: path, mode: 0o644)
            } else {
                try Output.write(output.data)
            }
            return .success
        } catch let error as TypedReadError {
            return fail("\(error)", .conversionFailed)
        } catch {
            return fail("\(error)")
        }
    }

    /// The image type a format name names (`png`, `jpeg`, `jpg`, `bmp`, `tiff`, `webp`, `gif`, or a MIME type).
    static func imageType(named name: String) -> PasteboardType? {
        guard let type = PasteboardType.named(name), ConversionTable.standard.family(of: type) == .image else { return nil }
        return type
    }

    private func usage(_ error: Error) -> ExitCode {
        fail("\(error)", .usage)
    }

    /// Format names users type (textutil's, plus a few obvious ones).
    static func format(named name: String) throws(UsageError) -> DocumentFormat {
        switch name.lowercased() {
        case "txt", "text", "plain": return .txt
        case "rtf": return .rtf
        case "html", "htm": return .html
        case "rtfd", "flat-rtfd", "com.apple.flat-rtfd": return .rtfd
        case "rtfd-dir", "rtfd-bundle": return .rtfdDirectory
        default: throw UsageError("unknown format '\(name)' (txt, rtf, html, rtfd, rtfd-dir)", command: "convert")
        }
    }

    /// The format a file name's extension names, or nil.
    static func format(forPath path: String) -> DocumentFormat? {
        guard let dot = path.lastIndex(of: "."), !path[dot...].contains("/") else { return nil }
        switch path[path.index(after: dot)...].lowercased() {
        case "txt", "text": return .txt
        case "rtf": return .rtf
        case "html", "htm", "xhtml": return .html
        case "rtfd": return .rtfd
        default: return nil
        }
    }

    /// The format the bytes look like: flat RTFD magic, an RTF header, HTML markup, else text.
    static func sniff(_ bytes: [UInt8]) -> DocumentFormat {
        if bytes.starts(with: Array("rtfd".utf8) + [0, 0, 0, 0]) { return .rtfd }
        let head = String(decoding: bytes.prefix(512), as: UTF8.self).lowercased()
        let trimmed = head.drop { $0 == " " || $0 == "\n" || $0 == "\r" || $0 == "\t" || $0 == "\u{FEFF}" }
        if trimmed.hasPrefix("{\\rtf") { return .rtf }
        if trimmed.hasPrefix("<!doctype html") || trimmed.hasPrefix("<html") || trimmed.hasPrefix("<meta")
            || (trimmed.hasPrefix("<") && (head.contains("</") || head.contains("<br"))) { return .html }
        return .txt
    }
}

/// What pbcopy needs from the rich-text engine.
enum RichTextBridge {
    /// The plain text of an RTF document, as UTF-8, or nil when it cannot be read.
    static func plainText(fromRTF rtf: [UInt8]) -> [UInt8]? {
        try? RichTextConverter.convert(rtf, from: .rtf, to: .txt, codePages: CodePageFunction.system).bytes
    }
}

