// SPDX-License-Identifier: Apache-2.0
/*
 * pbreq: an efficient, verifying X selection requestor for the stress scenarios (one per process, so a
 * hundred of them cost little on two cores). Content is the self-verifying format of stresscontent.py:
 * every paste is checked byte for byte against the body regenerated from its header.
 *
 * Usage (DISPLAY from the environment; the selection is CLIPBOARD unless -s NAME):
 *   pbreq [-s NAME] load SECONDS BIG_TARGET SMALL_TARGET
 *       pastes alternately BIG_TARGET (kind B) and SMALL_TARGET (kind S) for SECONDS; prints one JSON
 *       line: big, small, bytes, incr (pastes that came by INCR), chunks, refused, errors, first_error,
 *       seq_first, seq_last, went_back (a paste older than the one before it)
 *   pbreq [-s NAME] paste TARGET KIND
 *       one verified paste; prints JSON (ok, seq, bytes, incr, chunks, error); exit 0 only if ok
 *
 * Every wait is poll() on the X connection with a timeout (PB_REQ_TIMEOUT_MS, default 10000 ms).
 * A requestor does not trust a window after a failure: the next paste uses a fresh one, so a late
 * reply cannot be taken for the next paste's data.
 */
#define _POSIX_C_SOURCE 200809L
#include <X11/Xatom.h>
#include <X11/Xlib.h>
#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define HEADER_BYTES 42
#define POOL_BYTES 65521

static Display *dpy;
static Window win;
static Atom a_selection, a_incr, a_prop;
static int timeout_ms = 10000;
static unsigned char pool[POOL_BYTES];
static uint32_t crc_table[256];

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void init_tables(void) {
    uint32_t x = 0x9E3779B9u;
    for (int i = 0; i < POOL_BYTES; i++) {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        pool[i] = (unsigned char)(x & 0xFF);
    }
    for (uint32_t n = 0; n < 256; n++) {
        uint32_t c = n;
        for (int k = 0; k < 8; k++) c = c & 1 ? 0xEDB88320u ^ (c >> 1) : c >> 1;
        crc_table[n] = c;
    }
}

static uint32_t crc32(const unsigned char *p, size_t n) {
    uint32_t c = 0xFFFFFFFFu;
    for (size_t i = 0; i < n; i++) c = crc_table[(c ^ p[i]) & 0xFF] ^ (c >> 8);
    return c ^ 0xFFFFFFFFu;
}

/* Checks data against the stresscontent format; returns NULL if whole and untouched, else why.
 * *seq gets the header's sequence number (-1 if unreadable). */
static const char *verify(const unsigned char *data, size_t n, char want_kind, long *seq) {
    static char why[160];
    *seq = -1;
    if (n < HEADER_BYTES || memcmp(data, "PBSTRESS ", 9) != 0) {
        snprintf(why, sizeof why, "no header (%zu bytes)", n);
        return why;
    }
    char header[HEADER_BYTES + 1];
    memcpy(header, data, HEADER_BYTES);
    header[HEADER_BYTES] = 0;
    long s, length;
    char kind;
    unsigned int crc;
    if (sscanf(header, "PBSTRESS %ld %c %ld %x", &s, &kind, &length, &crc) != 4) return "malformed header";
    *seq = s;
    if (kind != want_kind) {
        snprintf(why, sizeof why, "kind %c, expected %c", kind, want_kind);
        return why;
    }
    if ((size_t)length != n - HEADER_BYTES) {
        snprintf(why, sizeof why, "%zu body bytes, header says %ld (seq %ld)", n - HEADER_BYTES, length, s);
        return why;
    }
    const unsigned char *b = data + HEADER_BYTES;
    unsigned char k = (unsigned char)((s * 167 + 89) & 0xFF);
    long j = (s * 40503) % POOL_BYTES;
    for (long i = 0; i < length; i++) {
        unsigned char v = pool[j] ^ k;
        if (kind == 'S') v = (unsigned char)(0x61 + v % 26);
        if (b[i] != v) {
            snprintf(why, sizeof why, "byte %ld of the body differs from seq %ld's (mixed or corrupted)", i, s);
            return why;
        }
        if (++j == POOL_BYTES) j = 0;
    }
    if (crc32(b, (size_t)length) != crc) return "crc mismatch";
    return NULL;
}

static void new_window(void) {
    if (win) XDestroyWindow(dpy, win);
    win = XCreateSimpleWindow(dpy, DefaultRootWindow(dpy), 0, 0, 1, 1, 0, 0, 0);
    XSelectInput(dpy, win, PropertyChangeMask);
    XSync(dpy, False);
}

/* Waits for SelectionNotify to our window, or PropertyNotify(NewValue) of our property. 1 ok, 0 timeout. */
static int wait_event(int type, XEvent *out) {
    double deadline = now_s() + timeout_ms / 1000.0;
    for (;;) {
        while (XPending(dpy) > 0) {
            XNextEvent(dpy, out);
            if (out->type != type) continue;
            if (type == PropertyNotify && (out->xproperty.window != win || out->xproperty.atom != a_prop ||
                                           out->xproperty.state != PropertyNewValue))
                continue;
            if (type == SelectionNotify && out->xselection.requestor != win) continue;
            return 1;
        }
        double left = deadline - now_s();
        if (left <= 0) return 0;
        struct pollfd p = {.fd = ConnectionNumber(dpy), .events = POLLIN};
        int r = poll(&p, 1, (int)(left * 1000) + 1);
        if (r < 0 && errno != EINTR) return 0;
    }
}

/* Reads and deletes the whole property; returns a malloc'd buffer (len in *n) or NULL if absent. */
static unsigned char *read_property(Atom *type, int *format, size_t *n) {
    unsigned char *buf = NULL;
    size_t len = 0;
    long offset = 0;
    *type = None;
    for (;;) {
        Atom t;
        int f;
        unsigned long items, after;
        unsigned char *data = NULL;
        if (XGetWindowProperty(dpy, win, a_prop, offset, 4 << 20, True, AnyPropertyType, &t, &f, &items, &after,
                               &data) != Success)
            break;
        if (t == None) { if (data) XFree(data); break; }
        size_t unit = f == 8 ? 1 : f == 16 ? sizeof(short) : sizeof(long);
        buf = realloc(buf, len + items * unit + 1);
        if (!buf) { fprintf(stderr, "pbreq: out of memory\n"); exit(1); }
        memcpy(buf + len, data, items * unit);
        len += items * unit;
        XFree(data);
        *type = t;
        *format = f;
        if (after == 0) break;
        offset += (long)(f == 8 ? items / 4 : f == 16 ? items / 2 : items);
    }
    *n = len;
    if (*type == None) { free(buf); return NULL; }
    return buf;
}

struct paste {
    int refused, incr;
    unsigned long chunks;
    size_t bytes;
    long seq;
    const char *error; /* NULL if the paste is whole and verified (or refused) */
};

static struct paste paste(Atom target, char kind) {
    static char why[200];
    struct paste r = {0};
    r.seq = -1;
    XEvent ev;
    XConvertSelection(dpy, a_selection, target, a_prop, win, CurrentTime);
    XFlush(dpy);
    if (!wait_event(SelectionNotify, &ev)) { r.error = "timed out waiting for SelectionNotify"; return r; }
    if (ev.xselection.property == None) { r.refused = 1; return r; }
    Atom type;
    int format;
    size_t n;
    unsigned char *data = read_property(&type, &format, &n);
    if (!data) { r.error = "SelectionNotify named a property that is absent"; return r; }
    if (type == a_incr) {
        r.incr = 1;
        free(data);
        size_t cap = 2 << 20, len = 0;
        unsigned char *all = malloc(cap);
        for (;;) {
            if (!wait_event(PropertyNotify, &ev)) {
                free(all);
                r.error = "timed out waiting for an INCR chunk";
                return r;
            }
            size_t m;
            unsigned char *chunk = read_property(&type, &format, &m);
            if (!chunk) continue; /* a NewValue we already consumed with an earlier read */
            if (m == 0) { free(chunk); break; }
            r.chunks++;
            if (len + m > cap) {
                while (len + m > cap) cap *= 2;
                all = realloc(all, cap);
            }
            memcpy(all + len, chunk, m);
            len += m;
            free(chunk);
        }
        data = all;
        n = len;
    }
    r.bytes = n;
    const char *bad = verify(data, n, kind, &r.seq);
    if (bad) {
        snprintf(why, sizeof why, "%s%s", r.incr ? "INCR paste: " : "", bad);
        r.error = why;
    }
    free(data);
    return r;
}

static void json_string(const char *s) {
    putchar('"');
    for (; s && *s; s++) {
        if (*s == '"' || *s == '\\') putchar('\\');
        putchar(*s >= 32 ? *s : '?');
    }
    putchar('"');
}

static int load(double seconds, const char *big_name, const char *small_name) {
    Atom big = XInternAtom(dpy, big_name, False), small = XInternAtom(dpy, small_name, False);
    unsigned long n_big = 0, n_small = 0, incr = 0, chunks = 0, refused = 0, errors = 0, went_back = 0;
    unsigned long long bytes = 0;
    long seq_first = -1, seq_last = -1;
    char first_error[256] = "";
    double end = now_s() + seconds;
    for (unsigned long i = 0; now_s() < end; i++) {
        int is_big = i % 2 == 0;
        struct paste r = paste(is_big ? big : small, is_big ? 'B' : 'S');
        if (r.refused) { refused++; continue; }
        if (r.error) {
            if (!errors) snprintf(first_error, sizeof first_error, "%s", r.error);
            errors++;
            new_window();
            continue;
        }
        if (is_big) n_big++; else n_small++;
        bytes += r.bytes;
        incr += r.incr;
        chunks += r.chunks;
        if (seq_first < 0) seq_first = r.seq;
        if (r.seq < seq_last) went_back++;
        seq_last = r.seq;
    }
    printf("{\"big\": %lu, \"small\": %lu, \"bytes\": %llu, \"incr\": %lu, \"chunks\": %lu, \"refused\": %lu, "
           "\"errors\": %lu, \"went_back\": %lu, \"seq_first\": %ld, \"seq_last\": %ld, \"first_error\": ",
           n_big, n_small, bytes, incr, chunks, refused, errors, went_back, seq_first, seq_last);
    json_string(first_error);
    printf("}\n");
    return 0;
}

int main(int argc, char **argv) {
    const char *selection = "CLIPBOARD";
    int i = 1;
    if (i + 1 < argc && strcmp(argv[i], "-s") == 0) { selection = argv[i + 1]; i += 2; }
    if (i >= argc) goto usage;
    const char *mode = argv[i++];
    const char *env = getenv("PB_REQ_TIMEOUT_MS");
    if (env && atoi(env) > 0) timeout_ms = atoi(env);
    init_tables();
    dpy = XOpenDisplay(NULL);
    if (!dpy) { fprintf(stderr, "pbreq: cannot open display %s\n", XDisplayName(NULL)); return 1; }
    a_selection = XInternAtom(dpy, selection, False);
    a_incr = XInternAtom(dpy, "INCR", False);
    a_prop = XInternAtom(dpy, "PB_STRESS_PROPERTY", False);
    new_window();
    int status = 0;
    if (strcmp(mode, "load") == 0 && i + 2 < argc) {
        status = load(atof(argv[i]), argv[i + 1], argv[i + 2]);
    } else if (strcmp(mode, "paste") == 0 && i + 1 < argc) {
        struct paste r = paste(XInternAtom(dpy, argv[i], False), argv[i + 1][0]);
        printf("{\"ok\": %s, \"refused\": %s, \"seq\": %ld, \"bytes\": %zu, \"incr\": %s, \"chunks\": %lu, \"error\": ",
               !r.error && !r.refused ? "true" : "false", r.refused ? "true" : "false", r.seq, r.bytes,
               r.incr ? "true" : "false", r.chunks);
        json_string(r.error ? r.error : "");
        printf("}\n");
        status = r.error || r.refused ? 1 : 0;
    } else {
        XCloseDisplay(dpy);
        goto usage;
    }
    XDestroyWindow(dpy, win);
    XCloseDisplay(dpy);
    return status;
usage:
    fprintf(stderr, "usage: pbreq [-s SELECTION] load SECONDS BIG_TARGET SMALL_TARGET | paste TARGET KIND\n");
    return 64;
}
