#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""gen-png.py FILE MIB [SEED]: writes a valid PNG of about MIB MiB (RGB, 4096 pixels wide, random pixels from
SEED, stored without compression: random pixels would not compress anyway), for bench/run.sh's keeping rows."""
import random, struct, sys, zlib

path, mib = sys.argv[1], float(sys.argv[2])
rng = random.Random(int(sys.argv[3]) if len(sys.argv) > 3 else 0)
width = 4096
row = 1 + 3 * width
height = max(1, int(mib * (1 << 20)) // row)
pixels = rng.randbytes(row * height)
raw = bytearray(pixels)
raw[0::row] = bytes(height)   # filter byte 0 (None) at the start of every row

def chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

with open(path, "wb") as f:
    f.write(b"\x89PNG\r\n\x1a\n")
    f.write(chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)))
    f.write(chunk(b"IDAT", zlib.compress(bytes(raw), 0)))
    f.write(chunk(b"IEND", b""))
