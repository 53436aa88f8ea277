// SPDX-License-Identifier: Apache-2.0
// CWaylandShims: a Wayland connection as a clipboard manager needs it, for Swift. libwayland-client calls back
// through C listener tables; this shim takes those callbacks and queues them as plain events that Swift drains
// (`pbw_next_event`), and hides which of the two data-control protocols was bound — ext-data-control-v1 (the
// staged one) or wlr-data-control-unstable-v1 version 2 — behind one set of calls: both have the same requests
// and events. Objects are named by small handles, never by pointers. Every symbol is prefixed `pbw_`.
#pragma once

#include <stddef.h>
#include <stdint.h>

typedef struct pbw_connection pbw_connection;

/// Which data-control protocol the compositor offered and the connection bound.
typedef enum {
    PBW_PROTOCOL_NONE = 0,   ///< neither (GNOME's mutter, weston): nothing to manage
    PBW_PROTOCOL_EXT = 1,    ///< ext_data_control_manager_v1
    PBW_PROTOCOL_WLR = 2,    ///< zwlr_data_control_manager_v1
} pbw_protocol;

typedef enum {
    /// A new offer `id` (another client's selection): its MIME types follow as PBW_EVENT_OFFER_TYPE events.
    PBW_EVENT_OFFER = 1,
    /// Offer `id` offers `text` (a MIME type).
    PBW_EVENT_OFFER_TYPE = 2,
    /// The seat's selection (`primary` 0) or primary selection (`primary` 1) is now offer `id`, or empty (`id` 0).
    PBW_EVENT_SELECTION = 3,
    /// A reader asks source `id` for `text`: write the bytes to `fd`, then close it (the caller owns `fd`).
    PBW_EVENT_SEND = 4,
    /// Source `id` is no longer the selection: destroy it.
    PBW_EVENT_CANCELLED = 5,
    /// The data device is gone (its seat was removed).
    PBW_EVENT_FINISHED = 6,
    /// The compositor handled every request sent before `pbw_sync` returned `id`.
    PBW_EVENT_SYNCED = 7,
} pbw_event_kind;

typedef struct {
    pbw_event_kind kind;
    uint32_t id;
    int primary;
    int fd;
    /// A MIME type (OFFER_TYPE, SEND), NUL-terminated, owned by the caller: free it with `pbw_free`.
    char *text;
} pbw_event;

/// Connects to the compositor `name` names (a socket name under $XDG_RUNTIME_DIR or an absolute path; NULL:
/// $WAYLAND_DISPLAY), binds the first seat and a data-control manager (ext first, else wlr at version 2 or the
/// compositor's lower one) and, when there is one, the seat's data device; the first selection events are queued.
/// Returns NULL with `error` filled when there is no compositor or the connection fails.
pbw_connection *pbw_connect(const char *name, char *error, size_t error_size);
void pbw_disconnect(pbw_connection *connection);

pbw_protocol pbw_bound_protocol(const pbw_connection *connection);
/// The bound manager's version (0 when none): primary selection needs 2 with wlr.
uint32_t pbw_manager_version(const pbw_connection *connection);
/// The connection's descriptor: poll it for readability.
int pbw_descriptor(const pbw_connection *connection);
/// Reads what the compositor sent (the descriptor was readable) and queues its events. 0, or -1 when the
/// connection is lost or broke the protocol (`error` filled).
int pbw_read(pbw_connection *connection, char *error, size_t error_size);
/// Sends the requests made: 0 when all went, 1 when the socket is full (poll for writability and call again),
/// -1 when the connection is lost.
int pbw_flush(pbw_connection *connection);
/// Asks the compositor to say when it has handled every request sent so far (wl_display.sync): a
/// PBW_EVENT_SYNCED event with the returned id follows, after the events the compositor sent before it. 0 when
/// the request could not be made.
uint32_t pbw_sync(pbw_connection *connection);
/// Moves the oldest queued event into `event`: 1, or 0 when none is queued.
int pbw_next_event(pbw_connection *connection, pbw_event *event);
void pbw_free(void *pointer);

/// Asks offer `offer` for `mime_type`, written to `fd` (the write end of a pipe, which the caller closes after
/// this call: the compositor has its own copy). 0, or -1 for an unknown offer.
int pbw_receive(pbw_connection *connection, uint32_t offer, const char *mime_type, int fd);
/// Forgets offer `offer` (its selection was replaced).
void pbw_offer_destroy(pbw_connection *connection, uint32_t offer);

/// A new source to offer as a selection; 0 when there is no manager.
uint32_t pbw_source_create(pbw_connection *connection);
void pbw_source_offer(pbw_connection *connection, uint32_t source, const char *mime_type);
void pbw_source_destroy(pbw_connection *connection, uint32_t source);
/// Makes `source` (0: none) the selection, or the primary selection with `primary`. -1 when there is no device,
/// or the primary selection is asked of a wlr manager older than version 2.
int pbw_set_selection(pbw_connection *connection, uint32_t source, int primary);
