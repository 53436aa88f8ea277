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

/// Why C: the X-Resource extension's client ids (libXRes) are asked for through dlopen on first use, so neither
/// pb nor the daemon loads libXRes at start (the loader's time at every pb run) and a system without it still
/// runs: the process id of the client that created `window` (XResQueryClientIds with XRES_CLIENT_ID_PID_MASK),
/// or -1 when the server has no X-Resource 1.2, the client is remote, or libXRes.so.1 cannot be opened.
/// The corresponding libXRes calls are XResQueryVersion, XResQueryClientIds, XResGetClientPid and
/// XResClientIdsDestroy.
int pbx_client_pid(Display *display, Window window);
