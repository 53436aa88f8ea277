// SPDX-License-Identifier: Apache-2.0
import Images
import RichText
import XTypes

/// How much of its source a conversion keeps.
public enum Fidelity: Int, Comparable, Sendable, CustomStringConvertible {
    /// Nothing is lost or added (Latin-1 → UTF-8).
    case exact
    /// What a reader of the source sees survives (RTF → HTML).
    case faithful
    /// The target gains structure the source never had (plain text → HTML paragraphs). An app that prefers
    /// the target would paste something other than what was copied, so such a step is a plan's last and its
    /// target is listed in TARGETS only when the converter says so.
    case invented
    /// The target cannot hold all of the source (RTF → plain text, UTF-8 → Latin-1).
    case lossy

    public static func < (a: Fidelity, b: Fidelity) -> Bool { a.rawValue < b.rawValue }

    /// What a step costs when plans are compared: the cheapest plan keeps the most.
    var cost: Int {
        switch self {
        case .exact: 0
        case .faithful: 1
        case .invented: 2
        case .lossy: 4
        }
    }

    public var description: String {
        switch self {
        case .exact: "exact"
        case .faithful: "faithful"
        case .invented: "invented"
        case .lossy: "lossy"
        }
    }
}

/// A code-page decoder given as a function: how a door's decoder (glibc's iconv, `SystemSupport.IconvCodePages`)
/// reaches RichText without any module declaring a conformance of a type it does not own.
public struct CodePageFunction: CodePageDecoder {
    private let function: @Sendable ([UInt8], Int) -> String?
    public init(_ function: @escaping @Sendable (_ bytes: [UInt8], _ codePage: Int) -> String?) { self.function = function }
    public func decode(_ bytes: [UInt8], codePage: Int) -> String? { function(bytes, codePage) }
}

/// What converters may use besides their input: system decoders that pure code cannot hold.
public struct ConversionServices {
    /// Decodes the code pages RichText has no tables for (double-byte RTF).
    public var codePages: any CodePageDecoder
    /// COMPOUND_TEXT, when an X connection is at hand.
    public var compoundText: (any CompoundTextCodec)?
    /// The companions a plan's steps read beside their input (`Converter.companion`), by type, as far as
    /// the holder offers them: KDE's cut marker beside a URI list.
    public var companions: [PasteboardType: [UInt8]] = [:]
    /// The image codecs (the C libraries' door, `ImageCodecs.SystemImageCodec`); nil where there are none.
    public var images: (any ImageCodec)?
    /// What a picture may cost to decode (the pixel cap).
    public var imageLimits: ImageLimits

    public init(codePages: any CodePageDecoder = BuiltInCodePages(), compoundText: (any CompoundTextCodec)? = nil,
                images: (any ImageCodec)? = nil, imageLimits: ImageLimits = ImageLimits()) {
        self.codePages = codePages
        self.compoundText = compoundText
        self.images = images
        self.imageLimits = imageLimits
    }
}

extension ConversionServices {
    /// Rich text's pictures through `images` (nil without codecs).
    public var pictures: (any PictureConverter)? { images.map { ImagePictures(codec: $0, limits: imageLimits) } }
}

/// Why a conversion failed: the formats and the converter's reason (never content).
public struct ConversionError: Error, Equatable, Sendable, CustomStringConvertible {
    public var from: RepresentationFormat
    public var to: RepresentationFormat
    public var reason: String

    public init(from: RepresentationFormat, to: RepresentationFormat, reason: String) {
        self.from = from
        self.to = to
        self.reason = reason
    }

    public var description: String { "cannot convert \(from) to \(to): \(reason)" }
}

/// What a converter produced: the bytes, and the type they are served as when it is not the asked-for
/// type itself (`TEXT` is answered as `STRING` or `UTF8_STRING`).
public struct ConverterOutput: Sendable {
    public var data: [UInt8]
    public var servedAs: PasteboardType?

    public init(_ data: [UInt8], servedAs: PasteboardType? = nil) {
        self.data = data
        self.servedAs = servedAs
    }
}

/// One row of converters: from one format to another, how faithfully, and the function that does it.
public struct Converter: Sendable {
    public typealias Function = @Sendable (_ input: [UInt8], _ services: ConversionServices) throws(ConversionFailure) -> ConverterOutput

    public let from: RepresentationFormat
    public let to: RepresentationFormat
    public let fidelity: Fidelity
    /// For an `invented` step: whether its target is listed in TARGETS (RTFD for plain text is, for the apps
    /// that ask for it by name; HTML and RTF are not, because browsers and LibreOffice would prefer them
    /// and paste paragraphs where the user copied lines). Other steps are always listed.
    public let advertised: Bool
    /// The step needs the thread that owns the X connection (COMPOUND_TEXT through Xlib); every other
    /// step may run on a worker thread.
    public let needsCallerThread: Bool
    /// A type the step also reads when the holder offers it, through `ConversionServices.companions`: a
    /// qualifier another type carries (KDE puts "these files were cut" in `application/x-kde-cutselection`,
    /// beside the `text/uri-list` it qualifies).
    public let companion: PasteboardType?
    public let function: Function

    public init(_ from: RepresentationFormat, to: RepresentationFormat, _ fidelity: Fidelity, advertised: Bool = true,
                needsCallerThread: Bool = false, companion: PasteboardType? = nil, _ function: @escaping Function) {
        self.from = from
        self.to = to
        self.fidelity = fidelity
        self.advertised = fidelity == .invented ? advertised : true
        self.needsCallerThread = needsCallerThread
        self.companion = companion
        self.function = function
    }
}

/// A converter's own failure; the table adds the formats.
public struct ConversionFailure: Error, Sendable {
    public var reason: String
    public init(_ reason: String) { self.reason = reason }
}
