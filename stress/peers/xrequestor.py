#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Misbehaving selection requestors for the stress scenarios (python-xlib). Each command prints JSON lines.

usage: xrequestor.py COMMAND [ARGS]   (DISPLAY from the environment; selection CLIPBOARD)
  hold-mid-incr TARGET       start an INCR read, take the first chunk, print, then wait on stdin (the
                             scenario kills this process with SIGKILL)
  destroy-mid-incr TARGET    the same, then destroy the requestor window (connection kept) and wait on stdin
  stall-incr TARGET header|chunk
                             never delete the INCR header (header) or the first chunk (chunk); wait on stdin
  multiple PAIRS TARGET      one MULTIPLE request with PAIRS (TARGET, property) pairs over 64 properties
  multiple-bad KIND TARGET   a MULTIPLE whose property is malformed: wrong-type, format8, format16,
                             none-property, missing, odd
  random SEED COUNT TARGET_SMALL TARGET_BIG
                             COUNT seeded random requests, a verified paste after every 50
"""
import json
import os
import random
import select
import sys
import time

from Xlib import X, Xatom, display, error

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import stresscontent  # noqa: E402

d = display.Display()
root = d.screen().root
x_errors = []
d.set_error_handler(lambda err, request=None: x_errors.append(type(err).__name__))
CLIPBOARD = d.intern_atom("CLIPBOARD")
INCR = d.intern_atom("INCR")


def out(**fields):
    print(json.dumps(fields), flush=True)


def window():
    w = root.create_window(0, 0, 1, 1, 0, X.CopyFromParent)
    w.change_attributes(event_mask=X.PropertyChangeMask)
    return w


def wait_event(predicate, timeout):
    """The first event matching predicate within timeout seconds, or None (others are dropped)."""
    deadline = time.monotonic() + timeout
    while True:
        while d.pending_events():
            e = d.next_event()
            if predicate(e):
                return e
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return None
        select.select([d.fileno()], [], [], remaining)


def notify_for(w):
    return lambda e: e.type == X.SelectionNotify and e.requestor.id == w.id


def new_value(w, prop):
    return lambda e: (e.type == X.PropertyNotify and e.window.id == w.id and e.atom == prop
                      and e.state == X.PropertyNewValue)


def start_incr(target):
    """Converts target into a fresh window; returns (window, property, header) after SelectionNotify."""
    w = window()
    prop = d.intern_atom("PB_STRESS_FAULT")
    w.convert_selection(CLIPBOARD, d.intern_atom(target), prop, X.CurrentTime)
    d.flush()
    e = wait_event(notify_for(w), 10)
    if e is None or not e.property:
        raise SystemExit(f"xrequestor: no reply for {target}")
    header = w.get_property(prop, X.AnyPropertyType, 0, 4)
    if header is None or header.property_type != INCR:
        raise SystemExit(f"xrequestor: {target} did not come by INCR")
    return w, prop, header


def first_chunk(w, prop):
    w.delete_property(prop)  # starts the stream
    d.flush()
    if wait_event(new_value(w, prop), 10) is None:
        raise SystemExit("xrequestor: no first chunk")
    chunk = w.get_property(prop, X.AnyPropertyType, 0, 1 << 22)
    return len(chunk.value) if chunk else 0


def hold():
    sys.stdin.read()


def cmd_hold_mid_incr(target):
    w, prop, _ = start_incr(target)
    out(chunk=first_chunk(w, prop), pid=os.getpid())
    hold()


def cmd_destroy_mid_incr(target):
    w, prop, _ = start_incr(target)
    size = first_chunk(w, prop)
    w.destroy()
    d.sync()
    out(chunk=size, destroyed=True)
    hold()


def cmd_stall_incr(target, where):
    w, prop, header = start_incr(target)
    if where == "chunk":
        out(chunk=first_chunk(w, prop))  # read, never deleted: the next chunk is never asked for
    else:
        out(header=int(header.value[0]))  # the header is never deleted: the stream never starts
    hold()


def read_pairs_back(w, prop):
    r = w.get_full_property(prop, X.AnyPropertyType)
    return list(r.value) if r is not None and r.format == 32 else None


def cmd_multiple(pairs, target):
    """PAIRS pairs cycling over 64 properties; checks every property holds a whole paste of TARGET."""
    pairs = int(pairs)
    w = window()
    props = [d.intern_atom(f"PB_STRESS_M{i}") for i in range(64)]
    atom = d.intern_atom(target)
    mp = d.intern_atom("PB_STRESS_MULTIPLE")
    values = []
    for i in range(pairs):
        values += [atom, props[i % 64]]
    w.change_property(mp, d.intern_atom("ATOM_PAIR"), 32, values)
    d.sync()
    started = time.monotonic()
    w.convert_selection(CLIPBOARD, d.intern_atom("MULTIPLE"), mp, X.CurrentTime)
    d.flush()
    e = wait_event(notify_for(w), 20)
    seconds = time.monotonic() - started
    extra = wait_event(notify_for(w), 0.3)
    filled, bad = 0, []
    for p in props[:min(pairs, 64)]:
        r = w.get_full_property(p, X.AnyPropertyType, sizehint=1 << 16)
        if r is None:
            continue
        filled += 1
        _, why = stresscontent.verify(bytes(r.value), "S")
        if why:
            bad.append(why)
    back = read_pairs_back(w, mp)
    out(pairs=pairs, notified=e is not None, property=bool(e and e.property), extra_notifies=int(extra is not None),
        seconds=round(seconds, 3), filled=filled, bad=bad[:3],
        pairs_refused=sum(1 for i in range(1, len(back or []), 2) if back[i] == 0), x_errors=len(x_errors))


def cmd_multiple_bad(kind, target):
    w = window()
    mp = d.intern_atom("PB_STRESS_MULTIPLE")
    pair = [d.intern_atom(target), d.intern_atom("PB_STRESS_M0")]
    prop = mp
    if kind == "wrong-type":
        w.change_property(mp, Xatom.STRING, 32, pair)
    elif kind == "format8":
        w.change_property(mp, d.intern_atom("ATOM_PAIR"), 8, b"\x01\x02\x03\x04\x05\x06\x07\x08")
    elif kind == "format16":
        w.change_property(mp, d.intern_atom("ATOM_PAIR"), 16, [1, 2, 3, 4])
    elif kind == "odd":
        w.change_property(mp, d.intern_atom("ATOM_PAIR"), 32, pair + [pair[0]])
    elif kind == "none-property":
        prop = X.NONE
    elif kind == "missing":
        prop = d.intern_atom("PB_STRESS_NEVER_SET")
        w.delete_property(prop)
    else:
        raise SystemExit(f"xrequestor: unknown kind {kind}")
    d.sync()
    w.convert_selection(CLIPBOARD, d.intern_atom("MULTIPLE"), prop, X.CurrentTime)
    d.flush()
    e = wait_event(notify_for(w), 5)
    extra = wait_event(notify_for(w), 0.3)
    served = None
    r = w.get_full_property(pair[1], X.AnyPropertyType, sizehint=1 << 16)
    if r is not None:
        _, served = stresscontent.verify(bytes(r.value), "S")
        served = served or "ok"
    out(kind=kind, notified=e is not None, property=bool(e and e.property), extra_notifies=int(extra is not None),
        pair_served=served)


def paste(w, prop, target, kind, timeout=10):
    """A correct paste (INCR followed) into w; returns (seq, None) or (seq, why)."""
    while d.pending_events():
        d.next_event()
    w.delete_property(prop)
    w.convert_selection(CLIPBOARD, d.intern_atom(target), prop, X.CurrentTime)
    d.flush()
    e = wait_event(notify_for(w), timeout)
    if e is None:
        return None, "no SelectionNotify"
    if not e.property:
        return None, "refused"
    r = w.get_full_property(prop, X.AnyPropertyType, sizehint=1 << 22)
    w.delete_property(prop)
    d.flush()
    if r is None:
        return None, "property absent"
    if r.property_type == INCR:
        data = bytearray()
        while True:
            if wait_event(new_value(w, prop), timeout) is None:
                return None, "INCR chunk timed out"
            c = w.get_full_property(prop, X.AnyPropertyType, sizehint=1 << 22)
            if c is None:
                continue
            w.delete_property(prop)
            d.flush()
            if len(c.value) == 0:
                break
            data += bytes(c.value)
        return stresscontent.verify(bytes(data), kind)
    return stresscontent.verify(bytes(r.value), kind)


def cmd_random(seed, count, small, big):
    """Seeded garbage: random targets, properties (None included), times, MULTIPLE lists and windows
    (destroyed right after the request, or never existing), with a verified paste after every 50."""
    rng = random.Random(int(seed))
    count = int(count)
    protocol = ["TARGETS", "TIMESTAMP", "MULTIPLE", "DELETE", "INSERT_SELECTION", "INSERT_PROPERTY", "SAVE_TARGETS",
                "UTF8_STRING", "STRING", "TEXT", "COMPOUND_TEXT", "text/plain", "text/plain;charset=utf-8",
                small, big, "image/png", "text/html"]
    atoms = [d.intern_atom(n) for n in protocol] + [d.intern_atom(f"PB_STRESS_RANDOM_{i}") for i in range(40)]
    atoms += [0x7FFFFFF0 + i for i in range(4)]  # never interned: BadAtom when the daemon writes them
    windows = [window() for _ in range(8)]
    clean, clean_prop = window(), d.intern_atom("PB_STRESS_CLEAN")
    server_time = 0
    stats = {"requests": 0, "multiple": 0, "destroyed_windows": 0, "bogus_windows": 0, "pastes": 0, "bad_pastes": 0,
             "incr_pastes": 0}
    first_bad = None
    for i in range(count):
        kind = rng.random()
        target = rng.choice(atoms)
        prop = 0 if rng.random() < 0.15 else rng.choice(atoms)
        when = rng.choice([X.CurrentTime, X.CurrentTime, 1, 0xFFFFFF00, server_time + rng.randint(-5000, 5000) & 0xFFFFFFFF])
        if kind < 0.15:
            # MULTIPLE with a random list: random length, type and format, maybe odd, maybe huge.
            w = rng.choice(windows)
            mp = d.intern_atom("PB_STRESS_RMULTIPLE")
            n = rng.choice([0, 1, 2, 3, 7, 64, 5000])
            fmt = rng.choice([32, 32, 32, 8, 16])
            values = [rng.choice(atoms + [0]) for _ in range(n)]
            ptype = rng.choice([d.intern_atom("ATOM_PAIR"), Xatom.ATOM, Xatom.STRING])
            if fmt == 8:
                w.change_property(mp, ptype, 8, bytes(v & 0xFF for v in values))
            elif fmt == 16:
                w.change_property(mp, ptype, 16, [v & 0xFFFF for v in values])
            else:
                w.change_property(mp, ptype, 32, values)
            w.convert_selection(CLIPBOARD, d.intern_atom("MULTIPLE"), rng.choice([mp, mp, 0]), when)
            stats["multiple"] += 1
        elif kind < 0.30:
            # A window that is gone by the time the daemon answers.
            w = root.create_window(0, 0, 1, 1, 0, X.CopyFromParent)
            w.convert_selection(CLIPBOARD, target, prop, when)
            w.destroy()
            stats["destroyed_windows"] += 1
        elif kind < 0.35:
            # A window that never existed: the server refuses it (BadWindow to us), the daemon sees nothing.
            bogus = d.create_resource_object("window", rng.randint(1, 0x1FFFFFFF))
            bogus.convert_selection(CLIPBOARD, target, prop, when)
            stats["bogus_windows"] += 1
        else:
            rng.choice(windows).convert_selection(CLIPBOARD, target, prop, when)
        stats["requests"] += 1
        if i % 50 == 49:
            d.sync()
            while d.pending_events():
                e = d.next_event()
                if e.type == X.SelectionNotify and e.time:
                    server_time = e.time
            big_paste = (i // 50) % 5 == 0
            seq, why = paste(clean, clean_prop, big if big_paste else small, "B" if big_paste else "S")
            stats["pastes"] += 1
            stats["incr_pastes"] += int(big_paste)
            if why:
                stats["bad_pastes"] += 1
                first_bad = first_bad or why
    # The garbage windows go: any INCR transfer the daemon started to them ends with them.
    for w in windows:
        w.destroy()
    d.sync()
    out(**stats, first_bad=first_bad, x_errors=len(x_errors))


COMMANDS = {k[4:]: v for k, v in list(globals().items()) if k.startswith("cmd_")}

if __name__ == "__main__":
    COMMANDS[sys.argv[1].replace("-", "_")](*sys.argv[2:])
    d.close()
