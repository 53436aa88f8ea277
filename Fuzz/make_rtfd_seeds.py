#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Writes the flat-RTFD seeds and test fixtures built from the byte layout in notes §1 (independent of our writer)."""
import struct, sys, os

def sized(out_len, data, pad_page=None):
    """Sized bytes at absolute offset out_len; with pad_page, use the 0x80000000 padding form."""
    if pad_page:
        pad = pad_page - (out_len + 12) % pad_page
        return struct.pack('<III', 0x80000000, len(data), pad) + b'\0' * pad + data
    return struct.pack('<I', len(data)) + data

def flat(entries, pad=None):
    """entries: list of (key, bytes); pad: {key: page} to pad that value's payload."""
    pad = pad or {}
    out = b'rtfd\0\0\0\0' + struct.pack('<II', 3, len(entries))
    for k, _ in entries:
        out += sized(len(out), k.encode())
    sizes_at = len(out)
    out += b'\0' * 4 * len(entries)
    sizes = []
    for k, v in entries:
        start = len(out)
        out += struct.pack('<I', 1)
        out += sized(len(out), v, pad.get(k))
        sizes.append(len(out) - start)
    return out[:sizes_at] + struct.pack('<%dI' % len(sizes), *sizes) + out[sizes_at + 4 * len(sizes):]

def dirinfo(names, mtime=1700000000):
    out = struct.pack('<I', len(names))
    for n in names:
        out += struct.pack('<I', len(n)) + n.encode()
    out += struct.pack('<%dI' % len(names), *([16] * len(names)))
    for _ in names:
        out += struct.pack('<iIII', mtime, 0o644, 0, 0)
    return out

rtf = rb"{\rtf1{{\NeXTGraphic a.png \width20 \height20}\'ac}}"
assert len(rtf) == 52
png = bytes([0x89, 0x50, 0x4E, 0x47])
example = flat([('TXT.rtf', rtf), ('a.png', png), ('.', dirinfo(['TXT.rtf', 'a.png']))])
assert len(example) == 197, len(example)
padded = flat([('TXT.rtf', rtf), ('a.png', png), ('.', dirinfo(['TXT.rtf', 'a.png']))], pad={'a.png': 16384})
assert padded.index(png) == 16384

for directory in sys.argv[1:]:
    os.makedirs(directory, exist_ok=True)
    open(os.path.join(directory, 'worked-example-197.rtfd'), 'wb').write(example)
    open(os.path.join(directory, 'worked-example-padded-16k.rtfd'), 'wb').write(padded)
