#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Writes a deterministic HTML document of about MIB MiB: gen-html.py OUT MIB (for bench/run.sh)."""
import sys

target = int(sys.argv[2]) << 20
words = "the quick brown fox jumps over the lazy dog clipboard paste copy rich text".split()
out = ['<!DOCTYPE html><html><head><meta charset="utf-8"><title>bench</title></head><body>\n']
n = i = 0
while n < target - 200:
    i += 1
    w = words[i % len(words)]
    s = (f'<p class="c{i % 7}">Paragraph {i}: <b>{w}</b> <i>{words[(i * 3) % len(words)]}</i> '
         f'<a href="https://example.org/{i}">link {i}</a> caf\u00e9 \u20ac {" ".join(words)}</p>\n')
    out.append(s)
    n += len(s.encode())
out.append("</body></html>\n")
with open(sys.argv[1], "wb") as f:
    f.write("".join(out).encode())
