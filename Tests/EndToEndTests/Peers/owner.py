#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""A selection owner written for the tests (python-xlib): it owns SELECTION with the given targets and
serves them (INCR for large data), prints "ready", and serves until SIGTERM (or SIGINT).

usage: owner.py SELECTION [--mode serve|silent] [--class WM_CLASS] [--then TARGET=FILE] TARGET=FILE...
  serve            answer requests (default)
  silent           own the selection and never answer anything
  hang             answer TARGETS (and TIMESTAMP), never a target's data: an owner that hangs mid-paste
  endless          serve, but an INCR transfer never ends: the data is sent again and again
  hole             serve, but the second chunk of an INCR transfer has format 32
  liar             list every target in TARGETS, but answer each with the first target's type and bytes
                   (as xclip answers any target with its one type)
  --class NAME     set WM_CLASS on the owner window (for excludedWindowClasses)
  --then T=FILE    once the file named by --trigger exists, destroy the owner window and at once (same
                   client, no delay) own the selection again with a new window offering T=FILE, then
                   print "replaced": the Wine destroy-then-own pattern
  --trigger PATH   the file whose appearance starts the replacement
  --refuse NAME    list NAME in TARGETS but refuse it (property None), as owners do for a target they fail
  --mark-daemon PID  mark the owner window as pasteboardd PID's on this host (_PASTEBOARD_DAEMON, WM_CLIENT_MACHINE):
                   the window a killed daemon leaves until the X server sees its connection close
  --save           once owning, ask the clipboard manager to save every target (SAVE_TARGETS, with the list
                   in a property, as GTK's gtk_clipboard_store does), serve its reads, print "saved" (or
                   "not saved" when refused) when it answers, and exit
"""
import os
import select
import socket
import sys

from Xlib import X, Xatom, display
from Xlib.protocol import event as xevent

d = display.Display()
root = d.screen().root
args = sys.argv[1:]
selection = d.intern_atom(args.pop(0))
mode = "serve"
wm_class = None
then = []
trigger = None
refused = []
save = False
daemon_pid = None
while args and args[0].startswith("--"):
    if args[0] == "--mode":
        mode = args[1]
    elif args[0] == "--class":
        wm_class = args[1]
    elif args[0] == "--then":
        then.append(args[1])
    elif args[0] == "--trigger":
        trigger = args[1]
    elif args[0] == "--refuse":
        refused.append(args[1])
    elif args[0] == "--mark-daemon":
        daemon_pid = int(args[1])
    elif args[0] == "--save":
        save = True
        args = args[1:]
        continue
    args = args[2:]
targets = {}
for name in refused:
    targets[d.intern_atom(name)] = None
for spec in args:
    name, path = spec.rsplit("=", 1)
    with open(path, "rb") as f:
        targets[d.intern_atom(name)] = f.read()

A_TARGETS, A_TIMESTAMP, A_INCR, A_ATOM = (d.intern_atom(n) for n in ("TARGETS", "TIMESTAMP", "INCR", "ATOM"))
# python-xlib has no BIG-REQUESTS: one request carries at most 262,140 bytes, so 256 KiB chunks (or
# properties) would raise struct.error and end the owner. 64 KiB chunks fit.
CHUNK = 64 * 1024
incr = {}  # (window id, property) -> [data, offset, type]


def make_owner():
    w = root.create_window(0, 0, 1, 1, 0, X.CopyFromParent)
    w.change_attributes(event_mask=X.PropertyChangeMask)
    if wm_class:
        w.set_wm_class(wm_class.lower(), wm_class)
    if daemon_pid is not None:
        w.change_property(d.intern_atom("_PASTEBOARD_DAEMON"), Xatom.CARDINAL, 32, [daemon_pid])
        w.change_property(d.intern_atom("WM_CLIENT_MACHINE"), Xatom.STRING, 8, socket.gethostname().encode())
    w.change_property(d.intern_atom("_OWNER_TIME"), Xatom.STRING, 8, b"")
    d.flush()
    while True:
        e = d.next_event()
        if e.type == X.PropertyNotify and e.window.id == w.id:
            w.set_selection_owner(selection, e.time)
            d.flush()
            return w, e.time


owner, owned_at = make_owner()
print("ready", flush=True)

A_MANAGER, A_SAVE, A_SAVE_LIST = (d.intern_atom(n) for n in ("CLIPBOARD_MANAGER", "SAVE_TARGETS", "_OWNER_SAVE_LIST"))
if save:
    owner.change_property(A_SAVE_LIST, A_ATOM, 32, list(targets))
    owner.convert_selection(A_MANAGER, A_SAVE, A_SAVE_LIST, owned_at)
    d.flush()


def answer(e):
    prop = e.property or e.target
    requestor = e.requestor
    ok = True
    if e.target == A_TARGETS:
        requestor.change_property(prop, A_ATOM, 32, [A_TARGETS, A_TIMESTAMP] + list(targets))
    elif e.target == A_TIMESTAMP:
        requestor.change_property(prop, Xatom.INTEGER, 32, [owned_at])
    elif mode == "liar" and e.target in targets:
        first = next(iter(targets))
        requestor.change_property(prop, first, 8, targets[first])
    elif e.target in targets and targets[e.target] is not None:
        data = targets[e.target]
        if len(data) > CHUNK:
            requestor.change_attributes(event_mask=X.PropertyChangeMask)
            requestor.change_property(prop, A_INCR, 32, [len(data)])
            incr[(requestor.id, prop)] = [data, 0, e.target, requestor]
        else:
            requestor.change_property(prop, e.target, 8, data)
    else:
        ok = False
    note = xevent.SelectionNotify(time=e.time, requestor=requestor, selection=e.selection, target=e.target,
                                  property=prop if ok else X.NONE)
    requestor.send_event(note)
    d.flush()


while True:
    while d.pending_events():
        e = d.next_event()
        if e.type == X.SelectionRequest and mode != "silent":
            if mode != "hang" or e.target in (d.intern_atom("TARGETS"), d.intern_atom("TIMESTAMP")):
                answer(e)
        elif e.type == X.PropertyNotify and e.state == X.PropertyDelete and (e.window.id, e.atom) in incr:
            data, offset, kind, requestor = incr[(e.window.id, e.atom)]
            if mode == "endless" and offset >= len(data):
                offset = 0
            chunk = data[offset:offset + CHUNK]
            if mode == "hole" and offset == CHUNK:
                requestor.change_property(e.atom, kind, 32, [0x61626364] * (len(chunk) // 4))
            else:
                requestor.change_property(e.atom, kind, 8, chunk)
            if chunk:
                incr[(e.window.id, e.atom)][1] = offset + len(chunk)
            else:
                del incr[(e.window.id, e.atom)]
            d.flush()
        elif e.type == X.SelectionNotify and e.target == A_SAVE:
            print("saved" if e.property != X.NONE else "not saved", flush=True)
            sys.exit(0)
        elif e.type == X.SelectionClear and e.window.id == owner.id and not save:
            sys.exit("owner.py: lost the selection (SelectionClear)")
    select.select([d.fileno()], [], [], 0.05)
    if then and trigger and os.path.exists(trigger):
        os.unlink(trigger)
        owner.destroy()
        new = {}
        for spec in then:
            name, path = spec.rsplit("=", 1)
            with open(path, "rb") as f:
                new[d.intern_atom(name)] = f.read()
        targets = new
        owner, owned_at = make_owner()
        print("replaced", flush=True)
