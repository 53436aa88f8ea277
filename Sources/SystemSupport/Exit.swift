// SPDX-License-Identifier: Apache-2.0
import Glibc

extension ProcessIdentity {
    /// Ends the process with `status`, flushing C stdio. The corresponding C function is `exit(3)`.
    public static func exit(_ status: Int32) -> Never {
        Glibc.exit(status)
    }
}
