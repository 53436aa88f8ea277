#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Writes the pictures ImageCodecsTests decodes, each made by another encoder than ours (PIL, or by hand
with zlib where PIL cannot), and next to each the RGBA pixels PIL decodes from it (EXIF orientation applied).

usage: make-fixtures.py DIRECTORY    (writes DIRECTORY/manifest.json, NAME.EXT and NAME.rgba)"""
import io
import json
import os
import struct
import sys
import zlib

from PIL import Image, ImageOps

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
manifest = []


def pattern(width, height, alpha=False):
    """A picture with gradients, hard edges and (optionally) every kind of alpha."""
    image = Image.new("RGBA", (width, height))
    pixels = image.load()
    for y in range(height):
        for x in range(width):
            a = 255
            if alpha:
                a = 0 if x < width // 4 else (128 if x < width // 2 else (37 if y % 3 == 0 else 255))
            pixels[x, y] = ((x * 255) // max(1, width - 1), (y * 255) // max(1, height - 1), (x * y) % 256, a)
    return image


def add(name, ext, data, expected, tolerance=0, note=""):
    with open(os.path.join(out, f"{name}.{ext}"), "wb") as f:
        f.write(data)
    rgba = expected.convert("RGBA")
    with open(os.path.join(out, f"{name}.rgba"), "wb") as f:
        f.write(rgba.tobytes())
    manifest.append({"name": name, "file": f"{name}.{ext}", "width": rgba.width, "height": rgba.height,
                     "tolerance": tolerance, "note": note})


def saved(image, fmt, **options):
    buffer = io.BytesIO()
    image.save(buffer, fmt, **options)
    return buffer.getvalue()


def decoded(data):
    image = Image.open(io.BytesIO(data))
    image.load()
    return ImageOps.exif_transpose(image)


def png_chunk(kind, body):
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF)


def png_by_hand(width, height, bit_depth, color_type, rows, extra=b""):
    raw = b"".join(b"\0" + row for row in rows)
    return (b"\x89PNG\r\n\x1a\n" + png_chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, bit_depth, color_type, 0, 0, 0))
            + extra + png_chunk(b"IDAT", zlib.compress(raw)) + png_chunk(b"IEND", b""))


base = pattern(37, 23)
alpha = pattern(37, 23, alpha=True)

# PNG: 8-bit RGB and RGBA, palette with tRNS, grey, interlaced (Adam7), 16-bit RGBA (by hand: PIL cannot).
for name, image, options in [("png-rgb", base.convert("RGB"), {}), ("png-rgba", alpha, {}),
                             ("png-grey", base.convert("L"), {}), ("png-interlaced", alpha, {"interlace": 1})]:
    data = saved(image, "PNG", **options)
    add(name, "png", data, decoded(data))
palette = base.convert("RGB").quantize(16)
palette.info["transparency"] = 3
data = saved(palette, "PNG", transparency=3)
add("png-palette-trns", "png", data, decoded(data))
rows16, expected16 = [], Image.new("RGBA", (9, 5))
for y in range(5):
    row = b""
    for x in range(9):
        values = [x * 7000, y * 13000, 65535 - x * 5000, 65535 if x % 2 else 30000]
        row += struct.pack(">4H", *values)
        expected16.putpixel((x, y), tuple(v >> 8 for v in values))
    rows16.append(row)
add("png-16bit", "png", png_by_hand(9, 5, 16, 6, rows16), expected16, tolerance=1, note="16-bit samples reduced to 8")

# JPEG: baseline, progressive, grey, CMYK (Adobe, inverted), EXIF orientation 6 (turned to be upright).
photo = base.convert("RGB").resize((64, 48))
for name, image, options in [("jpeg-baseline", photo, {"quality": 92}), ("jpeg-progressive", photo, {"quality": 92, "progressive": True}),
                             ("jpeg-grey", photo.convert("L"), {"quality": 92}), ("jpeg-cmyk", photo.convert("CMYK"), {"quality": 95})]:
    data = saved(image, "JPEG", **options)
    add(name, "jpg", data, decoded(data), tolerance=3, note="decoders may round differently")
exif = Image.Exif()
exif[0x0112] = 6
data = saved(photo, "JPEG", quality=92, exif=exif.tobytes())
add("jpeg-exif-orientation-6", "jpg", data, decoded(data), tolerance=3, note="shown turned 90° clockwise")

# GIF: transparency and interlacing (PIL writes both).
gif = base.convert("RGB").quantize(32)
data = saved(gif, "GIF", transparency=5, interlace=True)
add("gif-interlaced-transparent", "gif", data, decoded(data))

# BMP: 24-bit bottom-up (PIL), 8-bit palette, 32-bit BITMAPV5 with alpha top-down (by hand), 32-bit BI_RGB V5 all-zero alpha.
add("bmp-24", "bmp", saved(base.convert("RGB"), "BMP"), base.convert("RGB"))
add("bmp-8-palette", "bmp", saved(palette.convert("P"), "BMP"), decoded(saved(palette.convert("P"), "BMP")))


def bmp_v5(image, top_down, zero_alpha=False):
    width, height = image.size
    rows = []
    for y in range(height):
        row = b""
        for x in range(width):
            r, g, b, a = image.getpixel((x, y))
            row += bytes([b, g, r, 0 if zero_alpha else a])
        rows.append(row)
    if not top_down:
        rows.reverse()
    pixels = b"".join(rows)
    compression = 0 if zero_alpha else 3
    header = struct.pack("<IiiHHIIiiII", 124, width, -height if top_down else height, 1, 32, compression, len(pixels), 2835, 2835, 0, 0)
    header += struct.pack("<IIII", 0x00FF0000, 0x0000FF00, 0x000000FF, 0xFF000000) + b"sRGB" + b"\0" * 36 + struct.pack("<III", 0, 0, 0)
    header += struct.pack("<IIII", 4, 0, 0, 0)
    return b"BM" + struct.pack("<IHHI", 14 + len(header) + len(pixels), 0, 0, 14 + len(header)) + header + pixels


add("bmp-v5-alpha-top-down", "bmp", bmp_v5(alpha, True), alpha)
add("bmp-v5-alpha-bottom-up", "bmp", bmp_v5(alpha, False), alpha)
add("bmp-v5-zero-alpha", "bmp", bmp_v5(alpha, False, zero_alpha=True), alpha.convert("RGB"), note="all-zero alpha is opaque")

# TIFF: uncompressed, LZW, Deflate, PackBits; RGBA (unassociated alpha, as Apple writes it in RTFD).
for compression in ["raw", "tiff_lzw", "tiff_adobe_deflate", "packbits"]:
    data = saved(base.convert("RGB"), "TIFF", compression=compression)
    add(f"tiff-{compression}", "tiff", data, decoded(data))
data = saved(alpha, "TIFF", compression="tiff_lzw")
add("tiff-rgba", "tiff", data, decoded(data))
data = saved(base.convert("L"), "TIFF", compression="tiff_adobe_deflate")
add("tiff-grey", "tiff", data, decoded(data))

# WebP: lossless (exact) and lossy.
data = saved(alpha, "WEBP", lossless=True, exact=True)
add("webp-lossless", "webp", data, decoded(data))
data = saved(photo, "WEBP", quality=90)
add("webp-lossy", "webp", data, decoded(data), tolerance=3, note="decoders may round differently")

with open(os.path.join(out, "manifest.json"), "w") as f:
    json.dump(manifest, f, indent=1)
print(len(manifest))
