// SPDX-License-Identifier: Apache-2.0
import Selection
import XTypes

/// A `StandardAtoms` whose atoms are 1...N in `StandardAtoms.names` order, as the X door would intern them.
let standardAtoms = StandardAtoms(atoms: (1...StandardAtoms.names.count).map { Atom(UInt32($0)) })

/// Content targets that are not standard atoms (numbered well above them).
let htmlAtom = Atom(101)
let pngAtom = Atom(102)
let rtfAtom = Atom(103)

let requestor = WindowID(0x0040_0001)
