// SPDX-License-Identifier: Apache-2.0
/*
 * wlclip: a Wayland data-control client for bench/wayland.py and stress (sway's zwlr_data_control_manager_v1,
 * through the project's own protocol glue in Sources/CWaylandShims/generated).
 *
 * Usage (WAYLAND_DISPLAY from the environment: a socket name or an absolute path):
 *   wlclip types                 the seat's selection's MIME types, one a line (exit 2: no selection)
 *   wlclip paste MIME OUT        one paste of MIME from the seat's selection; writes the bytes to OUT after the
 *                                clock stops and prints JSON (bytes, seconds, mib_per_s)
 *   wlclip latency MIME N        N pastes of MIME from one long-lived client (receive, then read to end of file);
 *                                prints JSON: the median, p90, min and max of one paste, in microseconds
 *   wlclip persist               a stand-in for wl-clip-persist's approach (not the tool, which Debian does not
 *                                ship): at each new selection of another client it asks for every offered MIME
 *                                type at once, reads them all into memory, then sets the selection to a source of
 *                                its own offering them all (writing each paste from memory, blocking, in a thread
 *                                of its own per paste, as wl-clip-persist writes in the background). Its own
 *                                selections carry the MIME type application/x-wlclip-persist (wl-clip-persist
 *                                tells its own by the fd it is sent instead). Prints "kept N types B bytes" to
 *                                stderr for each copy kept. Runs until SIGTERM.
 *
 * A paste's clock runs from the receive request to the end of file, CLOCK_MONOTONIC; every wait is poll() with
 * a timeout (WLCLIP_TIMEOUT_MS, default 10000 ms). Exit status: 0 ok, 1 failed or timed out, 2 no selection,
 * 3 type not offered, 64 usage.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <wayland-client.h>

#include "wlr-data-control-unstable-v1-client-protocol.h"

#define MARKER "application/x-wlclip-persist"
#define MAX_TYPES 256

static struct wl_display *display;
static struct wl_seat *seat;
static struct zwlr_data_control_manager_v1 *manager;
static struct zwlr_data_control_device_v1 *device;
static int timeout_ms = 10000;

struct offer {
    struct zwlr_data_control_offer_v1 *proxy;
    int count;
    char *types[MAX_TYPES];
};
static struct offer *pending;   /* the offer whose types are arriving */
static struct offer *selection; /* the seat's selection, or NULL */
static int selection_changed;

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void die(const char *what) {
    fprintf(stderr, "wlclip: %s\n", what);
    exit(1);
}

static void free_offer(struct offer *o) {
    if (!o) return;
    for (int i = 0; i < o->count; i++) free(o->types[i]);
    zwlr_data_control_offer_v1_destroy(o->proxy);
    free(o);
}

static int offers(const struct offer *o, const char *mime) {
    for (int i = 0; o && i < o->count; i++)
        if (strcmp(o->types[i], mime) == 0) return 1;
    return 0;
}

static void offer_type(void *data, struct zwlr_data_control_offer_v1 *proxy, const char *mime) {
    (void)proxy;
    struct offer *o = data;
    if (o->count < MAX_TYPES) o->types[o->count++] = strdup(mime);
}
static const struct zwlr_data_control_offer_v1_listener offer_listener = {.offer = offer_type};

static void device_offer(void *data, struct zwlr_data_control_device_v1 *d, struct zwlr_data_control_offer_v1 *proxy) {
    (void)data; (void)d;
    struct offer *o = calloc(1, sizeof *o);
    o->proxy = proxy;
    zwlr_data_control_offer_v1_add_listener(proxy, &offer_listener, o);
    pending = o;
}
static void device_selection(void *data, struct zwlr_data_control_device_v1 *d, struct zwlr_data_control_offer_v1 *proxy) {
    (void)data; (void)d;
    if (selection && selection != pending) free_offer(selection);
    selection = (proxy && pending && pending->proxy == proxy) ? pending : NULL;
    pending = NULL;
    selection_changed = 1;
}
static void device_primary(void *data, struct zwlr_data_control_device_v1 *d, struct zwlr_data_control_offer_v1 *proxy) {
    (void)data; (void)d;
    if (pending && proxy && pending->proxy == proxy) { free_offer(pending); pending = NULL; }
    else if (proxy) zwlr_data_control_offer_v1_destroy(proxy);
}
static void device_finished(void *data, struct zwlr_data_control_device_v1 *d) {
    (void)data; (void)d;
    die("the data-control device was finished");
}
static const struct zwlr_data_control_device_v1_listener device_listener = {
    .data_offer = device_offer, .selection = device_selection, .finished = device_finished, .primary_selection = device_primary};

static void global(void *data, struct wl_registry *registry, uint32_t name, const char *interface, uint32_t version) {
    (void)data;
    if (strcmp(interface, wl_seat_interface.name) == 0 && !seat)
        seat = wl_registry_bind(registry, name, &wl_seat_interface, 1);
    else if (strcmp(interface, zwlr_data_control_manager_v1_interface.name) == 0)
        manager = wl_registry_bind(registry, name, &zwlr_data_control_manager_v1_interface, version < 2 ? version : 2);
}
static void global_remove(void *data, struct wl_registry *registry, uint32_t name) { (void)data; (void)registry; (void)name; }
static const struct wl_registry_listener registry_listener = {.global = global, .global_remove = global_remove};

static void connect_seat(void) {
    display = wl_display_connect(NULL);
    if (!display) die("cannot connect to the compositor ($WAYLAND_DISPLAY)");
    struct wl_registry *registry = wl_display_get_registry(display);
    wl_registry_add_listener(registry, &registry_listener, NULL);
    wl_display_roundtrip(display);
    if (!seat || !manager) die("the compositor offers no seat or no zwlr_data_control_manager_v1");
    device = zwlr_data_control_manager_v1_get_data_device(manager, seat);
    zwlr_data_control_device_v1_add_listener(device, &device_listener, NULL);
    wl_display_roundtrip(display); /* the current selection's offer, its types and the selection event */
}

/* Reads `fd` to its end into a growing buffer; returns the byte count (-1: timed out or failed). */
static ssize_t read_all(int fd, char **buffer, size_t *capacity) {
    size_t used = 0;
    for (;;) {
        if (*capacity - used < 65536) {
            *capacity = *capacity ? *capacity * 2 : 1 << 20;
            *buffer = realloc(*buffer, *capacity);
            if (!*buffer) die("out of memory");
        }
        ssize_t n = read(fd, *buffer + used, *capacity - used);
        if (n > 0) { used += (size_t)n; continue; }
        if (n == 0) return (ssize_t)used;
        if (errno == EINTR) continue;
        if (errno != EAGAIN) return -1;
        struct pollfd p = {.fd = fd, .events = POLLIN};
        if (poll(&p, 1, timeout_ms) <= 0) return -1;
    }
}

/* One paste of `mime` from the current selection: the bytes in *buffer, the seconds it took in *seconds. */
static ssize_t paste_once(const char *mime, char **buffer, size_t *capacity, double *seconds) {
    int fds[2];
    if (pipe2(fds, O_CLOEXEC | O_NONBLOCK) != 0) die("cannot make a pipe");
    double began = now_s();
    zwlr_data_control_offer_v1_receive(selection->proxy, mime, fds[1]);
    wl_display_flush(display);
    close(fds[1]);
    ssize_t n = read_all(fds[0], buffer, capacity);
    *seconds = now_s() - began;
    close(fds[0]);
    return n;
}

static void need_type(const char *mime) {
    if (!selection) { fprintf(stderr, "wlclip: the seat has no selection\n"); exit(2); }
    if (!offers(selection, mime)) { fprintf(stderr, "wlclip: %s is not offered\n", mime); exit(3); }
}

static int compare(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* --- the wl-clip-persist stand-in ------------------------------------------------------------------------ */

struct kept {
    int count;
    char *types[MAX_TYPES];
    char *data[MAX_TYPES];
    size_t sizes[MAX_TYPES];
    int refs; /* the source, and each paste being written */
};
static pthread_mutex_t kept_lock = PTHREAD_MUTEX_INITIALIZER;

static void release(struct kept *k) {
    pthread_mutex_lock(&kept_lock);
    int last = --k->refs == 0;
    pthread_mutex_unlock(&kept_lock);
    if (!last) return;
    for (int i = 0; i < k->count; i++) { free(k->types[i]); free(k->data[i]); }
    free(k);
}

struct writing { struct kept *kept; int index; int fd; };

static void *write_paste(void *arg) {
    struct writing *w = arg;
    const char *p = w->kept->data[w->index];
    size_t left = w->kept->sizes[w->index];
    int flags = fcntl(w->fd, F_GETFL);
    fcntl(w->fd, F_SETFL, flags & ~O_NONBLOCK);
    while (left > 0) {
        ssize_t n = write(w->fd, p, left);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        p += n; left -= (size_t)n;
    }
    close(w->fd);
    release(w->kept);
    free(w);
    return NULL;
}

static void source_send(void *data, struct zwlr_data_control_source_v1 *source, const char *mime, int32_t fd) {
    (void)source;
    struct kept *k = data;
    for (int i = 0; i < k->count; i++) {
        if (strcmp(k->types[i], mime) != 0) continue;
        struct writing *w = malloc(sizeof *w);
        *w = (struct writing){.kept = k, .index = i, .fd = fd};
        pthread_mutex_lock(&kept_lock);
        k->refs++;
        pthread_mutex_unlock(&kept_lock);
        pthread_t thread;
        pthread_attr_t attributes;
        pthread_attr_init(&attributes);
        pthread_attr_setdetachstate(&attributes, PTHREAD_CREATE_DETACHED);
        if (pthread_create(&thread, &attributes, write_paste, w) != 0) { close(fd); release(k); free(w); }
        pthread_attr_destroy(&attributes);
        return;
    }
    close(fd);
}
static void source_cancelled(void *data, struct zwlr_data_control_source_v1 *source) {
    zwlr_data_control_source_v1_destroy(source);
    release(data);
}
static const struct zwlr_data_control_source_v1_listener source_listener = {.send = source_send, .cancelled = source_cancelled};

/* Reads every type of the selection at once (a pipe each, all asked for before any is read), into memory. */
static struct kept *read_everything(struct offer *o) {
    struct kept *k = calloc(1, sizeof *k);
    int fds[MAX_TYPES];
    size_t used[MAX_TYPES] = {0}, capacity[MAX_TYPES] = {0};
    for (int i = 0; i < o->count; i++) {
        int p[2];
        if (pipe2(p, O_CLOEXEC | O_NONBLOCK) != 0) die("cannot make a pipe");
        zwlr_data_control_offer_v1_receive(o->proxy, o->types[i], p[1]);
        close(p[1]);
        fds[i] = p[0];
        k->types[i] = strdup(o->types[i]);
    }
    k->count = o->count;
    wl_display_flush(display);
    int open_count = o->count;
    double deadline = now_s() + timeout_ms / 1000.0;
    while (open_count > 0) {
        struct pollfd p[MAX_TYPES];
        int index[MAX_TYPES], n = 0;
        for (int i = 0; i < k->count; i++)
            if (fds[i] >= 0) { p[n] = (struct pollfd){.fd = fds[i], .events = POLLIN}; index[n++] = i; }
        int left = (int)((deadline - now_s()) * 1000);
        if (left <= 0 || poll(p, (nfds_t)n, left) <= 0) break; /* the read timeout: keep what came */
        for (int j = 0; j < n; j++) {
            if (!p[j].revents) continue;
            int i = index[j];
            if (capacity[i] - used[i] < 65536) {
                capacity[i] = capacity[i] ? capacity[i] * 2 : 65536;
                k->data[i] = realloc(k->data[i], capacity[i]);
                if (!k->data[i]) die("out of memory");
            }
            ssize_t r = read(fds[i], k->data[i] + used[i], capacity[i] - used[i]);
            if (r > 0) used[i] += (size_t)r;
            else if (r == 0 || errno != EAGAIN) { close(fds[i]); fds[i] = -1; open_count--; }
        }
    }
    for (int i = 0; i < k->count; i++) {
        if (fds[i] >= 0) close(fds[i]);
        k->sizes[i] = used[i];
    }
    k->refs = 1;
    return k;
}

static volatile sig_atomic_t stopping;
static void on_term(int sig) { (void)sig; stopping = 1; }

static int persist(void) {
    signal(SIGPIPE, SIG_IGN);
    struct sigaction action = {.sa_handler = on_term};
    sigaction(SIGTERM, &action, NULL);
    sigaction(SIGINT, &action, NULL);
    selection_changed = selection != NULL;
    while (!stopping) {
        if (selection_changed) {
            selection_changed = 0;
            if (selection && !offers(selection, MARKER) && selection->count > 0) {
                struct kept *k = read_everything(selection);
                size_t total = 0;
                struct zwlr_data_control_source_v1 *source = zwlr_data_control_manager_v1_create_data_source(manager);
                for (int i = 0; i < k->count; i++) {
                    zwlr_data_control_source_v1_offer(source, k->types[i]);
                    total += k->sizes[i];
                }
                zwlr_data_control_source_v1_offer(source, MARKER);
                zwlr_data_control_source_v1_add_listener(source, &source_listener, k);
                zwlr_data_control_device_v1_set_selection(device, source);
                wl_display_flush(display);
                fprintf(stderr, "kept %d types %zu bytes\n", k->count, total);
            }
        }
        while (wl_display_prepare_read(display) != 0) wl_display_dispatch_pending(display);
        wl_display_flush(display);
        struct pollfd p = {.fd = wl_display_get_fd(display), .events = POLLIN};
        if (poll(&p, 1, -1) < 0) {
            wl_display_cancel_read(display);
            if (errno == EINTR) continue;
            die("poll failed");
        }
        if (wl_display_read_events(display) != 0) die("the compositor went away");
        wl_display_dispatch_pending(display);
    }
    return 0;
}

int main(int argc, char **argv) {
    const char *t = getenv("WLCLIP_TIMEOUT_MS");
    if (t) timeout_ms = atoi(t);
    if (argc < 2) goto usage;
    connect_seat();
    if (strcmp(argv[1], "types") == 0 && argc == 2) {
        if (!selection) return 2;
        for (int i = 0; i < selection->count; i++) printf("%s\n", selection->types[i]);
        return 0;
    }
    if (strcmp(argv[1], "paste") == 0 && argc == 4) {
        need_type(argv[2]);
        char *buffer = NULL;
        size_t capacity = 0;
        double seconds;
        ssize_t n = paste_once(argv[2], &buffer, &capacity, &seconds);
        if (n < 0) die("the paste timed out or failed");
        FILE *out = fopen(argv[3], "wb");
        if (!out || fwrite(buffer, 1, (size_t)n, out) != (size_t)n || fclose(out) != 0) die("cannot write OUT");
        printf("{\"bytes\": %zd, \"seconds\": %.9f, \"mib_per_s\": %.3f}\n", n, seconds,
               seconds > 0 ? (double)n / (1 << 20) / seconds : 0.0);
        return 0;
    }
    if (strcmp(argv[1], "latency") == 0 && argc == 4) {
        need_type(argv[2]);
        int runs = atoi(argv[3]);
        if (runs <= 0) goto usage;
        double *times = calloc((size_t)runs, sizeof *times);
        char *buffer = NULL;
        size_t capacity = 0;
        ssize_t first = -1;
        for (int i = 0; i < runs; i++) {
            ssize_t n = paste_once(argv[2], &buffer, &capacity, &times[i]);
            if (n < 0 || (first >= 0 && n != first)) die("a paste timed out, failed or gave other bytes");
            first = n;
        }
        qsort(times, (size_t)runs, sizeof *times, compare);
        printf("{\"runs\": %d, \"bytes\": %zd, \"median_us\": %.1f, \"p90_us\": %.1f, \"min_us\": %.1f, \"max_us\": %.1f}\n",
               runs, first, times[runs / 2] * 1e6, times[(runs * 9) / 10] * 1e6, times[0] * 1e6, times[runs - 1] * 1e6);
        return 0;
    }
    if (strcmp(argv[1], "persist") == 0 && argc == 2) return persist();
usage:
    fprintf(stderr, "usage: wlclip types | paste MIME OUT | latency MIME N | persist\n");
    return 64;
}
