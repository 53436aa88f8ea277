#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Pictures for the end-to-end image tests: made and judged by PIL, read and owned by GTK and Qt. Prints JSON.

usage: images.py make KIND PATH          write a 320 × 200 test picture: png (with alpha), jpeg, webp (lossless),
                                         webp-lossy, tiff (LZW, as Apple writes RTFD screenshots), bmp
       images.py compare SOURCE DERIVED [--flatten]
                                         PIL decodes both: format, size, the largest channel difference (pixels
                                         transparent in both not counted) and the PSNR of the colour; --flatten
                                         composites SOURCE onto white first (for JPEG and 24-bit BMP)
       images.py gtk-read PATH           Gtk.Clipboard.wait_for_image(), saved as PNG to PATH
       images.py qt-read PATH            QClipboard.image(), saved as PNG to PATH
       images.py gtk-own PATH            own CLIPBOARD with Gtk.Clipboard.set_image() of PATH; print "ready"; serve
       images.py html-picture HTML OUT   the first data: URI picture of HTML, its bytes to OUT
"""
import base64
import io
import json
import math
import re
import sys

from PIL import Image, ImageOps


def picture(alpha):
    image = Image.new("RGBA", (320, 200))
    pixels = image.load()
    for y in range(200):
        for x in range(320):
            a = 255
            if alpha:
                a = 0 if x < 40 else (96 if x < 80 and y < 100 else 255)
            pixels[x, y] = ((x * 255) // 319, (y * 255) // 199, ((x // 16 + y // 16) % 2) * 200 + 27, a)
    return image


def make(kind, path):
    if kind == "png":
        picture(True).save(path, "PNG")
    elif kind == "jpeg":
        picture(False).convert("RGB").save(path, "JPEG", quality=90)
    elif kind == "webp":
        picture(True).save(path, "WEBP", lossless=True, exact=True)
    elif kind == "webp-lossy":
        picture(False).convert("RGB").save(path, "WEBP", quality=85)
    elif kind == "tiff":
        picture(False).convert("RGB").save(path, "TIFF", compression="tiff_lzw")
    elif kind == "bmp":
        picture(False).convert("RGB").save(path, "BMP")
    print(json.dumps({"path": path}))


def load(path):
    image = Image.open(path)
    image.load()
    return ImageOps.exif_transpose(image), image.format


def flatten(image):
    white = Image.new("RGBA", image.size, (255, 255, 255, 255))
    return Image.alpha_composite(white, image.convert("RGBA"))


def compare(source, derived, *options):
    a, _ = load(source)
    b, fmt = load(derived)
    a = a.convert("RGBA")
    if "--flatten" in options:
        a = flatten(a)
    b = b.convert("RGBA")
    result = {"format": fmt, "size": list(b.size), "sourceSize": list(a.size)}
    if a.size == b.size:
        worst, squares, count = 0, 0, 0
        for p, q in zip(a.getdata(), b.getdata()):
            if p[3] == 0 and q[3] == 0:
                continue
            worst = max(worst, *(abs(p[i] - q[i]) for i in range(4)))
            squares += sum((p[i] - q[i]) ** 2 for i in range(3))
            count += 3
        mse = squares / max(1, count)
        result.update({"max": worst, "psnr": 99.0 if mse == 0 else 10 * math.log10(255 * 255 / mse)})
    print(json.dumps(result))


def gtk_read(path):
    import gi
    gi.require_version("Gtk", "3.0")
    gi.require_version("Gdk", "3.0")
    from gi.repository import Gdk, Gtk
    clipboard = Gtk.Clipboard.get(Gdk.Atom.intern("CLIPBOARD", False))
    pixbuf = clipboard.wait_for_image()
    if pixbuf is None:
        print(json.dumps({"image": None}))
        return
    pixbuf.savev(path, "png", [], [])
    print(json.dumps({"image": [pixbuf.get_width(), pixbuf.get_height()]}))


def qt_read(path):
    from PyQt5.QtWidgets import QApplication
    app = QApplication(["images", "-platform", "xcb"])
    data = app.clipboard().mimeData()
    formats = list(data.formats())
    image = app.clipboard().image()
    if image.isNull():
        print(json.dumps({"image": None, "formats": formats}))
        return
    image.save(path, "PNG")
    print(json.dumps({"image": [image.width(), image.height()], "formats": formats}))


def gtk_own(path):
    import gi
    gi.require_version("Gtk", "3.0")
    gi.require_version("Gdk", "3.0")
    from gi.repository import GdkPixbuf, Gdk, GLib, Gtk
    clipboard = Gtk.Clipboard.get(Gdk.Atom.intern("CLIPBOARD", False))
    clipboard.set_image(GdkPixbuf.Pixbuf.new_from_file(path))
    GLib.idle_add(lambda: print("ready", flush=True) and False)
    Gtk.main()


def html_picture(html_path, out):
    html = open(html_path, encoding="utf-8", errors="replace").read()
    match = re.search(r'data:(image/[a-z+.-]+);base64,([A-Za-z0-9+/=]+)', html)
    if not match:
        print(json.dumps({"mime": None}))
        return
    with open(out, "wb") as f:
        f.write(base64.b64decode(match.group(2)))
    print(json.dumps({"mime": match.group(1)}))


commands = {"make": make, "compare": compare, "gtk-read": gtk_read, "qt-read": qt_read, "gtk-own": gtk_own,
            "html-picture": html_picture}
commands[sys.argv[1]](*sys.argv[2:])
