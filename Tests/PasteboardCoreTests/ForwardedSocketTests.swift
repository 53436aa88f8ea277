// SPDX-License-Identifier: Apache-2.0
import PasteboardCore
import XCTest

/// Where pb ssh's forward lives on the host and which one pb there takes (`ForwardedSocket`).
final class ForwardedSocketTests: XCTestCase {
    func testSessionNamesAreSafeFileNamePartsAndPbSSHsAre128RandomBits() {
        let session = ForwardedSocket.session(from: (0x0123_4567_89AB_CDEF, 5))
        XCTAssertEqual(session, "0123456789abcdef0000000000000005")
        XCTAssertEqual(ForwardedSocket.path(session: session), "/tmp/pasteboard-ssh-0123456789abcdef0000000000000005.sock")
        XCTAssertEqual(ForwardedSocket.session(ofFileName: "pasteboard-ssh-\(session).sock"), session)
        XCTAssertEqual(ForwardedSocket.session(ofFileName: "pasteboard-ssh-alice.sock"), "alice", "an ssh_config's %r")
        for name in ["pasteboard-ssh-.sock", "pasteboard-ssh-a/b.sock", "pasteboard-ssh-..sock", "pasteboard-ssh-x.sock.tmp", "other-x.sock",
                     "pasteboard-ssh-" + String(repeating: "a", count: 65) + ".sock", "pasteboard-ssh-é.sock"] {
            XCTAssertNil(ForwardedSocket.session(ofFileName: name), name)
        }
    }

    func testOnlyTheUsersOwnAreTriedThisSessionsFirstThenTheNewest() {
        let own = ForwardedSocket.Candidate(session: "aaaa", isOurs: true, modified: 100)
        let newer = ForwardedSocket.Candidate(session: "bbbb", isOurs: true, modified: 200)
        let foreign = ForwardedSocket.Candidate(session: "cccc", isOurs: false, modified: 300)
        XCTAssertEqual(ForwardedSocket.preferred(among: [own, newer, foreign], session: nil).map(\.session), ["bbbb", "aaaa"])
        XCTAssertEqual(ForwardedSocket.preferred(among: [own, newer, foreign], session: "aaaa").map(\.session), ["aaaa", "bbbb"])
        XCTAssertEqual(ForwardedSocket.preferred(among: [foreign], session: "cccc"), [], "another user's socket, whatever its name")
    }
}
