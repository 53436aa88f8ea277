import CLISupport
import SystemSupport

extension Runner {
    func convert(_ request: ConvertRequest) -> ExitCode {
        fail("convert arrives with the rich-text engine")
    }
}

enum RichTextBridge {
    static func plainText(fromRTF rtf: [UInt8]) -> [UInt8]? { nil }
}
