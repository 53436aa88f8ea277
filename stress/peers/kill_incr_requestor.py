#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""An ICCCM requestor that stops in the middle of an INCR transfer, for the daemon-kill scenario.

usage: kill_incr_requestor.py SECONDS   (DISPLAY from the environment)

It converts CLIPBOARD to UTF8_STRING, starts the INCR transfer, reads the first chunk without deleting it
(so the owner sends nothing more) and prints {"event": "first-chunk", ...}. It then waits, watching the
owner's window (StructureNotify) and the selection (XFixes), up to SECONDS: whatever arrives is printed
with its CLOCK_MONOTONIC time. Once the owner is gone it asks for the next chunk the way a plain requestor
would (deleting the property) and reports whether anything ever came. Last line: {"event": "end", ...}.
"""
import json
import select
import sys
import time

from Xlib import X, display
from Xlib.ext import xfixes

seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 10.0
d = display.Display()
root = d.screen().root
CLIPBOARD = d.intern_atom("CLIPBOARD")
UTF8 = d.intern_atom("UTF8_STRING")
INCR = d.intern_atom("INCR")
PROP = d.intern_atom("_PB_STRESS_INCR")


def say(**fields):
    fields["t"] = time.monotonic()
    print(json.dumps(fields), flush=True)


def next_event(deadline):
    while True:
        if d.pending_events():
            return d.next_event()
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return None
        select.select([d.fileno()], [], [], remaining)


w = root.create_window(0, 0, 1, 1, 0, X.CopyFromParent)
w.change_attributes(event_mask=X.PropertyChangeMask)
d.xfixes_query_version()
d.xfixes_select_selection_input(root, CLIPBOARD, xfixes.XFixesSetSelectionOwnerNotifyMask
                                | xfixes.XFixesSelectionWindowDestroyNotifyMask
                                | xfixes.XFixesSelectionClientCloseNotifyMask)
owner = d.get_selection_owner(CLIPBOARD)
owner = owner if isinstance(owner, int) else owner.id
if owner == X.NONE:
    say(event="error", why="CLIPBOARD has no owner")
    sys.exit(1)
owner_window = d.create_resource_object("window", owner)
owner_window.change_attributes(event_mask=X.StructureNotifyMask)
w.convert_selection(CLIPBOARD, UTF8, PROP, X.CurrentTime)
deadline = time.monotonic() + 10
while True:
    e = next_event(deadline)
    if e is None:
        say(event="error", why="no SelectionNotify")
        sys.exit(1)
    if e.type == X.SelectionNotify:
        break
prop = w.get_property(PROP, X.AnyPropertyType, 0, 4)
if prop is None or prop.property_type != INCR:
    say(event="error", why="the owner did not answer with INCR")
    sys.exit(1)
announced = prop.value[0] if len(prop.value) else 0
w.delete_property(PROP)   # starts the transfer
d.flush()
while True:
    e = next_event(deadline)
    if e is None:
        say(event="error", why="no first chunk")
        sys.exit(1)
    if e.type == X.PropertyNotify and e.atom == PROP and e.state == X.PropertyNewValue:
        break
chunk = w.get_property(PROP, X.AnyPropertyType, 0, 1 << 24)   # read, not deleted: the owner waits
say(event="first-chunk", announced=announced, bytes=len(chunk.value) if chunk else 0, owner=owner)

seen = []
asked_again = None
next_chunk = False
end = time.monotonic() + seconds
while True:
    e = next_event(end)
    if e is None:
        break
    if e.type == X.DestroyNotify and e.window.id == owner:
        seen.append("DestroyNotify")
        say(event="owner-window-destroyed")
    elif e.type == X.PropertyNotify and e.atom == PROP and e.state == X.PropertyNewValue and asked_again:
        next_chunk = True
        say(event="next-chunk")
        break
    elif isinstance(e, xfixes.SelectionNotify):
        subtype = {0: "SetSelectionOwner", 1: "SelectionWindowDestroy", 2: "SelectionClientClose"}.get(e.sub_code, "?")
        seen.append(subtype)
        say(event="xfixes", subtype=subtype)
    if seen and asked_again is None:
        # The owner is gone: a plain requestor would now ask for the next chunk and wait for it.
        w.delete_property(PROP)
        d.flush()
        asked_again = time.monotonic()
        end = min(end, asked_again + 1.5)
owner_now = d.get_selection_owner(CLIPBOARD)
owner_now = owner_now if isinstance(owner_now, int) else owner_now.id
say(event="end", seen=seen, next_chunk=next_chunk, owner_now=owner_now)
