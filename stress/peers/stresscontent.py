# SPDX-License-Identifier: Apache-2.0
"""Self-verifying clipboard content for the stress scenarios (Python side; stress/peers/pbreq.c has the C side).

A content is a 42-byte header then a body:

    PBSTRESS <seq: 10 digits> <kind: B|S> <body length: 10 digits> <crc32 of the body: 8 hex>\n

The body is derived from (seq, kind) alone: byte i is POOL[(i + seq * 40503) % 65521] passed through a
table that depends on seq and kind (kind B: xor with a byte; kind S: the same, then mapped to a lower-case
letter, so the small content is valid UTF-8 text). POOL is 65521 bytes of xorshift32 from a fixed seed.
A reader can regenerate the body from the header and compare every byte, so a paste that is truncated,
padded, or mixes two versions (a chunk of one copy after a chunk of another) is detected.
"""
import zlib

HEADER_BYTES = 42
POOL_BYTES = 65521  # prime: the offset of two different sequence numbers never coincides in a run


def _pool():
    x = 0x9E3779B9
    out = bytearray(POOL_BYTES)
    for i in range(POOL_BYTES):
        x ^= (x << 13) & 0xFFFFFFFF
        x ^= x >> 17
        x ^= (x << 5) & 0xFFFFFFFF
        out[i] = x & 0xFF
    return bytes(out)


POOL = _pool()


def _table(seq, kind):
    k = (seq * 167 + 89) & 0xFF
    if kind == "B":
        return bytes((b ^ k) for b in range(256))
    return bytes(0x61 + ((b ^ k) % 26) for b in range(256))


def body(seq, kind, length):
    offset = (seq * 40503) % POOL_BYTES
    rotated = POOL[offset:] + POOL[:offset]
    whole, rest = divmod(length, POOL_BYTES)
    raw = rotated * whole + rotated[:rest]
    return raw.translate(_table(seq, kind))


def make(seq, kind, length):
    """The content for (seq, kind) with a body of `length` bytes."""
    data = body(seq, kind, length)
    header = b"PBSTRESS %010d %s %010d %08x\n" % (seq, kind.encode(), length, zlib.crc32(data))
    assert len(header) == HEADER_BYTES
    return header + data


def verify(data, kind=None):
    """Returns (seq, None) when `data` is a whole, untouched content (of `kind` if given), else (seq or None, why)."""
    if len(data) < HEADER_BYTES or not data.startswith(b"PBSTRESS "):
        return None, f"no header ({len(data)} bytes)"
    try:
        _, seq, got_kind, length, crc = data[:HEADER_BYTES].decode("ascii").split()
        seq, length, crc = int(seq), int(length), int(crc, 16)
    except ValueError:
        return None, "malformed header"
    if kind and got_kind != kind:
        return seq, f"kind {got_kind}, expected {kind}"
    if len(data) != HEADER_BYTES + length:
        return seq, f"{len(data) - HEADER_BYTES} body bytes, header says {length}"
    rest = data[HEADER_BYTES:]
    if zlib.crc32(rest) != crc or rest != body(seq, got_kind, length):
        return seq, "body does not match its header (mixed or corrupted)"
    return seq, None
