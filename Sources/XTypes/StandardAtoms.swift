// SPDX-License-Identifier: Apache-2.0
/// The atoms the selection protocol names, interned once per connection.
///
/// The pure core never interns atoms itself: the X door interns `StandardAtoms.names` and builds this
/// value, so that request handling can compare numbers without round trips.
public struct StandardAtoms: Sendable, Equatable {
    public var targets: Atom
    public var multiple: Atom
    public var timestamp: Atom
    public var incr: Atom
    public var atom: Atom
    public var atomPair: Atom
    public var integer: Atom
    public var cardinal: Atom
    public var null: Atom
    public var utf8String: Atom
    public var string: Atom
    public var text: Atom
    public var compoundText: Atom
    public var textPlainUTF8: Atom
    public var textPlain: Atom
    public var delete: Atom
    public var insertSelection: Atom
    public var insertProperty: Atom
    public var saveTargets: Atom
    public var clipboard: Atom
    public var primary: Atom
    public var clipboardManager: Atom
    public var manager: Atom

    /// The names in the order `init(atoms:)` expects them.
    public static let names: [String] = [
        "TARGETS", "MULTIPLE", "TIMESTAMP", "INCR", "ATOM", "ATOM_PAIR", "INTEGER", "CARDINAL", "NULL",
        "UTF8_STRING", "STRING", "TEXT", "COMPOUND_TEXT", "text/plain;charset=utf-8", "text/plain",
        "DELETE", "INSERT_SELECTION", "INSERT_PROPERTY", "SAVE_TARGETS", "CLIPBOARD", "PRIMARY",
        "CLIPBOARD_MANAGER", "MANAGER",
    ]

    /// Builds the table from atoms interned for `names`, in the same order.
    public init(atoms: [Atom]) {
        precondition(atoms.count == Self.names.count, "one atom per standard name")
        var i = atoms.makeIterator()
        func next() -> Atom { i.next()! }
        targets = next(); multiple = next(); timestamp = next(); incr = next(); atom = next()
        atomPair = next(); integer = next(); cardinal = next(); null = next(); utf8String = next()
        string = next(); text = next(); compoundText = next(); textPlainUTF8 = next(); textPlain = next()
        delete = next(); insertSelection = next(); insertProperty = next(); saveTargets = next()
        clipboard = next(); primary = next(); clipboardManager = next(); manager = next()
    }

    /// The targets with side effects, never fetched or saved by a clipboard manager.
    public var sideEffectTargets: Set<Atom> { [delete, insertSelection, insertProperty, saveTargets] }
}
