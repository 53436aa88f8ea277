// SPDX-License-Identifier: Apache-2.0
// CX11Shims: the parts of Xlib and XFixes that Swift cannot import or use safely.
// Every symbol is prefixed `pbx_`; each one says why it exists.
#pragma once

#include <X11/Xlib.h>
#include <X11/Xatom.h>
#include <X11/Xutil.h>
#include <X11/extensions/Xfixes.h>

/// One X protocol error as the server reported it; recorded instead of exiting the process.
typedef struct {
    unsigned long serial;        ///< serial of the request that failed
    unsigned long resource_id;   ///< the bad resource (window, atom...)
    unsigned char error_code;    ///< BadWindow, BadAtom, BadAlloc...
    unsigned char request_code;  ///< major opcode of the failed request
    unsigned char minor_code;    ///< minor opcode (extensions)
} pbx_error_record;

/// Installs an error handler that records errors (Xlib's default prints and exits) and an IO-error
/// exit handler that marks the connection lost and returns (Xlib's default calls exit(1)), with a record of
/// its own for `display` (at most 64 connections open at once). Returns 0 when the table is full: the
/// connection must not be used.
/// Why C: Xlib calls these through C function pointers with C varargs-free signatures.
int pbx_install_handlers(Display *display);

/// Forgets `display`'s record (before XCloseDisplay).
void pbx_forget(Display *display);

/// Moves up to `capacity` errors recorded on `display` into `out`, oldest first, and returns how many.
/// Errors beyond the ring's capacity (1024) are counted in `pbx_dropped_error_count`.
int pbx_take_errors(Display *display, pbx_error_record *out, int capacity);

/// How many of `display`'s errors the ring overwrote since it was opened.
unsigned long pbx_dropped_error_count(Display *display);

/// Non-zero once the connection to `display`'s X server is lost (IO error). Xlib calls are no-ops after that.
int pbx_connection_lost(Display *display);

/// Why C: ConnectionNumber, DefaultRootWindow, NextRequest and LastKnownRequestProcessed are macros.
/// `pbx_next_request` counts the requests sent through the connection's XCB side too (`pbx_get_property`), which
/// Xlib's NextRequest learns of only at its own next request.
int pbx_connection_number(Display *display);
Window pbx_default_root_window(Display *display);
unsigned long pbx_next_request(Display *display);
unsigned long pbx_last_known_request_processed(Display *display);

/// Why C: the XFixes selection event arrives as an XEvent union member Swift does not see.
XFixesSelectionNotifyEvent pbx_xfixes_selection_event(const XEvent *event);

/// Why C: building a SelectionNotify in Swift needs union writes; this fills and sends it.
/// The corresponding Xlib call is XSendEvent(requestor, False, NoEventMask, SelectionNotify).
Status pbx_send_selection_notify(Display *display, Window requestor, Atom selection, Atom target,
                                 Atom property, Time time);

/// Why C: a ClientMessage with 32-bit data is a union write too (used for the MANAGER announcement).
Status pbx_send_client_message(Display *display, Window destination, long event_mask, Window window,
                               Atom message_type, const long data[5]);

/// A property as the server sent it (GetProperty): the reply itself, which `data` points into.
typedef struct {
    Atom type;                  ///< None when the property does not exist
    int format;                 ///< 8, 16 or 32 (0 when it does not exist)
    unsigned long item_count;   ///< items of `format` bits in `data`
    unsigned long bytes_after;  ///< bytes past those returned
    const void *data;           ///< the items, inside `reply`
    void *reply;                ///< freed by `pbx_free_property`
} pbx_property;

/// Reads up to `long_length` 32-bit units of `property` on `window` from unit `long_offset` on, deleting it when
/// `delete_` and the read reached its end, as XGetWindowProperty does (any type; a round trip), into `out`, whose
/// `reply` the caller frees with `pbx_free_property` (also after a failure: it is then NULL). Returns 0 (Success),
/// or the X error's code, recorded like any other error of `display` (`pbx_take_errors`), or -1 when the
/// connection is lost.
/// Why C: it goes through the connection's XCB side (XGetXCBConnection, xcb_get_property), which hands back the
/// reply buffer itself; XGetWindowProperty copies the value out of that buffer into one of its own, a second copy
/// of every INCR chunk the daemon reads.
int pbx_get_property(Display *display, Window window, Atom property, long long_offset, long long_length, int delete_,
                     pbx_property *out);

/// Frees what `pbx_get_property` returned (NULL is ignored).
void pbx_free_property(void *reply);

/// Why C: the X-Resource extension's client ids (libXRes) are asked for through dlopen on first use, so neither
/// pb nor the daemon loads libXRes at start (the loader's time at every pb run) and a system without it still
/// runs: the process id of the client that created `window` (XResQueryClientIds with XRES_CLIENT_ID_PID_MASK),
/// or -1 when the server has no X-Resource 1.2, the client is remote, or libXRes.so.1 cannot be opened.
/// The corresponding libXRes calls are XResQueryVersion, XResQueryClientIds, XResGetClientPid and
/// XResClientIdsDestroy.
int pbx_client_pid(Display *display, Window window);
