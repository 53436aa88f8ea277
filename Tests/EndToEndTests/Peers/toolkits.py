#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Reads and writes the clipboard the way desktop toolkits do, for the tests: GTK 3 (PyGObject), Qt 5
(PyQt5) and Tk. Readers print JSON. usage:
  toolkits.py gtk|qt|tk [SELECTION]      text and HTML
  toolkits.py gtk-wayland                CLIPBOARD's text, HTML and RTF as a GTK 3 app on Wayland reads them
  toolkits.py gtk-wayland-own TEXT       a GTK 3 app on Wayland that copies TEXT when a key is pressed in its
                                         window (a Wayland copy needs the serial of an input event: send one
                                         with wtype); prints "copied" and serves until stopped by its PID
  toolkits.py gtk-own SELECTION TEXT     own SELECTION with TEXT through GTK
  toolkits.py qt-own SELECTION TEXT      own SELECTION with TEXT through Qt
  toolkits.py gtk-files                  the files on CLIPBOARD, as GTK apps read them
  toolkits.py qt-files                   the files on CLIPBOARD, as Qt and KDE apps read them
  toolkits.py gtk-own-files copy|cut PATH...   own CLIPBOARD with x-special/gnome-copied-files only,
                                         Nautilus's own format (through GtkSelection)
  toolkits.py qt-own-files copy|cut PATH...    own CLIPBOARD with URLs (QMimeData.setUrls) and, for a
                                         cut, KIO's application/x-kde-cutselection, as Dolphin does
Owners print "ready" once they own the selection and serve until stopped by their PID."""
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


def gtk_files():
    """What a GTK application gets: wait_for_uris (text/uri-list, parsed by GTK), the paths GIO makes of
    them, and x-special/gnome-copied-files as Nautilus reads it."""
    import gi
    gi.require_version("Gtk", "3.0")
    gi.require_version("Gdk", "3.0")
    from gi.repository import Gdk, Gio, Gtk
    clipboard = Gtk.Clipboard.get(Gdk.Atom.intern("CLIPBOARD", False))
    uris = clipboard.wait_for_uris() or []
    copied = clipboard.wait_for_contents(Gdk.Atom.intern("x-special/gnome-copied-files", False))
    print(json.dumps({"uris": list(uris), "paths": [Gio.File.new_for_uri(u).get_path() for u in uris],
                      "copied": copied.get_data().decode("utf-8") if copied and copied.get_length() >= 0 else None}))


def qt_files():
    """What a Qt (and KDE) application gets: QMimeData.urls() as local files, and KIO's cut marker."""
    from PyQt5.QtWidgets import QApplication
    app = QApplication(["toolkits", "-platform", "xcb"])
    data = app.clipboard().mimeData()
    cut = bytes(data.data("application/x-kde-cutselection")).decode("latin-1") if data.hasFormat("application/x-kde-cutselection") else None
    print(json.dumps({"formats": list(data.formats()), "urls": [u.toString(u.FullyEncoded) for u in data.urls()],
                      "paths": [u.toLocalFile() for u in data.urls()], "cut": cut}))


def gtk_own_files(action, *paths):
    import gi
    gi.require_version("Gtk", "3.0")
    gi.require_version("Gdk", "3.0")
    from gi.repository import Gdk, Gio, GLib, Gtk
    payload = "\n".join([action] + [Gio.File.new_for_path(p).get_uri() for p in paths]).encode("utf-8")
    clipboard, target = Gdk.Atom.intern("CLIPBOARD", False), Gdk.Atom.intern("x-special/gnome-copied-files", False)
    # gtk_clipboard_set_with_data (what Nautilus calls) is not introspectable; it is built on GtkSelection,
    # which is: a widget owns the selection, lists the target and answers "selection-get".
    owner = Gtk.Invisible()
    Gtk.selection_add_target(owner, clipboard, target, 0)
    owner.connect("selection-get", lambda widget, selection, info, time: selection.set(target, 8, payload))
    if not Gtk.selection_owner_set(owner, clipboard, Gdk.CURRENT_TIME):
        raise SystemExit("could not own CLIPBOARD")
    GLib.idle_add(lambda: print("ready", flush=True) and False)
    Gtk.main()


def qt_own_files(action, *paths):
    from PyQt5.QtCore import QMimeData, QTimer, QUrl
    from PyQt5.QtWidgets import QApplication
    app = QApplication(["toolkits", "-platform", "xcb"])
    data = QMimeData()
    data.setUrls([QUrl.fromLocalFile(p) for p in paths])
    if action == "cut":
        data.setData("application/x-kde-cutselection", b"1")
    app.clipboard().setMimeData(data)
    QTimer.singleShot(0, lambda: print("ready", flush=True))
    app.exec_()


if __name__ == "__main__" and sys.argv[1] in ("gtk-files", "qt-files", "gtk-own-files", "qt-own-files"):
    {"gtk-files": gtk_files, "qt-files": qt_files, "gtk-own-files": gtk_own_files,
     "qt-own-files": qt_own_files}[sys.argv[1]](*sys.argv[2:])


def qt_own(selection, text):
    """Owns `selection` (CLIPBOARD or PRIMARY) with `text` through Qt, prints "ready", serves until killed."""
    from PyQt5.QtCore import QTimer
    from PyQt5.QtGui import QClipboard
    from PyQt5.QtWidgets import QApplication
    app = QApplication(["toolkits", "-platform", "xcb"])
    app.clipboard().setText(text, QClipboard.Clipboard if selection == "CLIPBOARD" else QClipboard.Selection)
    QTimer.singleShot(0, lambda: print("ready", flush=True))
    app.exec_()


if __name__ == "__main__" and sys.argv[1] == "qt-own":
    qt_own(*sys.argv[2:])


def gtk_wayland():
    """Reads CLIPBOARD as a GTK 3 application on the Wayland backend does: from a window of its own (a Wayland
    client is told the seat's selection once it has a surface), text, HTML and RTF."""
    import gi
    gi.require_version("Gtk", "3.0")
    gi.require_version("Gdk", "3.0")
    from gi.repository import Gdk, GLib, Gtk
    window = Gtk.Window(title="pasteboard-test-gtk-wayland")
    window.show_all()
    result = {}

    def read():
        clipboard = Gtk.Clipboard.get(Gdk.SELECTION_CLIPBOARD)
        ok, targets = clipboard.wait_for_targets()
        contents = {}
        for name in ("text/html", "text/rtf"):
            data = clipboard.wait_for_contents(Gdk.Atom.intern(name, False))
            contents[name] = data.get_data().decode("utf-8", "replace") if data and data.get_length() >= 0 else None
        result.update({"backend": type(Gdk.Display.get_default()).__name__, "targets": [t.name() for t in targets] if ok else [],
                       "text": clipboard.wait_for_text(), "html": contents["text/html"], "rtf": contents["text/rtf"]})
        Gtk.main_quit()
        return False

    # The selection reaches a client with a mapped surface: read once the window is drawn.
    window.connect("map-event", lambda *_: GLib.timeout_add(300, read) and False)
    GLib.timeout_add(8000, Gtk.main_quit)
    Gtk.main()
    print(json.dumps(result))


if __name__ == "__main__" and sys.argv[1] == "gtk-wayland":
    gtk_wayland()


def gtk_wayland_own(text):
    import gi
    gi.require_version("Gtk", "3.0")
    gi.require_version("Gdk", "3.0")
    from gi.repository import Gdk, Gtk
    window = Gtk.Window(title="pasteboard-test-gtk-wayland-own")

    def key(*_):
        Gtk.Clipboard.get(Gdk.SELECTION_CLIPBOARD).set_text(text, -1)
        print("copied", flush=True)
        return True

    window.connect("key-press-event", key)
    window.show_all()
    print("ready", flush=True)
    Gtk.main()


if __name__ == "__main__" and sys.argv[1] == "gtk-wayland-own":
    gtk_wayland_own(*sys.argv[2:])
