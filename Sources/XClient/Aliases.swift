import Selection

// Xlib also defines `Atom`; inside this module the name means the project's type.
public typealias Atom = Selection.Atom
