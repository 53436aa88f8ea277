#!/usr/bin/python3
"""Reads the clipboard the way desktop toolkits do, for the tests: GTK 3 (PyGObject), Qt 5 (PyQt5)
and Tk. Prints JSON. usage: toolkits.py gtk|qt|tk [SELECTION]"""
import json
import sys


def gtk(selection="CLIPBOARD"):
    import gi
    gi.require_version("Gtk", "3.0")
    gi.require_version("Gdk", "3.0")
    from gi.repository import Gdk, Gtk
    clipboard = Gtk.Clipboard.get(Gdk.Atom.intern(selection, False))
    ok, targets = clipboard.wait_for_targets()
    text = clipboard.wait_for_text()
    html = clipboard.wait_for_contents(Gdk.Atom.intern("text/html", False))
    print(json.dumps({"targets": [t.name() for t in targets] if ok else [], "text": text,
                      "html": html.get_data().decode("utf-8") if html and html.get_length() >= 0 else None}))


def qt(selection="CLIPBOARD"):
    from PyQt5.QtGui import QClipboard
    from PyQt5.QtWidgets import QApplication
    app = QApplication(["toolkits", "-platform", "xcb"])
    mode = QClipboard.Clipboard if selection == "CLIPBOARD" else QClipboard.Selection
    data = app.clipboard().mimeData(mode)
    print(json.dumps({"formats": list(data.formats()), "text": data.text(),
                      "html": data.html() if data.hasHtml() else None}))


def tk(selection="CLIPBOARD"):
    import tkinter
    root = tkinter.Tk()
    root.withdraw()
    try:
        text = root.selection_get(selection=selection, type="UTF8_STRING")
    except tkinter.TclError as error:
        text = None
    print(json.dumps({"text": text}))
    root.destroy()


if __name__ == "__main__" and sys.argv[1] in ("gtk", "qt", "tk"):
    {"gtk": gtk, "qt": qt, "tk": tk}[sys.argv[1]](*sys.argv[2:])


def gtk_own(selection, text):
    """Owns the selection `selection` with `text` through GTK, prints "ready", serves until killed."""
    import gi
    gi.require_version("Gtk", "3.0")
    gi.require_version("Gdk", "3.0")
    from gi.repository import Gdk, GLib, Gtk
    clipboard = Gtk.Clipboard.get(Gdk.Atom.intern(selection, False))
    clipboard.set_text(text, -1)
    GLib.idle_add(lambda: print("ready", flush=True) and False)
    Gtk.main()


if __name__ == "__main__" and sys.argv[1] == "gtk-own":
    gtk_own(*sys.argv[2:])
