// SPDX-License-Identifier: Apache-2.0
#include "CX11Shims.h"

#include <stdlib.h>
#include <string.h>

#include <X11/Xlib-xcb.h>
#include <xcb/xcb.h>

#define PBX_ERROR_RING 1024
#define PBX_MAX_CONNECTIONS 64

// One record per open connection: the daemon serves several X displays, and an error or a lost connection
// belongs to the display it happened on. Only touched from the thread that owns the Displays (Xlib calls the
// handlers synchronously from within Xlib calls on that thread), so no locking is needed.
typedef struct {
    Display *display;
    pbx_error_record ring[PBX_ERROR_RING];
    int ring_start;
    int ring_count;
    unsigned long dropped;
    int lost;
    /// The serial of the last request sent through the connection's XCB side (`pbx_get_property`), 0 before one.
    unsigned long xcb_last;
} pbx_connection_state;

static pbx_connection_state states[PBX_MAX_CONNECTIONS];
// Errors of a connection past the table's size (never expected: each served display is one) are dropped.
static pbx_connection_state overflow;

static pbx_connection_state *state_of(Display *display) {
    for (int i = 0; i < PBX_MAX_CONNECTIONS; i++) {
        if (states[i].display == display) return &states[i];
    }
    return &overflow;
}

static int record_error(Display *display, XErrorEvent *event) {
    pbx_connection_state *state = state_of(display);
    pbx_error_record record = {
        .serial = event->serial,
        .resource_id = event->resourceid,
        .error_code = event->error_code,
        .request_code = event->request_code,
        .minor_code = event->minor_code,
    };
    if (state->ring_count == PBX_ERROR_RING) {
        state->ring_start = (state->ring_start + 1) % PBX_ERROR_RING;
        state->ring_count--;
        state->dropped++;
    }
    state->ring[(state->ring_start + state->ring_count) % PBX_ERROR_RING] = record;
    state->ring_count++;
    return 0;
}

static int note_io_error(Display *display) {
    state_of(display)->lost = 1;
    return 0;
}

static void io_error_exit(Display *display, void *user_data) {
    (void)user_data;
    // Returning (instead of exit) leaves the Display marked dead; the event loop sees
    // pbx_connection_lost() and drops that display (or shuts down in order).
    state_of(display)->lost = 1;
}

int pbx_install_handlers(Display *display) {
    pbx_connection_state *state = state_of(NULL);
    if (state == &overflow) return 0;
    memset(state, 0, sizeof *state);
    state->display = display;
    XSetErrorHandler(record_error);
    XSetIOErrorHandler(note_io_error);
    XSetIOErrorExitHandler(display, io_error_exit, NULL);
    return 1;
}

static void xres_forget(Display *display);

void pbx_forget(Display *display) {
    xres_forget(display);
    pbx_connection_state *state = state_of(display);
    if (state != &overflow) memset(state, 0, sizeof *state);
}

int pbx_take_errors(Display *display, pbx_error_record *out, int capacity) {
    pbx_connection_state *state = state_of(display);
    int n = 0;
    while (n < capacity && state->ring_count > 0) {
        out[n++] = state->ring[state->ring_start];
        state->ring_start = (state->ring_start + 1) % PBX_ERROR_RING;
        state->ring_count--;
    }
    return n;
}

unsigned long pbx_dropped_error_count(Display *display) { return state_of(display)->dropped; }
int pbx_connection_lost(Display *display) { return state_of(display)->lost; }

int pbx_connection_number(Display *display) { return ConnectionNumber(display); }
Window pbx_default_root_window(Display *display) { return DefaultRootWindow(display); }
unsigned long pbx_next_request(Display *display) {
    // Xlib's own count catches up with requests sent through XCB only at its next request.
    unsigned long xlib = NextRequest(display), xcb = state_of(display)->xcb_last + 1;
    return xcb > xlib ? xcb : xlib;
}
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

int pbx_get_property(Display *display, Window window, Atom property, long long_offset, long long_length, int delete_,
                     pbx_property *out) {
    memset(out, 0, sizeof *out);
    xcb_connection_t *connection = XGetXCBConnection(display);
    if (state_of(display)->lost || xcb_connection_has_error(connection)) return -1;
    // The serial an error names is widened from the cookie's 32 bits, counting on from the next serial.
    unsigned long next = pbx_next_request(display);
    xcb_get_property_cookie_t cookie = xcb_get_property(connection, delete_ ? 1 : 0, (xcb_window_t)window,
                                                        (xcb_atom_t)property, XCB_GET_PROPERTY_TYPE_ANY,
                                                        (uint32_t)long_offset, (uint32_t)long_length);
    unsigned long serial = next + (uint32_t)(cookie.sequence - (uint32_t)next);
    state_of(display)->xcb_last = serial;
    xcb_generic_error_t *error = NULL;
    xcb_get_property_reply_t *reply = xcb_get_property_reply(connection, cookie, &error);
    if (error) {
        XErrorEvent event = {
            .type = 0,
            .display = display,
            .resourceid = error->resource_id,
            .serial = serial,
            .error_code = error->error_code,
            .request_code = error->major_code,
            .minor_code = error->minor_code,
        };
        int code = error->error_code;
        free(error);
        free(reply);
        record_error(display, &event);
        return code;
    }
    if (!reply) {
        // The connection broke while waiting: Xlib's own next call sees it and calls the IO error handler.
        state_of(display)->lost = 1;
        return -1;
    }
    out->reply = reply;
    out->type = reply->type;
    out->format = reply->format;
    out->item_count = reply->value_len;
    out->bytes_after = reply->bytes_after;
    out->data = xcb_get_property_value(reply);
    return 0;
}

void pbx_free_property(void *reply) { free(reply); }

// MARK: X-Resource client ids, through libXRes opened on first use

#include <dlfcn.h>
#include <X11/extensions/XRes.h>

typedef Bool (*pbx_xres_query_extension_fn)(Display *, int *, int *);
typedef Status (*pbx_xres_query_version_fn)(Display *, int *, int *);
typedef Status (*pbx_xres_query_client_ids_fn)(Display *, long, XResClientIdSpec *, long *, XResClientIdValue **);
typedef pid_t (*pbx_xres_get_client_pid_fn)(XResClientIdValue *);
typedef void (*pbx_xres_client_ids_destroy_fn)(long, XResClientIdValue *);

static struct {
    int tried;
    pbx_xres_query_extension_fn query_extension;
    pbx_xres_query_version_fn query_version;
    pbx_xres_query_client_ids_fn query_client_ids;
    pbx_xres_get_client_pid_fn get_client_pid;
    pbx_xres_client_ids_destroy_fn destroy;
} xres;

// Whether each connection's server speaks X-Resource 1.2 (client ids): 0 unknown, 1 yes, -1 no.
static struct { Display *display; int usable; } xres_servers[PBX_MAX_CONNECTIONS];

// A closed connection's Display may be reused by the next one: what was learnt of its server is forgotten.
static void xres_forget(Display *display) {
    for (int i = 0; i < PBX_MAX_CONNECTIONS; i++) {
        if (xres_servers[i].display == display) xres_servers[i].display = NULL;
    }
}

static int xres_open(void) {
    if (!xres.tried) {
        xres.tried = 1;
        // Never closed: the pointers stay valid for the life of the process.
        void *library = dlopen("libXRes.so.1", RTLD_NOW | RTLD_LOCAL);
        if (library != NULL) {
            xres.query_extension = (pbx_xres_query_extension_fn)dlsym(library, "XResQueryExtension");
            xres.query_version = (pbx_xres_query_version_fn)dlsym(library, "XResQueryVersion");
            xres.query_client_ids = (pbx_xres_query_client_ids_fn)dlsym(library, "XResQueryClientIds");
            xres.get_client_pid = (pbx_xres_get_client_pid_fn)dlsym(library, "XResGetClientPid");
            xres.destroy = (pbx_xres_client_ids_destroy_fn)dlsym(library, "XResClientIdsDestroy");
        }
    }
    return xres.query_extension && xres.query_version && xres.query_client_ids && xres.get_client_pid && xres.destroy;
}

static int xres_usable(Display *display) {
    int free_slot = -1;
    for (int i = 0; i < PBX_MAX_CONNECTIONS; i++) {
        if (xres_servers[i].display == display) return xres_servers[i].usable > 0;
        if (xres_servers[i].display == NULL && free_slot < 0) free_slot = i;
    }
    int event_base, error_base, major = 0, minor = 0;
    int usable = xres.query_extension(display, &event_base, &error_base)
        && xres.query_version(display, &major, &minor) && (major > 1 || (major == 1 && minor >= 2)) ? 1 : -1;
    if (free_slot >= 0) {
        xres_servers[free_slot].display = display;
        xres_servers[free_slot].usable = usable;
    }
    return usable > 0;
}

int pbx_client_pid(Display *display, Window window) {
    if (window == None || !xres_open() || !xres_usable(display)) return -1;
    XResClientIdSpec spec = { .client = window, .mask = XRES_CLIENT_ID_PID_MASK };
    long count = 0;
    XResClientIdValue *values = NULL;
    if (xres.query_client_ids(display, 1, &spec, &count, &values) != Success) return -1;
    pid_t pid = -1;
    for (long i = 0; i < count && pid < 0; i++) pid = xres.get_client_pid(&values[i]);
    xres.destroy(count, values);
    return pid;
}
