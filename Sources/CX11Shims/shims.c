// SPDX-License-Identifier: Apache-2.0
#include "CX11Shims.h"

#include <string.h>

#define PBX_ERROR_RING 1024

// The ring is only touched from the thread that owns the Display (Xlib calls the handler
// synchronously from within Xlib calls on that thread), so no locking is needed.
static pbx_error_record ring[PBX_ERROR_RING];
static int ring_start = 0;
static int ring_count = 0;
static unsigned long dropped = 0;
static volatile int connection_lost = 0;

static int record_error(Display *display, XErrorEvent *event) {
    (void)display;
    pbx_error_record record = {
        .serial = event->serial,
        .resource_id = event->resourceid,
        .error_code = event->error_code,
        .request_code = event->request_code,
        .minor_code = event->minor_code,
    };
    if (ring_count == PBX_ERROR_RING) {
        ring_start = (ring_start + 1) % PBX_ERROR_RING;
        ring_count--;
        dropped++;
    }
    ring[(ring_start + ring_count) % PBX_ERROR_RING] = record;
    ring_count++;
    return 0;
}

static int note_io_error(Display *display) {
    (void)display;
    connection_lost = 1;
    return 0;
}

static void io_error_exit(Display *display, void *user_data) {
    (void)display;
    (void)user_data;
    // Returning (instead of exit) leaves the Display marked dead; the event loop sees
    // pbx_connection_lost() and shuts down in order.
    connection_lost = 1;
}

void pbx_install_handlers(Display *display) {
    XSetErrorHandler(record_error);
    XSetIOErrorHandler(note_io_error);
    XSetIOErrorExitHandler(display, io_error_exit, NULL);
}

int pbx_take_errors(pbx_error_record *out, int capacity) {
    int n = 0;
    while (n < capacity && ring_count > 0) {
        out[n++] = ring[ring_start];
        ring_start = (ring_start + 1) % PBX_ERROR_RING;
        ring_count--;
    }
    return n;
}

unsigned long pbx_dropped_error_count(void) { return dropped; }
int pbx_connection_lost(void) { return connection_lost; }

int pbx_connection_number(Display *display) { return ConnectionNumber(display); }
Window pbx_default_root_window(Display *display) { return DefaultRootWindow(display); }
unsigned long pbx_next_request(Display *display) { return NextRequest(display); }
unsigned long pbx_last_known_request_processed(Display *display) { return LastKnownRequestProcessed(display); }

XFixesSelectionNotifyEvent pbx_xfixes_selection_event(const XEvent *event) {
    XFixesSelectionNotifyEvent result;
    memcpy(&result, event, sizeof result);
    return result;
}

Status pbx_send_selection_notify(Display *display, Window requestor, Atom selection, Atom target,
                                 Atom property, Time time) {
    XEvent event;
    memset(&event, 0, sizeof event);
    event.xselection.type = SelectionNotify;
    event.xselection.display = display;
    event.xselection.requestor = requestor;
    event.xselection.selection = selection;
    event.xselection.target = target;
    event.xselection.property = property;
    event.xselection.time = time;
    return XSendEvent(display, requestor, False, NoEventMask, &event);
}

Status pbx_send_client_message(Display *display, Window destination, long event_mask, Window window,
                               Atom message_type, const long data[5]) {
    XEvent event;
    memset(&event, 0, sizeof event);
    event.xclient.type = ClientMessage;
    event.xclient.display = display;
    event.xclient.window = window;
    event.xclient.message_type = message_type;
    event.xclient.format = 32;
    for (int i = 0; i < 5; i++) event.xclient.data.l[i] = data[i];
    return XSendEvent(display, destination, False, event_mask, &event);
}
