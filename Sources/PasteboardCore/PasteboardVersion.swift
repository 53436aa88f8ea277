/// The version of pasteboard's programs and library.
public enum PasteboardVersion {
    public static let string = "0.1.0"
}
