// SPDX-License-Identifier: Apache-2.0
import XTypes

// Xlib also defines `Atom`; inside this module the name means the project's type.
public typealias Atom = XTypes.Atom
