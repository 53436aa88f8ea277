// SPDX-License-Identifier: Apache-2.0
import Images
import RichText

extension TypeFamily {
    /// Pictures: PNG, JPEG, GIF, BMP, TIFF, WebP — one picture in several encodings.
    public static let image = TypeFamily("image")
}

extension RepresentationFormat {
    public static let png = RepresentationFormat("PNG")
    public static let jpeg = RepresentationFormat("JPEG")
    public static let gif = RepresentationFormat("GIF")
    public static let bmp = RepresentationFormat("BMP")
    public static let tiff = RepresentationFormat("TIFF")
    public static let webp = RepresentationFormat("WebP")

    /// The picture format of an image row's format.
    var imageFormat: ImageFormat? {
        switch self {
        case .png: .png
        case .jpeg: .jpeg
        case .gif: .gif
        case .bmp: .bmp
        case .tiff: .tiff
        case .webp: .webp
        default: nil
        }
    }
}

extension PasteboardType {
    public static let jpeg = PasteboardType("image/jpeg")
    public static let gif = PasteboardType("image/gif")
    public static let bmp = PasteboardType("image/bmp")
    public static let tiff = PasteboardType("image/tiff")
    public static let webp = PasteboardType("image/webp")

    /// The image type `bytes` are, by their magic bytes (`image/png` for a PNG file whatever its name); nil
    /// for anything that is not a picture pasteboard reads.
    public static func imageType(of bytes: [UInt8]) -> PasteboardType? {
        ImageFormat.sniff(bytes).map { PasteboardType($0.mimeType) }
    }
}

extension ConversionTable {
    // MARK: - Images

    /// Pictures, lossless sources first (a plan reads PNG rather than JPEG when an owner offers both):
    /// PNG, TIFF, BMP (with the aliases Wine and older toolkits ask for), WebP, GIF, then JPEG. GIF is read, not written.
    static let imageRows: [TypeRow] = [
        TypeRow(.png, .png, .image),
        TypeRow(.tiff, .tiff, .image),
        TypeRow(.bmp, .bmp, .image),
        TypeRow(PasteboardType("image/x-bmp"), .bmp, .image),
        TypeRow(PasteboardType("image/x-MS-bmp"), .bmp, .image),
        TypeRow(.webp, .webp, .image),
        TypeRow(.gif, .gif, .image),
        TypeRow(.jpeg, .jpeg, .image),
    ]

    /// One converter from every format read to every other format written: decode, apply the policy
    /// (`ImageTranscoder`), encode — one step, so no picture is decoded twice. To JPEG and to 24-bit BMP is
    /// lossy (JPEG's compression; alpha flattened onto white); to PNG, TIFF and WebP keeps every pixel
    /// (faithful: the bytes differ, the picture does not). The codecs come from `ConversionServices.images`.
    static let imageConverters: [Converter] = {
        let read: [RepresentationFormat] = [.png, .tiff, .bmp, .webp, .gif, .jpeg]
        let written: [RepresentationFormat] = [.png, .tiff, .bmp, .webp, .jpeg]
        var converters: [Converter] = []
        for from in read {
            for to in written where to != from {
                let fidelity: Fidelity = to == .jpeg || to == .bmp ? .lossy : .faithful
                let target = to.imageFormat!
                converters.append(Converter(from, to: to, fidelity) { input, services throws(ConversionFailure) in
                    guard let codec = services.images else { throw ConversionFailure("no image codecs are available here") }
                    do throws(ImageError) {
                        return ConverterOutput(try ImageTranscoder.convert(input, to: target, codec: codec, limits: services.imageLimits))
                    } catch {
                        throw ConversionFailure(error.reason)
                    }
                })
            }
        }
        return converters
    }()
}

/// Rich text's pictures through the image codecs: an RTFD's TIFF, BMP, GIF or WebP attachment becomes PNG
/// where RTF or HTML needs it (`RichText.PictureConverter`).
public struct ImagePictures: PictureConverter {
    let codec: any ImageCodec
    let limits: ImageLimits

    public init(codec: any ImageCodec, limits: ImageLimits) {
        self.codec = codec
        self.limits = limits
    }

    public func png(from bytes: [UInt8]) -> [UInt8]? {
        guard let format = ImageFormat.sniff(bytes) else { return nil }
        if format == .png { return bytes }
        return try? ImageTranscoder.convert(bytes, to: .png, codec: codec, limits: limits)
    }
}

/// A picture's type, size and length, for history listings and `pb watch` records.
public struct ImageSummary: Hashable, Sendable, CustomStringConvertible {
    /// The type it was given under (`image/png`).
    public var type: PasteboardType
    /// The size as shown (EXIF orientation applied).
    public var width: Int
    public var height: Int
    /// The length of the representation in bytes.
    public var byteCount: Int

    public init(type: PasteboardType, width: Int, height: Int, byteCount: Int) {
        self.type = type
        self.width = width
        self.height = height
        self.byteCount = byteCount
    }

    /// The summary of `bytes` when they are a picture whose header reads (by magic bytes, whatever its name).
    public init?(_ bytes: [UInt8]) {
        guard let header = try? ImageHeader.read(bytes) else { return nil }
        let size = header.displayedSize
        self.init(type: PasteboardType(header.format.mimeType), width: size.width, height: size.height, byteCount: bytes.count)
    }

    /// "image/png 3840×2160 1234567 bytes".
    public var description: String { "\(type) \(width)×\(height) \(byteCount) bytes" }
}

extension PasteboardContent {
    /// The content's first picture — the first representation of the image family (in item order) whose header
    /// reads — described from its header alone; nil when there is none.
    /// Why `bytes`, offered as a picture, are none that other picture types can be made from (its header
    /// does not read, `ImageHeader.read`), or nil when they are. Cheap: the header only.
    public static func pictureProblem(_ bytes: [UInt8]) -> String? {
        do {
            _ = try ImageHeader.read(bytes)
            return nil
        } catch {
            return "not a picture that can be read (\(error))"
        }
    }

    /// `pictureProblem` of a picture of `count` bytes judged from `head`, its first bytes only: a header that
    /// goes on past them (the bytes end too soon, `ImageError.isTruncation`) is not a problem found — nil — since
    /// the rest may complete it; any other problem is (the magic bytes, a field's value, a marker out of place).
    public static func pictureProblem(_ head: [UInt8], truncatedAt count: Int) -> String? {
        guard head.count < count else { return pictureProblem(head) }
        do {
            _ = try ImageHeader.read(head)
            return nil
        } catch {
            return error.isTruncation ? nil : "not a picture that can be read (\(error))"
        }
    }

    /// The picture types of the content (the table's image family, formats pasteboard reads) whose bytes are
    /// no picture that can be read (`pictureProblem`), with the reason: served as given, never converted.
    public func unreadablePictures(using table: ConversionTable = .standard) -> [PasteboardType: String] {
        var problems: [PasteboardType: String] = [:]
        for type in types where table.family(of: type) == .image && ImageFormat(mimeType: type.rawValue) != nil {
            if let data = data(for: type), let problem = Self.pictureProblem(data) { problems[type] = problem }
        }
        return problems
    }

    public func imageSummary(using table: ConversionTable = .standard) -> ImageSummary? {
        for type in types where table.family(of: type) == .image {
            guard let data = data(for: type), let header = try? ImageHeader.read(data) else { continue }
            let size = header.displayedSize
            return ImageSummary(type: type, width: size.width, height: size.height, byteCount: data.count)
        }
        return nil
    }
}
