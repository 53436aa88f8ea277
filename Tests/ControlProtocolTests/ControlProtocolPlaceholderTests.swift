import XCTest

final class ControlProtocolPlaceholderTests: XCTestCase {
    func testPlaceholder() {}
}
