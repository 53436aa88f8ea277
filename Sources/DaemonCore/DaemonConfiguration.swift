// SPDX-License-Identifier: Apache-2.0
import ControlProtocol
import Images
import PasteboardCore
import SystemSupport

/// pasteboardd's settings, from `$XDG_CONFIG_HOME/pasteboard/config.json` (documented in
/// pasteboardd.conf(5)). Every key is optional; unknown keys and bad values are errors naming the key.
public struct DaemonConfiguration: Equatable, Sendable {
    /// The most bytes read for one text target, or one that is neither text, rich text nor a picture: as much
    /// as for rich text and pictures, since real copies are that large (a spreadsheet column of 200,000 rows
    /// is 10–30 MB of text; LibreOffice's own format of a document with photos, as large as the photos).
    public var maxTextBytes = 64 << 20
    public var maxImageBytes = 64 << 20
    /// The most bytes read for one rich-text target (RTF, HTML, RTFD): larger than text's, because pictures
    /// travel inside (LibreOffice's RTF of a page with a 2 MB picture is 13 MB).
    public var maxRichTextBytes = 64 << 20
    /// The most pixels of a picture the daemon decodes to convert it (checked from its header first).
    public var maxImagePixels = ImageLimits.defaultMaximumPixels
    public var maxSnapshotBytes = 256 << 20
    public var transferTimeoutMs = 5000
    public var ownerTimeoutMs = 5000
    /// How long a requestor waits for a conversion before it is refused (the conversion goes on and is kept).
    public var conversionTimeoutMs = 10_000
    public var historyLength = 200
    public var historyMaxBytes = 512 << 20
    public var historyDeduplicate = true
    public var recordPrimary = false
    public var syncPrimaryToClipboard = false
    public var enrichRichText = false
    public var ramOnly = false
    public var excludedWindowClasses: [String] = []
    /// Who may read sensitive content (`ReadPolicy`): nobody is refused by default.
    public var readPolicy = ReadPolicy()
    /// The X displays to serve as one pasteboard when no `--display` is given (empty: `$DISPLAY`).
    public var displays: [String] = []
    /// PRIMARY is one across the displays too (GTK clears PRIMARY on deselect, and a terminal loses its
    /// highlight when PRIMARY is taken: per display unless asked).
    public var sharePrimary = false
    /// Whether pasteboardd listens on the remote socket (`remote.sock`, the one forwarded over SSH: docs/remote.md).
    public var remoteSocket = true
    /// The largest request a remote client may send (a copy's whole data), in bytes.
    public var remoteMaxRequestBytes = ControlLimits.defaultMaximumFrameLength
    /// Requests a second each remote client may send on average (bursts of twice that).
    public var remoteRequestsPerSecond = 200

    public init() {}

    public struct ConfigurationError: Error, Equatable, Sendable, CustomStringConvertible {
        public var message: String
        public var description: String { message }
    }

    /// Reads `$XDG_CONFIG_HOME/pasteboard/config.json` (or `~/.config/...`); a missing file is the defaults.
    public static func load(environment: [String: String]) throws(ConfigurationError) -> DaemonConfiguration {
        let path: String
        do { path = try XDGDirectories(environment: environment).config + "/config.json" } catch {
            return DaemonConfiguration()
        }
        guard FileSystem.fileExists(path) else { return DaemonConfiguration() }
        let bytes: [UInt8]
        do { bytes = try FileSystem.readFile(path, limit: 1 << 20) } catch {
            throw ConfigurationError(message: "\(path): cannot read: \(error)")
        }
        return try parse(bytes, path: path)
    }

    /// The snapshot caps as a policy.
    var snapshotPolicy: SnapshotPolicy {
        var policy = SnapshotPolicy(textCap: maxTextBytes, imageCap: maxImageBytes, otherCap: maxTextBytes, snapshotCap: maxSnapshotBytes)
        policy.richTextCap = maxRichTextBytes
        return policy
    }

    /// The image limits as the converters take them.
    var imageLimits: ImageLimits { ImageLimits(maximumPixels: maxImagePixels) }

    /// `readPolicy`: an object with `neverTo` (a list of application names) and `focusedWindowOnly` (true or false).
    private static func readPolicy(_ value: JSONValue, fail: (String) -> ConfigurationError) throws(ConfigurationError) -> ReadPolicy {
        guard case .object(let fields) = value else {
            throw fail("readPolicy must be an object with neverTo (a list of window class names) and focusedWindowOnly (true or false)")
        }
        var policy = ReadPolicy()
        for (key, field) in fields.sorted(by: { $0.key < $1.key }) {
            switch key {
            case "neverTo":
                guard case .array(let elements) = field,
                      case let names = elements.compactMap({ element -> String? in if case .string(let name) = element { name } else { nil } }),
                      names.count == elements.count, names.allSatisfy({ !$0.isEmpty && $0.utf8.count <= 255 }) else {
                    throw fail("readPolicy.neverTo must be a list of window class names")
                }
                policy.neverTo = names
            case "focusedWindowOnly":
                guard case .bool(let flag) = field else { throw fail("readPolicy.focusedWindowOnly must be true or false") }
                policy.focusedWindowOnly = flag
            default:
                throw fail("unknown key \"readPolicy.\(key)\" (neverTo, focusedWindowOnly)")
            }
        }
        return policy
    }

    /// Parses a configuration file's bytes.
    public static func parse(_ bytes: [UInt8], path: String) throws(ConfigurationError) -> DaemonConfiguration {
        func fail(_ message: String) -> ConfigurationError { ConfigurationError(message: "\(path): \(message)") }
        let object: JSONValue
        do { object = try JSONValue.parse(bytes) } catch {
            throw fail("not valid JSON (\(error))")
        }
        guard case .object(let dictionary) = object else { throw fail("the top level must be a JSON object") }
        var config = DaemonConfiguration()
        for (key, value) in dictionary.sorted(by: { $0.key < $1.key }) {
            func integer(_ range: ClosedRange<Int>) throws(ConfigurationError) -> Int {
                guard case .number(let number) = value, number == number.rounded(),
                      number >= Double(range.lowerBound), number <= Double(range.upperBound) else {
                    throw fail("\(key) must be a whole number from \(range.lowerBound) to \(range.upperBound)")
                }
                return Int(number)
            }
            /// A list of non-empty strings of at most `maximumLength` bytes each.
            func strings(maximumLength: Int) throws(ConfigurationError) -> [String] {
                guard case .array(let elements) = value,
                      case let list = elements.compactMap({ element -> String? in
                          if case .string(let name) = element { return name } else { return nil }
                      }),
                      list.count == elements.count, list.allSatisfy({ !$0.isEmpty && $0.utf8.count <= maximumLength }) else {
                    throw fail(key == "displays" ? "displays must be a list of X display names"
                                                 : "\(key) must be a list of window class names")
                }
                return list
            }
            func boolean() throws(ConfigurationError) -> Bool {
                guard case .bool(let flag) = value else {
                    throw fail("\(key) must be true or false")
                }
                return flag
            }
            switch key {
            case "maxTextBytes": config.maxTextBytes = try integer(0...(1 << 30))
            case "maxImageBytes": config.maxImageBytes = try integer(0...(1 << 30))
            case "maxRichTextBytes": config.maxRichTextBytes = try integer(0...(1 << 30))
            case "maxImagePixels": config.maxImagePixels = try integer(1...(1 << 30))
            case "maxSnapshotBytes": config.maxSnapshotBytes = try integer(0...(2 << 30))
            case "transferTimeoutMs": config.transferTimeoutMs = try integer(100...600_000)
            case "ownerTimeoutMs": config.ownerTimeoutMs = try integer(100...600_000)
            case "conversionTimeoutMs": config.conversionTimeoutMs = try integer(100...600_000)
            case "historyLength": config.historyLength = try integer(0...100_000)
            case "historyMaxBytes": config.historyMaxBytes = try integer(0...(64 << 30))
            case "historyDeduplicate": config.historyDeduplicate = try boolean()
            case "recordPrimary": config.recordPrimary = try boolean()
            case "syncPrimaryToClipboard": config.syncPrimaryToClipboard = try boolean()
            case "enrichRichText": config.enrichRichText = try boolean()
            case "ramOnly": config.ramOnly = try boolean()
            case "sharePrimary": config.sharePrimary = try boolean()
            case "displays": config.displays = try strings(maximumLength: 255)
            case "excludedWindowClasses": config.excludedWindowClasses = try strings(maximumLength: 255)
            case "readPolicy": config.readPolicy = try readPolicy(value, fail: fail)
            case "remoteSocket": config.remoteSocket = try boolean()
            case "remoteMaxRequestBytes": config.remoteMaxRequestBytes = try integer(1024...ControlLimits.defaultMaximumFrameLength)
            case "remoteRequestsPerSecond": config.remoteRequestsPerSecond = try integer(1...100_000)
            default:
                throw fail("unknown key \"\(key)\"")
            }
        }
        return config
    }
}
