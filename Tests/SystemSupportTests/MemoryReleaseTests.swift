// SPDX-License-Identifier: Apache-2.0
import Glibc
import SystemSupport
import XCTest

final class MemoryReleaseTests: XCTestCase {
    /// A scratch buffer's whole pages are given back (they read as zeros after), and the bytes of the pages it
    /// shares with other memory at either end are left as they were.
    func testAScratchBuffersWholePagesAreGivenBackAndItsNeighboursKept() {
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        let block = UnsafeMutableRawBufferPointer.allocate(byteCount: 6 * page, alignment: page)
        defer { block.deallocate() }
        block.initializeMemory(as: UInt8.self, repeating: 0xAB)
        // From 100 bytes into the first page to 100 bytes short of the last: four whole pages between.
        let buffer = UnsafeMutableRawBufferPointer(rebasing: block[100..<(6 * page - 100)])
        MemoryRelease.discardPages(of: buffer)
        let bytes = Array(block)
        XCTAssertTrue(bytes[page..<(5 * page)].allSatisfy { $0 == 0 }, "the four whole pages given back")
        XCTAssertTrue(bytes[0..<page].allSatisfy { $0 == 0xAB }, "the first page is shared with other memory: kept")
        XCTAssertTrue(bytes[(5 * page)...].allSatisfy { $0 == 0xAB }, "the last page likewise")
        MemoryRelease.discardPages(of: UnsafeMutableRawBufferPointer(rebasing: block[10..<20]))
        XCTAssertTrue(block[10..<20].allSatisfy { $0 == 0xAB }, "no whole page: nothing given back")
    }
}
