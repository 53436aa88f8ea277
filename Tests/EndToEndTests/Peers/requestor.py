#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""An ICCCM requestor written for the tests, with python-xlib: it does what xclip and xsel cannot
(MULTIPLE, requests timed before the acquisition, obsolete requests, abandoned INCR, a BadWindow storm) and prints JSON results.

usage: requestor.py COMMAND [ARGS]   (DISPLAY from the environment)
"""
import json
import select
import sys
import time

from Xlib import X, Xatom, display
from Xlib.protocol import event as xevent

d = display.Display()
root = d.screen().root


def atom(name):
    return d.intern_atom(name)


def name(a):
    return d.get_atom_name(a) if a else None


def window():
    w = root.create_window(0, 0, 1, 1, 0, X.CopyFromParent)
    w.change_attributes(event_mask=X.PropertyChangeMask)
    return w


def wait_event(predicate, timeout):
    """Returns the first event matching predicate within timeout seconds, or None."""
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


def convert(w, selection, target, prop, t=X.CurrentTime, timeout=5, keep=False):
    if prop and not keep:
        w.delete_property(prop)
    w.convert_selection(selection, target, prop, t)
    d.flush()
    return wait_event(lambda e: e.type == X.SelectionNotify and e.requestor.id == w.id, timeout)


def read(w, prop):
    r = w.get_full_property(prop, X.AnyPropertyType, sizehint=1 << 24)
    if r is None:
        return None
    return {"type": name(r.property_type), "format": r.format, "value": r.value}


def cmd_targets(sel="CLIPBOARD"):
    w = window()
    p = atom("REQ_PROP")
    e = convert(w, atom(sel), atom("TARGETS"), p)
    r = read(w, p)
    print(json.dumps({"notify_property": name(e.property), "type": r["type"], "format": r["format"],
                      "targets": [name(a) for a in r["value"]]}))


def cmd_timestamp(sel="CLIPBOARD"):
    w = window()
    p = atom("REQ_PROP")
    e = convert(w, atom(sel), atom("TIMESTAMP"), p)
    r = read(w, p)
    print(json.dumps({"type": r["type"], "format": r["format"], "value": list(r["value"])}))


def cmd_multiple(sel="CLIPBOARD"):
    """Three pairs, the second unsupported: two properties filled, the failed one rewritten to None."""
    w = window()
    pairs = [atom("UTF8_STRING"), atom("P1"), atom("image/x-not-offered"), atom("P2"), atom("STRING"), atom("P3")]
    mp = atom("MULTI_PROP")
    w.change_property(mp, atom("ATOM_PAIR"), 32, pairs)
    notifies = []
    e = convert(w, atom(sel), atom("MULTIPLE"), mp, keep=True)
    notifies.append(e)
    # Count SelectionNotify events that arrive shortly after (there must be no second one).
    extra = wait_event(lambda ev: ev.type == X.SelectionNotify and ev.requestor.id == w.id, 0.3)
    back = read(w, mp)
    p1, p3 = read(w, atom("P1")), read(w, atom("P3"))
    p2 = read(w, atom("P2"))
    print(json.dumps({
        "notify_property": name(e.property) if e else None,
        "extra_notifies": 0 if extra is None else 1,
        "pairs_back": [name(a) for a in back["value"]],
        "p1": {"type": p1["type"], "value": p1["value"].decode("latin-1")} if p1 else None,
        "p2": p2,
        "p3": {"type": p3["type"], "value": p3["value"].decode("latin-1")} if p3 else None,
    }))


def cmd_multiple_none(sel="CLIPBOARD"):
    w = window()
    e = convert(w, atom(sel), atom("MULTIPLE"), X.NONE)
    print(json.dumps({"notify_property": name(e.property) if e else "timeout"}))


def cmd_old_time(sel="CLIPBOARD"):
    """A request timed 1 ms after the server's epoch, older than any acquisition (as Emacs asks from a timer)."""
    w = window()
    p = atom("REQ_PROP")
    e = convert(w, atom(sel), atom("UTF8_STRING"), p, t=1)
    r = read(w, p) if e and e.property else None
    print(json.dumps({"notify_property": name(e.property) if e else "timeout",
                      "value": r["value"].decode("utf-8") if r else None}))


def cmd_obsolete(sel="CLIPBOARD"):
    """property None (an obsolete client): the data lands in the property named by the target."""
    w = window()
    target = atom("UTF8_STRING")
    w.delete_property(target)
    e = convert(w, atom(sel), target, X.NONE)
    r = read(w, target)
    print(json.dumps({"notify_property": name(e.property) if e else "timeout",
                      "value": r["value"].decode("utf-8") if r else None}))


def cmd_compound_text(sel="CLIPBOARD"):
    w = window()
    p = atom("REQ_PROP")
    e = convert(w, atom(sel), atom("COMPOUND_TEXT"), p)
    r = read(w, p)
    print(json.dumps({"type": r["type"], "bytes": list(r["value"])}))


def cmd_text_as(target, sel="CLIPBOARD"):
    w = window()
    p = atom("REQ_PROP")
    e = convert(w, atom(sel), atom(target), p)
    r = read(w, p) if e and e.property else None
    print(json.dumps({"type": r["type"] if r else None, "bytes": list(r["value"]) if r else None}))


def cmd_focused_text(wm_class, sel="CLIPBOARD"):
    """Maps a window of class `wm_class`, gives it the input focus, then asks for UTF8_STRING from it, as an
    application typed into would (readPolicy's focus rule)."""
    w = root.create_window(0, 0, 10, 10, 0, X.CopyFromParent,
                           event_mask=X.PropertyChangeMask | X.StructureNotifyMask | X.FocusChangeMask)
    w.set_wm_class(wm_class.lower(), wm_class)
    w.map()
    wait_event(lambda e: e.type == X.MapNotify and e.window.id == w.id, 5)
    w.set_input_focus(X.RevertToParent, X.CurrentTime)
    d.sync()
    focused = d.get_input_focus().focus.id == w.id
    p = atom("REQ_PROP")
    e = convert(w, atom(sel), atom("UTF8_STRING"), p)
    r = read(w, p) if e and e.property else None
    print(json.dumps({"focused": focused, "text": bytes(r["value"]).decode() if r else None}))


def cmd_destroy_storm(count, sel="CLIPBOARD"):
    """count requestors that destroy their window right after ConvertSelection (SDL #16231)."""
    count = int(count)
    for i in range(count):
        w = root.create_window(0, 0, 1, 1, 0, X.CopyFromParent)
        w.convert_selection(atom(sel), atom("UTF8_STRING"), atom("REQ_PROP"), X.CurrentTime)
        w.destroy()
        if i % 100 == 0:
            d.flush()
    d.sync()
    print(json.dumps({"sent": count}))


def cmd_stall_incr(sel="CLIPBOARD", target="application/octet-stream"):
    """Starts an INCR read (deletes the INCR header) then never deletes a chunk; holds for a while."""
    w = window()
    p = atom("REQ_PROP")
    e = convert(w, atom(sel), atom(target), p)
    r = w.get_property(p, X.AnyPropertyType, 0, 1)
    kind = name(r.property_type) if r else None
    w.delete_property(p)  # starts the stream; the first chunk arrives and is never deleted
    d.flush()
    print(json.dumps({"type": kind}), flush=True)
    sys.stdin.read()  # hold the connection until the test closes our stdin


def cmd_roundtrips(count, sel="CLIPBOARD"):
    """count TARGETS + UTF8_STRING pairs from one requestor, each waiting at most 2 s; counts misses."""
    w = window()
    p = atom("REQ_PROP")
    missed = 0
    wrong = 0
    expected = None
    for i in range(int(count)):
        for target in ("TARGETS", "UTF8_STRING"):
            e = convert(w, atom(sel), atom(target), p, timeout=2)
            if e is None or not e.property:
                missed += 1
                continue
            r = read(w, p)
            if target == "UTF8_STRING":
                value = r["value"] if r else None
                expected = expected or value
                if value != expected:
                    wrong += 1
    print(json.dumps({"missed": missed, "wrong": wrong}))


def cmd_save_and_die(sel="CLIPBOARD"):
    """Asks the clipboard manager to SAVE_TARGETS and exits at once, before any reply."""
    w = window()
    w.convert_selection(atom("CLIPBOARD_MANAGER"), atom("SAVE_TARGETS"), X.NONE, X.CurrentTime)
    d.sync()
    print(json.dumps({"asked": True}))


def cmd_manager_owner():
    """Prints the window that owns CLIPBOARD_MANAGER (0 for none) and, when a pasteboardd's, its process id
    (_PASTEBOARD_DAEMON; null otherwise)."""
    owner = d.get_selection_owner(atom("CLIPBOARD_MANAGER"))
    pid = None
    if owner:
        mark = owner.get_full_property(atom("_PASTEBOARD_DAEMON"), Xatom.CARDINAL)
        pid = mark.value[0] if mark and len(mark.value) else None
    print(json.dumps({"owner": owner.id if owner else 0, "daemon": pid}))


def cmd_timed(*specs):
    """For each SELECTION:TARGET, measures from ConvertSelection to the SelectionNotify (X round trip and the
    owner's answer, no process start-up) and reads the value; prints the milliseconds and sizes."""
    w = window()
    results = []
    for spec in specs:
        sel, target = spec.split(":", 1)
        prop = atom("TIMED_PROP")
        started = time.monotonic()
        e = convert(w, atom(sel), atom(target), prop, timeout=10)
        elapsed = (time.monotonic() - started) * 1000
        answered = e is not None and e.property != X.NONE
        r = read(w, prop) if answered else None
        size = len(r["value"]) if r and r["format"] == 8 else None
        results.append({"spec": spec, "ms": elapsed, "answered": answered, "type": r["type"] if r else None, "size": size})
    print(json.dumps(results))


COMMANDS = {k[4:]: v for k, v in list(globals().items()) if k.startswith("cmd_")}

if __name__ == "__main__":
    COMMANDS[sys.argv[1].replace("-", "_")](*sys.argv[2:])
    d.close()
