#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Toolkit programs that copy and then exit, handing their clipboard to the clipboard manager.

gtk TEXT HTML  — GTK 3 (through ctypes: gtk_clipboard_set_with_data is not introspectable) offers
                 UTF8_STRING, text/plain and text/html, marks all targets storable
                 (gtk_clipboard_set_can_store), calls gtk_clipboard_store() and exits.
qt TEXT HTML   — Qt 5 (PyQt5) sets text and HTML, then exits; Qt's clipboard hands over on exit.
Prints "stored" (GTK) or "exiting" (Qt) just before exiting."""
import ctypes
import sys


def gtk(text, html):
    gtk = ctypes.CDLL("libgtk-3.so.0")
    gdk = ctypes.CDLL("libgdk-3.so.0")
    gtk.gtk_init(None, None)
    gdk.gdk_atom_intern.restype = ctypes.c_void_p
    gdk.gdk_atom_intern.argtypes = [ctypes.c_char_p, ctypes.c_int]
    gtk.gtk_clipboard_get.restype = ctypes.c_void_p
    gtk.gtk_clipboard_get.argtypes = [ctypes.c_void_p]

    class TargetEntry(ctypes.Structure):
        _fields_ = [("target", ctypes.c_char_p), ("flags", ctypes.c_uint), ("info", ctypes.c_uint)]

    names = [b"UTF8_STRING", b"text/plain;charset=utf-8", b"text/html"]
    payloads = [text.encode(), text.encode(), html.encode()]
    entries = (TargetEntry * len(names))(*[TargetEntry(n, 0, i) for i, n in enumerate(names)])
    GetFunc = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_uint, ctypes.c_void_p)
    ClearFunc = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_void_p)
    gtk.gtk_selection_data_get_target.restype = ctypes.c_void_p
    gtk.gtk_selection_data_get_target.argtypes = [ctypes.c_void_p]
    gtk.gtk_selection_data_set.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_int]

    def get(clipboard, selection_data, info, data):
        target = gtk.gtk_selection_data_get_target(selection_data)
        gtk.gtk_selection_data_set(selection_data, target, 8, payloads[info], len(payloads[info]))

    get_func, clear_func = GetFunc(get), ClearFunc(lambda c, d: None)
    clipboard = gtk.gtk_clipboard_get(gdk.gdk_atom_intern(b"CLIPBOARD", 0))
    gtk.gtk_clipboard_set_with_data.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_uint, GetFunc, ClearFunc, ctypes.c_void_p]
    ok = gtk.gtk_clipboard_set_with_data(clipboard, entries, len(names), get_func, clear_func, None)
    if not ok:
        sys.exit("gtk_clipboard_set_with_data failed")
    gtk.gtk_clipboard_set_can_store.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int]
    gtk.gtk_clipboard_set_can_store(clipboard, None, 0)
    gtk.gtk_clipboard_store.argtypes = [ctypes.c_void_p]
    gtk.gtk_clipboard_store(clipboard)
    print("stored", flush=True)


def qt(text, html):
    from PyQt5.QtCore import QMimeData
    from PyQt5.QtWidgets import QApplication
    app = QApplication(["handover", "-platform", "xcb"])
    data = QMimeData()
    data.setText(text)
    data.setHtml(html)
    app.clipboard().setMimeData(data)
    app.processEvents()
    print("exiting", flush=True)
    del app  # Qt hands the clipboard to the manager while its clipboard object is destroyed


if __name__ == "__main__":
    {"gtk": gtk, "qt": qt}[sys.argv[1]](*sys.argv[2:])
