#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Misbehaving CLIPBOARD owners for the stress scenarios (python-xlib). Each owns CLIPBOARD with a fresh
window, prints {"ready": true, ...}, then behaves as MODE until SIGTERM (or until it kills itself).

usage: xowner.py MODE [SEQ]   (DISPLAY from the environment)
  silent            never answers anything
  targets-string    answers TARGETS with a STRING (format 8) instead of an ATOM list
  data-format32     TARGETS is right (UTF8_STRING); the data comes as format 32 items
  incr-format32     UTF8_STRING by INCR (64 KiB chunks of stress content SEQ), the second chunk format 32
  incr-forever      UTF8_STRING by INCR announcing 4096 bytes, then 64 KiB chunks forever
  incr-forever-big  the same announcing 4 GiB - 1 (over any cap from the header on)
  incr-trickle      UTF8_STRING by INCR announcing 4096 bytes, then one byte every 0.4 s forever
  die-mid-incr      UTF8_STRING (small stress content SEQ, whole) and application/x-pbstress (big, by INCR);
                    sends the first chunk of the big one, prints {"chunk_sent": true} and SIGKILLs itself
Every mode's answers are counted: {"answered": {...}} is printed at SIGTERM.
"""
import json
import os
import select
import signal
import sys
import time

from Xlib import X, Xatom, display
from Xlib.protocol import event as xevent

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import stresscontent  # noqa: E402

mode = sys.argv[1]
seq = int(sys.argv[2]) if len(sys.argv) > 2 else 1
d = display.Display()
d.set_error_handler(lambda err, request=None: None)  # the requestor's window may be gone: not our concern
root = d.screen().root
A = {n: d.intern_atom(n) for n in ("CLIPBOARD", "TARGETS", "TIMESTAMP", "INCR", "ATOM", "UTF8_STRING",
                                    "application/x-pbstress")}
CHUNK = 64 * 1024
small = stresscontent.make(seq, "S", 300)
big = stresscontent.make(seq, "B", 300 * 1024)
answered = {}
incr = {}  # (window id, property) -> [requestor, type, data, offset, chunks sent]


def stop(*_):
    print(json.dumps({"answered": answered}), flush=True)
    os._exit(0)


signal.signal(signal.SIGTERM, stop)

w = root.create_window(0, 0, 1, 1, 0, X.CopyFromParent)
w.change_attributes(event_mask=X.PropertyChangeMask)
w.change_property(d.intern_atom("_OWNER_TIME"), Xatom.STRING, 8, b"")
d.flush()
while True:
    e = d.next_event()
    if e.type == X.PropertyNotify and e.window.id == w.id:
        w.set_selection_owner(A["CLIPBOARD"], e.time)
        owned_at = e.time
        break
d.sync()
print(json.dumps({"ready": True, "window": w.id}), flush=True)


def targets():
    if mode == "die-mid-incr":
        return [A["TARGETS"], A["UTF8_STRING"], A["application/x-pbstress"]]
    return [A["TARGETS"], A["UTF8_STRING"]]


def notify(e, prop):
    e.requestor.send_event(xevent.SelectionNotify(time=e.time, requestor=e.requestor, selection=e.selection,
                                                  target=e.target, property=prop))


def start_incr(e, prop, kind, data, announced):
    e.requestor.change_attributes(event_mask=X.PropertyChangeMask)
    e.requestor.change_property(prop, A["INCR"], 32, [announced])
    incr[(e.requestor.id, prop)] = [e.requestor, kind, data, 0, 0]


def answer(e):
    prop = e.property or e.target
    name = d.get_atom_name(e.target)
    answered[name] = answered.get(name, 0) + 1
    if mode == "silent":
        return
    if e.target == A["TARGETS"]:
        if mode == "targets-string":
            e.requestor.change_property(prop, Xatom.STRING, 8, b"UTF8_STRING TARGETS")
        else:
            e.requestor.change_property(prop, A["ATOM"], 32, targets())
    elif e.target == A["UTF8_STRING"]:
        if mode == "data-format32":
            e.requestor.change_property(prop, A["UTF8_STRING"], 32, [0x41424344] * 16)
        elif mode == "incr-format32":
            start_incr(e, prop, A["UTF8_STRING"], stresscontent.make(seq, "S", 4 * CHUNK), 4 * CHUNK + 42)
        elif mode in ("incr-forever", "incr-forever-big", "incr-trickle"):
            start_incr(e, prop, A["UTF8_STRING"], None, 0xFFFFFFFF if mode == "incr-forever-big" else 4096)
        else:
            e.requestor.change_property(prop, A["UTF8_STRING"], 8, small)
    elif e.target == A["application/x-pbstress"] and mode == "die-mid-incr":
        start_incr(e, prop, A["application/x-pbstress"], big, len(big))
    else:
        prop = X.NONE
    notify(e, prop)
    d.flush()


def next_chunk(key):
    requestor, kind, data, offset, sent = incr[key]
    prop = key[1]
    if data is None:  # forever: a fresh 64 KiB of letters every time (one letter when trickling)
        requestor.change_property(prop, kind, 8, b"x" if mode == "incr-trickle" else b"x" * CHUNK)
    elif mode == "incr-format32" and sent == 1:
        requestor.change_property(prop, kind, 32, [0x61626364] * (CHUNK // 4))
        offset += CHUNK
    else:
        chunk = data[offset:offset + CHUNK]
        requestor.change_property(prop, kind, 8, chunk)
        offset += len(chunk)
        if not chunk:
            del incr[key]
            d.flush()
            return
    incr[key][3:] = [offset, sent + 1]
    d.flush()
    if mode == "die-mid-incr" and kind == A["application/x-pbstress"]:
        d.sync()
        print(json.dumps({"chunk_sent": True}), flush=True)
        os.kill(os.getpid(), signal.SIGKILL)


due = []  # (time, key): trickled chunks waiting for their moment
while True:
    while due and due[0][0] <= time.monotonic():
        key = due.pop(0)[1]
        if key in incr:
            next_chunk(key)
    while d.pending_events():
        e = d.next_event()
        if e.type == X.SelectionRequest:
            answer(e)
        elif e.type == X.PropertyNotify and e.state == X.PropertyDelete and (e.window.id, e.atom) in incr:
            if mode == "incr-trickle":
                due.append((time.monotonic() + 0.4, (e.window.id, e.atom)))
            else:
                next_chunk((e.window.id, e.atom))
        elif e.type == X.SelectionClear:
            print(json.dumps({"lost": True}), flush=True)
    select.select([d.fileno()], [], [], 0.02)
