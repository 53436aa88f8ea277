// SPDX-License-Identifier: Apache-2.0
/*
 * requestor: a long-lived X selection requestor for bench/run.sh.
 *
 * Usage (DISPLAY from the environment; the selection is CLIPBOARD unless -s NAME):
 *   requestor [-s NAME] roundtrip N     N x (TARGETS then UTF8_STRING); prints JSON with the median,
 *                                       p90, min and max of one pair, in microseconds
 *   requestor [-s NAME] bulk TARGET OUT one conversion of TARGET, INCR handled as a requestor; writes
 *                                       the bytes to OUT after the clock stops and prints JSON
 *                                       (bytes, seconds, MiB/s, incr, chunks, largest chunk, header)
 *   requestor [-s NAME] targets-bulk TARGET OUT
 *                                       the same after asking TARGETS first, as toolkits do (Qt, Chromium,
 *                                       Firefox): the figures time both conversions
 *   requestor [-s NAME] wait-owner MS   exits 0 once the selection has an owner, 1 after MS ms
 *   requestor [-s NAME] wait-none MS    exits 0 once the selection has no owner, 1 after MS ms
 *   requestor atoms                     interns the text atoms (xsel offers UTF8_STRING only if the
 *                                       atom already exists on the server)
 *
 * Every request uses CurrentTime; every wait is poll() on the X connection with a timeout
 * (PB_REQ_TIMEOUT_MS, default 10000 ms, per event). Times come from CLOCK_MONOTONIC.
 * Exit status: 0 ok, 1 refused/timed out/failed, 64 usage.
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

static Display *dpy;
static Window win;
static Atom a_selection, a_targets, a_utf8, a_incr, a_prop;
static int timeout_ms = 10000;
static long iteration = -1; /* for messages: which round trip failed */

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void die(const char *what) {
    fprintf(stderr, "requestor: %s\n", what);
    exit(1);
}

/* Waits for the next event matching `type` (and for PropertyNotify: our property, state `state`).
 * Returns 1 with *out filled, 0 on timeout. Other events are dropped. */
static int wait_event(int type, int state, XEvent *out) {
    double deadline = now_s() + timeout_ms / 1000.0;
    for (;;) {
        while (XPending(dpy) > 0) {
            XNextEvent(dpy, out);
            if (out->type != type) continue;
            if (type == PropertyNotify &&
                (out->xproperty.atom != a_prop || out->xproperty.state != state || out->xproperty.window != win))
                continue;
            if (type == SelectionNotify && out->xselection.requestor != win) continue;
            return 1;
        }
        double left = deadline - now_s();
        if (left <= 0) return 0;
        struct pollfd p = {.fd = ConnectionNumber(dpy), .events = POLLIN};
        int r = poll(&p, 1, (int)(left * 1000) + 1);
        if (r < 0 && errno != EINTR) die("poll failed");
        if (r == 0 && XPending(dpy) == 0) return 0;
    }
}

/* Reads the whole property in pieces of at most 16 MiB; deletes it on the last piece. */
static unsigned char *read_property(Atom *type, int *format, unsigned long *nbytes) {
    unsigned char *buf = NULL;
    size_t len = 0;
    long offset = 0; /* in 32-bit units */
    for (;;) {
        Atom t;
        int f;
        unsigned long n, after;
        unsigned char *data = NULL;
        if (XGetWindowProperty(dpy, win, a_prop, offset, 4 << 20, True, AnyPropertyType, &t, &f, &n, &after,
                               &data) != Success)
            die("XGetWindowProperty failed");
        if (t == None) { if (data) XFree(data); break; }
        size_t unit = f == 8 ? 1 : f == 16 ? sizeof(short) : sizeof(long);
        size_t bytes = n * unit;
        buf = realloc(buf, len + bytes + 1);
        if (!buf) die("out of memory");
        memcpy(buf + len, data, bytes);
        len += bytes;
        XFree(data);
        *type = t;
        *format = f;
        if (after == 0) break;
        offset += (long)(f == 8 ? n / 4 : f == 16 ? n / 2 : n);
    }
    *nbytes = len;
    return buf;
}

/* One ConvertSelection and its answer, without INCR. Returns the byte count or -1 if refused. */
static long convert_small(Atom target) {
    XEvent ev;
    XConvertSelection(dpy, a_selection, target, a_prop, win, CurrentTime);
    XFlush(dpy);
    if (!wait_event(SelectionNotify, 0, &ev)) {
        char *name = XGetAtomName(dpy, target);
        /* Tells "the owner never answered" from "the owner wrote the reply but no notify came". */
        Atom t = None;
        int f;
        unsigned long items = 0, after = 0;
        unsigned char *d = NULL;
        XGetWindowProperty(dpy, win, a_prop, 0, 0, False, AnyPropertyType, &t, &f, &items, &after, &d);
        if (d) XFree(d);
        fprintf(stderr, "requestor: timed out after %d ms waiting for SelectionNotify (%s, round trip %ld; "
                "reply property %s, %d event(s) queued)\n", timeout_ms, name ? name : "?", iteration,
                t == None ? "absent" : "present", XPending(dpy));
        exit(1);
    }
    if (ev.xselection.property == None) return -1;
    Atom type;
    int format;
    unsigned long n = 0;
    unsigned char *data = read_property(&type, &format, &n);
    if (type == a_incr) die("unexpected INCR for a small target");
    free(data);
    return (long)n;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static int roundtrip(int n) {
    if (n < 1 || n > 100000) { fprintf(stderr, "requestor: N out of range\n"); return 64; }
    double *s = calloc((size_t)n, sizeof(double));
    /* One untimed pair: Xlib's first requests carry set-up costs. */
    if (convert_small(a_targets) < 0 || convert_small(a_utf8) < 0) die("owner refused TARGETS or UTF8_STRING");
    for (int i = 0; i < n; i++) {
        iteration = i;
        double t0 = now_s();
        long a = convert_small(a_targets);
        long b = convert_small(a_utf8);
        s[i] = (now_s() - t0) * 1e6;
        if (a < 0 || b < 0) die("owner refused TARGETS or UTF8_STRING");
    }
    qsort(s, (size_t)n, sizeof(double), cmp_double);
    printf("{\"n\": %d, \"median_us\": %.1f, \"p90_us\": %.1f, \"min_us\": %.1f, \"max_us\": %.1f}\n", n,
           s[n / 2], s[(int)(n * 0.9)], s[0], s[n - 1]);
    free(s);
    return 0;
}

static int bulk(const char *target_name, const char *out_path, int targets_first) {
    Atom target = XInternAtom(dpy, target_name, False);
    XEvent ev;
    /* Drop stale state from an earlier run on this window. */
    XDeleteProperty(dpy, win, a_prop);
    XSync(dpy, False);
    while (XPending(dpy) > 0) XNextEvent(dpy, &ev);

    double t0 = now_s();
    if (targets_first && convert_small(a_targets) < 0) die("owner refused TARGETS");
    XConvertSelection(dpy, a_selection, target, a_prop, win, CurrentTime);
    XFlush(dpy);
    if (!wait_event(SelectionNotify, 0, &ev)) die("timed out waiting for SelectionNotify");
    if (ev.xselection.property == None) die("owner refused the target");
    Atom type;
    int format;
    unsigned long n = 0;
    unsigned char *data = read_property(&type, &format, &n); /* deletes the property */
    int incr = type == a_incr;
    unsigned long chunks = 0, largest = 0, header = 0;
    if (incr) {
        if (n >= sizeof(long)) header = (unsigned long)*(long *)data;
        free(data);
        /* The header was deleted by read_property; each chunk arrives as a new value. */
        size_t cap = header > 0 && header < (1UL << 31) ? header : (1 << 20);
        unsigned char *all = malloc(cap);
        size_t len = 0;
        if (!all) die("out of memory");
        for (;;) {
            if (!wait_event(PropertyNotify, PropertyNewValue, &ev)) die("timed out waiting for an INCR chunk");
            unsigned long m = 0;
            unsigned char *chunk = read_property(&type, &format, &m);
            if (m == 0) { free(chunk); break; }
            chunks++;
            if (m > largest) largest = m;
            if (len + m > cap) {
                while (len + m > cap) cap *= 2;
                all = realloc(all, cap);
                if (!all) die("out of memory");
            }
            memcpy(all + len, chunk, m);
            len += m;
            free(chunk);
        }
        data = all;
        n = len;
    }
    double secs = now_s() - t0;
    FILE *f = fopen(out_path, "wb");
    if (!f || (n > 0 && fwrite(data, 1, n, f) != n) || fclose(f) != 0) die("cannot write the output file");
    free(data);
    char *tn = XGetAtomName(dpy, type);
    printf("{\"bytes\": %lu, \"seconds\": %.6f, \"mib_per_s\": %.1f, \"incr\": %s, \"chunks\": %lu, "
           "\"largest_chunk\": %lu, \"incr_header\": %lu, \"type\": \"%s\", \"format\": %d}\n",
           n, secs, secs > 0 ? n / 1048576.0 / secs : 0.0, incr ? "true" : "false", chunks, largest, header,
           tn ? tn : "?", format);
    if (tn) XFree(tn);
    return 0;
}

static int wait_owner(int want_owner, int ms) {
    double deadline = now_s() + ms / 1000.0;
    for (;;) {
        Window owner = XGetSelectionOwner(dpy, a_selection);
        if ((owner != None) == want_owner) return 0;
        if (now_s() > deadline) return 1;
        struct timespec ts = {0, 5 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
}

int main(int argc, char **argv) {
    const char *selection = "CLIPBOARD";
    int i = 1;
    if (i + 1 < argc && strcmp(argv[i], "-s") == 0) { selection = argv[i + 1]; i += 2; }
    if (i >= argc) goto usage;
    const char *mode = argv[i++];
    const char *env = getenv("PB_REQ_TIMEOUT_MS");
    if (env && atoi(env) > 0) timeout_ms = atoi(env);

    dpy = XOpenDisplay(NULL);
    if (!dpy) {
        fprintf(stderr, "requestor: cannot open display %s: %s\n", XDisplayName(NULL), strerror(errno));
        return 1;
    }
    a_selection = XInternAtom(dpy, selection, False);
    a_targets = XInternAtom(dpy, "TARGETS", False);
    a_utf8 = XInternAtom(dpy, "UTF8_STRING", False);
    a_incr = XInternAtom(dpy, "INCR", False);
    a_prop = XInternAtom(dpy, "PB_BENCH_PROPERTY", False);
    win = XCreateSimpleWindow(dpy, DefaultRootWindow(dpy), 0, 0, 1, 1, 0, 0, 0);
    XSelectInput(dpy, win, PropertyChangeMask);
    XSync(dpy, False);

    int status;
    if (strcmp(mode, "roundtrip") == 0 && i < argc) status = roundtrip(atoi(argv[i]));
    else if (strcmp(mode, "bulk") == 0 && i + 1 < argc) status = bulk(argv[i], argv[i + 1], 0);
    else if (strcmp(mode, "targets-bulk") == 0 && i + 1 < argc) status = bulk(argv[i], argv[i + 1], 1);
    else if (strcmp(mode, "wait-owner") == 0 && i < argc) status = wait_owner(1, atoi(argv[i]));
    else if (strcmp(mode, "wait-none") == 0 && i < argc) status = wait_owner(0, atoi(argv[i]));
    else if (strcmp(mode, "atoms") == 0) {
        XInternAtom(dpy, "STRING", False);
        XInternAtom(dpy, "TEXT", False);
        XInternAtom(dpy, "COMPOUND_TEXT", False);
        XSync(dpy, False);
        status = 0;
    } else {
        XCloseDisplay(dpy);
        goto usage;
    }
    XDestroyWindow(dpy, win);
    XCloseDisplay(dpy);
    return status;
usage:
    fprintf(stderr, "usage: requestor [-s SELECTION] roundtrip N | bulk TARGET OUTFILE | targets-bulk TARGET OUTFILE | wait-owner MS | "
                    "wait-none MS | atoms\n");
    return 64;
}
