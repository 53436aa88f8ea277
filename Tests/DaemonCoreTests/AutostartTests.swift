// SPDX-License-Identifier: Apache-2.0
@testable import DaemonCore
import XCTest

/// What `pasteboardd --autostart` reads to decide that something else serves: the kernel's table of Unix
/// sockets and `systemctl --user show`. (ActivationTests runs it against real listeners.)
final class AutostartTests: XCTestCase {
    func testOnlyListeningStreamSocketsCount() {
        let table = """
        Num       RefCount Protocol Flags    Type St Inode Path
        0000000000000000: 00000002 00000000 00010000 0001 01 972091 /run/user/1000/pasteboard/control.sock
        0000000000000000: 00000003 00000000 00000000 0001 03 972095 /run/user/1000/pasteboard/connected.sock
        0000000000000000: 00000002 00000000 00010000 0002 01 972099 /run/user/1000/datagram.sock
        0000000000000000: 00000002 00000000 00010000 0001 01 972100 /tmp/with space/control.sock
        0000000000000000: 00000002 00000000 00010000 0001 01 972101 @/tmp/.X11-unix/X0
        0000000000000000: 00000002 00000000 00010000 0001 01 972102
        garbage line
        """
        XCTAssertEqual(Autostart.listeningUnixSockets(table),
                       ["/run/user/1000/pasteboard/control.sock", "/tmp/with space/control.sock", "@/tmp/.X11-unix/X0"])
    }

    func testTheUserUnitIsInChargeWhenEnabledOrActive() {
        let disabled = "Id=pasteboardd.socket\nActiveState=inactive\nUnitFileState=disabled\n\nId=pasteboardd.service\nActiveState=inactive\nUnitFileState=disabled\n"
        XCTAssertNil(Autostart.unitInCharge(systemctlShow: disabled))
        let notInstalled = "Id=pasteboardd.socket\nActiveState=inactive\nUnitFileState=\n\nId=pasteboardd.service\nActiveState=inactive\nUnitFileState=\n"
        XCTAssertNil(Autostart.unitInCharge(systemctlShow: notInstalled))
        XCTAssertEqual(Autostart.unitInCharge(systemctlShow: "Id=pasteboardd.socket\nActiveState=inactive\nUnitFileState=enabled\n\nId=pasteboardd.service\nActiveState=inactive\nUnitFileState=disabled\n"),
                       "the systemd user unit pasteboardd.socket is enabled")
        XCTAssertEqual(Autostart.unitInCharge(systemctlShow: "Id=pasteboardd.socket\nActiveState=inactive\nUnitFileState=disabled\n\nId=pasteboardd.service\nActiveState=activating\nUnitFileState=static\n"),
                       "the systemd user unit pasteboardd.service is activating", "started by hand or by the session, enabled or not")
        XCTAssertNil(Autostart.unitInCharge(systemctlShow: ""))
        XCTAssertNil(Autostart.unitInCharge(systemctlShow: "Failed to connect to bus: No such file or directory\n"))
    }
}
