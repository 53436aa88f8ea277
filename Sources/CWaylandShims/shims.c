// SPDX-License-Identifier: Apache-2.0
#include "CWaylandShims.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

// The door's other side: libwayland-client (linked by this target: Package.swift), which these calls drive. Only
// here: the shim's own header names no Wayland type, so Swift sees none of libwayland through it.
#include <wayland-client.h>

#include "generated/ext-data-control-v1-client-protocol.h"
#include "generated/wlr-data-control-unstable-v1-client-protocol.h"

/// An offer or a source: its proxy and the handle Swift knows it by (the proxy's user data points here).
struct pbw_object {
    pbw_connection *connection;
    uint32_t id;
    struct wl_proxy *proxy;
    int is_source;
    struct pbw_object *next;
};

struct pbw_connection {
    struct wl_display *display;
    struct wl_registry *registry;
    struct wl_seat *seat;
    struct ext_data_control_manager_v1 *ext_manager;
    struct zwlr_data_control_manager_v1 *wlr_manager;
    uint32_t manager_version;
    pbw_protocol protocol;
    struct wl_proxy *device;
    pbw_event *events;
    size_t head, count, capacity;
    struct pbw_object *objects;
    uint32_t last_id;
    int out_of_memory;
};

// MARK: - The event queue

static void queue(pbw_connection *c, pbw_event event) {
    if (c->count == c->capacity) {
        size_t capacity = c->capacity ? c->capacity * 2 : 16;
        pbw_event *grown = malloc(capacity * sizeof *grown);
        if (!grown) {
            c->out_of_memory = 1;
            if (event.fd >= 0) close(event.fd);
            free(event.text);
            return;
        }
        for (size_t i = 0; i < c->count; i++) grown[i] = c->events[(c->head + i) % c->capacity];
        free(c->events);
        c->events = grown;
        c->capacity = capacity;
        c->head = 0;
    }
    c->events[(c->head + c->count) % c->capacity] = event;
    c->count++;
}

static void queue_simple(pbw_connection *c, pbw_event_kind kind, uint32_t id, int primary) {
    queue(c, (pbw_event){ .kind = kind, .id = id, .primary = primary, .fd = -1, .text = NULL });
}

static char *copy_text(pbw_connection *c, const char *text) {
    char *copy = strdup(text ? text : "");
    if (!copy) c->out_of_memory = 1;
    return copy;
}

// MARK: - Objects

static struct pbw_object *track(pbw_connection *c, struct wl_proxy *proxy, int is_source) {
    struct pbw_object *object = calloc(1, sizeof *object);
    if (!object) {
        c->out_of_memory = 1;
        return NULL;
    }
    object->connection = c;
    object->id = ++c->last_id;
    object->proxy = proxy;
    object->is_source = is_source;
    object->next = c->objects;
    c->objects = object;
    return object;
}

static struct pbw_object *find(pbw_connection *c, uint32_t id, int is_source) {
    for (struct pbw_object *o = c->objects; o; o = o->next)
        if (o->id == id && o->is_source == is_source) return o;
    return NULL;
}

static uint32_t id_of(void *proxy) {
    if (!proxy) return 0;
    struct pbw_object *object = wl_proxy_get_user_data((struct wl_proxy *)proxy);
    return object ? object->id : 0;
}

static void forget(pbw_connection *c, struct pbw_object *object) {
    for (struct pbw_object **link = &c->objects; *link; link = &(*link)->next) {
        if (*link == object) {
            *link = object->next;
            free(object);
            return;
        }
    }
}

// MARK: - Listeners (the same functions behind both protocols' tables: the events have the same arguments)

static void offer_offered(void *data, void *offer, const char *mime_type) {
    struct pbw_object *object = data;
    (void)offer;
    queue(object->connection, (pbw_event){ .kind = PBW_EVENT_OFFER_TYPE, .id = object->id, .fd = -1,
                                           .text = copy_text(object->connection, mime_type) });
}

static void source_send(void *data, void *source, const char *mime_type, int32_t fd) {
    struct pbw_object *object = data;
    (void)source;
    queue(object->connection, (pbw_event){ .kind = PBW_EVENT_SEND, .id = object->id, .fd = fd,
                                           .text = copy_text(object->connection, mime_type) });
}

static void source_cancelled(void *data, void *source) {
    struct pbw_object *object = data;
    (void)source;
    queue_simple(object->connection, PBW_EVENT_CANCELLED, object->id, 0);
}

static void ext_offer_offered(void *data, struct ext_data_control_offer_v1 *offer, const char *mime) { offer_offered(data, offer, mime); }
static const struct ext_data_control_offer_v1_listener ext_offer_listener = { .offer = ext_offer_offered };
static void wlr_offer_offered(void *data, struct zwlr_data_control_offer_v1 *offer, const char *mime) { offer_offered(data, offer, mime); }
static const struct zwlr_data_control_offer_v1_listener wlr_offer_listener = { .offer = wlr_offer_offered };

static void ext_source_send(void *data, struct ext_data_control_source_v1 *s, const char *mime, int32_t fd) { source_send(data, s, mime, fd); }
static void ext_source_cancelled(void *data, struct ext_data_control_source_v1 *s) { source_cancelled(data, s); }
static const struct ext_data_control_source_v1_listener ext_source_listener = { .send = ext_source_send, .cancelled = ext_source_cancelled };
static void wlr_source_send(void *data, struct zwlr_data_control_source_v1 *s, const char *mime, int32_t fd) { source_send(data, s, mime, fd); }
static void wlr_source_cancelled(void *data, struct zwlr_data_control_source_v1 *s) { source_cancelled(data, s); }
static const struct zwlr_data_control_source_v1_listener wlr_source_listener = { .send = wlr_source_send, .cancelled = wlr_source_cancelled };

static void device_offer(pbw_connection *c, struct wl_proxy *offer) {
    struct pbw_object *object = track(c, offer, 0);
    if (!object) return;
    if (c->protocol == PBW_PROTOCOL_EXT)
        ext_data_control_offer_v1_add_listener((struct ext_data_control_offer_v1 *)offer, &ext_offer_listener, object);
    else
        zwlr_data_control_offer_v1_add_listener((struct zwlr_data_control_offer_v1 *)offer, &wlr_offer_listener, object);
    queue_simple(c, PBW_EVENT_OFFER, object->id, 0);
}

static void ext_device_offer(void *data, struct ext_data_control_device_v1 *d, struct ext_data_control_offer_v1 *offer) {
    (void)d; device_offer(data, (struct wl_proxy *)offer);
}
static void ext_device_selection(void *data, struct ext_data_control_device_v1 *d, struct ext_data_control_offer_v1 *offer) {
    (void)d; queue_simple(data, PBW_EVENT_SELECTION, id_of(offer), 0);
}
static void ext_device_finished(void *data, struct ext_data_control_device_v1 *d) { (void)d; queue_simple(data, PBW_EVENT_FINISHED, 0, 0); }
static void ext_device_primary(void *data, struct ext_data_control_device_v1 *d, struct ext_data_control_offer_v1 *offer) {
    (void)d; queue_simple(data, PBW_EVENT_SELECTION, id_of(offer), 1);
}
static const struct ext_data_control_device_v1_listener ext_device_listener = {
    .data_offer = ext_device_offer, .selection = ext_device_selection, .finished = ext_device_finished,
    .primary_selection = ext_device_primary,
};

static void wlr_device_offer(void *data, struct zwlr_data_control_device_v1 *d, struct zwlr_data_control_offer_v1 *offer) {
    (void)d; device_offer(data, (struct wl_proxy *)offer);
}
static void wlr_device_selection(void *data, struct zwlr_data_control_device_v1 *d, struct zwlr_data_control_offer_v1 *offer) {
    (void)d; queue_simple(data, PBW_EVENT_SELECTION, id_of(offer), 0);
}
static void wlr_device_finished(void *data, struct zwlr_data_control_device_v1 *d) { (void)d; queue_simple(data, PBW_EVENT_FINISHED, 0, 0); }
static void wlr_device_primary(void *data, struct zwlr_data_control_device_v1 *d, struct zwlr_data_control_offer_v1 *offer) {
    (void)d; queue_simple(data, PBW_EVENT_SELECTION, id_of(offer), 1);
}
static const struct zwlr_data_control_device_v1_listener wlr_device_listener = {
    .data_offer = wlr_device_offer, .selection = wlr_device_selection, .finished = wlr_device_finished,
    .primary_selection = wlr_device_primary,
};

// MARK: - Syncs

struct pbw_sync_token {
    pbw_connection *connection;
    uint32_t id;
};

static void sync_done(void *data, struct wl_callback *callback, uint32_t serial) {
    struct pbw_sync_token *token = data;
    (void)serial;
    queue_simple(token->connection, PBW_EVENT_SYNCED, token->id, 0);
    wl_callback_destroy(callback);
    free(token);
}

static const struct wl_callback_listener sync_listener = { .done = sync_done };

uint32_t pbw_sync(pbw_connection *c) {
    struct pbw_sync_token *token = calloc(1, sizeof *token);
    if (!token) return 0;
    struct wl_callback *callback = wl_display_sync(c->display);
    if (!callback) {
        free(token);
        return 0;
    }
    token->connection = c;
    token->id = ++c->last_id;
    wl_callback_add_listener(callback, &sync_listener, token);
    return token->id;
}

// MARK: - The registry

static void registry_global(void *data, struct wl_registry *registry, uint32_t name, const char *interface, uint32_t version) {
    pbw_connection *c = data;
    if (strcmp(interface, wl_seat_interface.name) == 0 && !c->seat) {
        c->seat = wl_registry_bind(registry, name, &wl_seat_interface, 1);
    } else if (strcmp(interface, ext_data_control_manager_v1_interface.name) == 0 && !c->ext_manager) {
        c->ext_manager = wl_registry_bind(registry, name, &ext_data_control_manager_v1_interface, 1);
    } else if (strcmp(interface, zwlr_data_control_manager_v1_interface.name) == 0 && !c->wlr_manager) {
        uint32_t bound = version < 2 ? version : 2;
        c->wlr_manager = wl_registry_bind(registry, name, &zwlr_data_control_manager_v1_interface, bound);
        if (c->wlr_manager) c->manager_version = bound;
    }
}

static void registry_global_remove(void *data, struct wl_registry *registry, uint32_t name) {
    (void)data; (void)registry; (void)name;   // a seat removed ends its device: `finished`
}

static const struct wl_registry_listener registry_listener = { .global = registry_global, .global_remove = registry_global_remove };

static void describe(char *error, size_t size, const char *what, int code) {
    if (error && size) snprintf(error, size, "%s%s%s", what, code ? ": " : "", code ? strerror(code) : "");
}

pbw_connection *pbw_connect(const char *name, char *error, size_t error_size) {
    pbw_connection *c = calloc(1, sizeof *c);
    if (!c) {
        describe(error, error_size, "out of memory", 0);
        return NULL;
    }
    c->display = wl_display_connect(name);
    if (!c->display) {
        describe(error, error_size, "cannot connect to the Wayland compositor", errno);
        free(c);
        return NULL;
    }
    c->registry = wl_display_get_registry(c->display);
    wl_registry_add_listener(c->registry, &registry_listener, c);
    if (wl_display_roundtrip(c->display) < 0) {
        describe(error, error_size, "the Wayland compositor did not answer", wl_display_get_error(c->display));
        pbw_disconnect(c);
        return NULL;
    }
    if (c->ext_manager) {
        c->protocol = PBW_PROTOCOL_EXT;
        c->manager_version = 1;
        if (c->wlr_manager) {
            zwlr_data_control_manager_v1_destroy(c->wlr_manager);
            c->wlr_manager = NULL;
        }
    } else if (c->wlr_manager) {
        c->protocol = PBW_PROTOCOL_WLR;
    } else {
        c->manager_version = 0;
    }
    if (c->protocol != PBW_PROTOCOL_NONE && c->seat) {
        if (c->protocol == PBW_PROTOCOL_EXT) {
            struct ext_data_control_device_v1 *device = ext_data_control_manager_v1_get_data_device(c->ext_manager, c->seat);
            ext_data_control_device_v1_add_listener(device, &ext_device_listener, c);
            c->device = (struct wl_proxy *)device;
        } else {
            struct zwlr_data_control_device_v1 *device = zwlr_data_control_manager_v1_get_data_device(c->wlr_manager, c->seat);
            zwlr_data_control_device_v1_add_listener(device, &wlr_device_listener, c);
            c->device = (struct wl_proxy *)device;
        }
        if (wl_display_roundtrip(c->display) < 0) {
            describe(error, error_size, "the Wayland compositor broke the connection", wl_display_get_error(c->display));
            pbw_disconnect(c);
            return NULL;
        }
    }
    return c;
}

void pbw_disconnect(pbw_connection *c) {
    if (!c) return;
    while (c->objects) {
        struct pbw_object *object = c->objects;
        wl_proxy_destroy(object->proxy);
        forget(c, object);
    }
    if (c->device) wl_proxy_destroy(c->device);
    if (c->ext_manager) ext_data_control_manager_v1_destroy(c->ext_manager);
    if (c->wlr_manager) zwlr_data_control_manager_v1_destroy(c->wlr_manager);
    if (c->seat) wl_seat_destroy(c->seat);
    if (c->registry) wl_registry_destroy(c->registry);
    if (c->display) wl_display_disconnect(c->display);
    pbw_event event;
    while (pbw_next_event(c, &event)) {
        if (event.fd >= 0) close(event.fd);
        free(event.text);
    }
    free(c->events);
    free(c);
}

pbw_protocol pbw_bound_protocol(const pbw_connection *c) { return c->device ? c->protocol : PBW_PROTOCOL_NONE; }
uint32_t pbw_manager_version(const pbw_connection *c) { return c->device ? c->manager_version : 0; }
int pbw_descriptor(const pbw_connection *c) { return wl_display_get_fd(c->display); }

int pbw_read(pbw_connection *c, char *error, size_t error_size) {
    while (wl_display_prepare_read(c->display) != 0) {
        if (wl_display_dispatch_pending(c->display) < 0) goto failed;
    }
    if (wl_display_read_events(c->display) < 0) goto failed;
    if (wl_display_dispatch_pending(c->display) < 0) goto failed;
    if (c->out_of_memory) {
        describe(error, error_size, "out of memory queuing Wayland events", 0);
        return -1;
    }
    return 0;
failed:
    describe(error, error_size, "the connection to the Wayland compositor was lost", wl_display_get_error(c->display));
    return -1;
}

int pbw_flush(pbw_connection *c) {
    if (wl_display_flush(c->display) >= 0) return 0;
    return errno == EAGAIN ? 1 : -1;
}

int pbw_next_event(pbw_connection *c, pbw_event *event) {
    if (c->count == 0) return 0;
    *event = c->events[c->head];
    c->head = (c->head + 1) % c->capacity;
    c->count--;
    return 1;
}

void pbw_free(void *pointer) { free(pointer); }

int pbw_receive(pbw_connection *c, uint32_t offer, const char *mime_type, int fd) {
    struct pbw_object *object = find(c, offer, 0);
    if (!object) return -1;
    if (c->protocol == PBW_PROTOCOL_EXT)
        ext_data_control_offer_v1_receive((struct ext_data_control_offer_v1 *)object->proxy, mime_type, fd);
    else
        zwlr_data_control_offer_v1_receive((struct zwlr_data_control_offer_v1 *)object->proxy, mime_type, fd);
    return 0;
}

void pbw_offer_destroy(pbw_connection *c, uint32_t offer) {
    struct pbw_object *object = find(c, offer, 0);
    if (!object) return;
    if (c->protocol == PBW_PROTOCOL_EXT) ext_data_control_offer_v1_destroy((struct ext_data_control_offer_v1 *)object->proxy);
    else zwlr_data_control_offer_v1_destroy((struct zwlr_data_control_offer_v1 *)object->proxy);
    forget(c, object);
}

uint32_t pbw_source_create(pbw_connection *c) {
    struct wl_proxy *proxy;
    if (c->protocol == PBW_PROTOCOL_EXT && c->ext_manager)
        proxy = (struct wl_proxy *)ext_data_control_manager_v1_create_data_source(c->ext_manager);
    else if (c->protocol == PBW_PROTOCOL_WLR && c->wlr_manager)
        proxy = (struct wl_proxy *)zwlr_data_control_manager_v1_create_data_source(c->wlr_manager);
    else
        return 0;
    if (!proxy) return 0;
    struct pbw_object *object = track(c, proxy, 1);
    if (!object) {
        wl_proxy_destroy(proxy);
        return 0;
    }
    if (c->protocol == PBW_PROTOCOL_EXT)
        ext_data_control_source_v1_add_listener((struct ext_data_control_source_v1 *)proxy, &ext_source_listener, object);
    else
        zwlr_data_control_source_v1_add_listener((struct zwlr_data_control_source_v1 *)proxy, &wlr_source_listener, object);
    return object->id;
}

void pbw_source_offer(pbw_connection *c, uint32_t source, const char *mime_type) {
    struct pbw_object *object = find(c, source, 1);
    if (!object) return;
    if (c->protocol == PBW_PROTOCOL_EXT) ext_data_control_source_v1_offer((struct ext_data_control_source_v1 *)object->proxy, mime_type);
    else zwlr_data_control_source_v1_offer((struct zwlr_data_control_source_v1 *)object->proxy, mime_type);
}

void pbw_source_destroy(pbw_connection *c, uint32_t source) {
    struct pbw_object *object = find(c, source, 1);
    if (!object) return;
    if (c->protocol == PBW_PROTOCOL_EXT) ext_data_control_source_v1_destroy((struct ext_data_control_source_v1 *)object->proxy);
    else zwlr_data_control_source_v1_destroy((struct zwlr_data_control_source_v1 *)object->proxy);
    forget(c, object);
}

int pbw_set_selection(pbw_connection *c, uint32_t source, int primary) {
    if (!c->device) return -1;
    struct pbw_object *object = source ? find(c, source, 1) : NULL;
    if (source && !object) return -1;
    struct wl_proxy *proxy = object ? object->proxy : NULL;
    if (c->protocol == PBW_PROTOCOL_EXT) {
        struct ext_data_control_device_v1 *device = (struct ext_data_control_device_v1 *)c->device;
        if (primary) ext_data_control_device_v1_set_primary_selection(device, (struct ext_data_control_source_v1 *)proxy);
        else ext_data_control_device_v1_set_selection(device, (struct ext_data_control_source_v1 *)proxy);
    } else {
        if (primary && c->manager_version < 2) return -1;
        struct zwlr_data_control_device_v1 *device = (struct zwlr_data_control_device_v1 *)c->device;
        if (primary) zwlr_data_control_device_v1_set_primary_selection(device, (struct zwlr_data_control_source_v1 *)proxy);
        else zwlr_data_control_device_v1_set_selection(device, (struct zwlr_data_control_source_v1 *)proxy);
    }
    return 0;
}
