// SPDX-License-Identifier: Apache-2.0
/*
 * owner: a CLIPBOARD owner that times clipboard managers (pasteboardd, CopyQ, parcellite, ClipIt), for
 * bench/run.sh. DISPLAY from the environment. Every wait is poll() with a timeout; times are
 * CLOCK_MONOTONIC; results are one JSON object on stdout.
 *
 *   owner ready MS            takes CLIPBOARD with a short text (again every second) until some other
 *                             client asks for it; exits 0 then, 1 after MS ms. Tells that a manager is up.
 *   owner detect N            N ownership changes, each with a new text. Per change: microseconds from
 *                             XSetSelectionOwner to the first SelectionRequest from anyone (the manager
 *                             starting to read), to the first text target served (it has the content),
 *                             and with PB_OWNER_ROOT_PROP=NAME to the PropertyNotify of root property NAME
 *                             (pasteboardd's _PASTEBOARD_CHANGE_COUNT_CLIPBOARD). Between changes it
 *                             serves until nobody asked for PB_OWNER_QUIET_MS (300), at most
 *                             PB_OWNER_SETTLE_MS (1500), then waits a random 0-100 ms so that a polling
 *                             manager's timer is not in step with the changes.
 *   owner html FILE [CMD...]  owns CLIPBOARD offering FILE as text/html (INCR, 1 MiB chunks, the size in
 *                             the INCR property). Reports the time to the first request and to the end of
 *                             the first complete transfer of the whole file (its last chunk taken), and how
 *                             many complete transfers there were. Without CMD it serves until nobody asked
 *                             for PB_OWNER_QUIET_MS after a complete transfer (at most PB_OWNER_TIMEOUT_MS,
 *                             default 20000); with CMD it runs CMD (stdout to /dev/null) right after taking
 *                             the selection, serves until CMD exits and reports CMD's CPU time and peak RSS.
 *   owner takeover N          N times: takes CLIPBOARD with a new text on a fresh connection, waits until a
 *                             manager has read the text (and then PB_OWNER_QUIET_MS of quiet), then closes
 *                             that connection (the owner exits) and times, through XFixes on a second
 *                             connection, until a new owner appears; checks that it serves the same text.
 *                             A change not taken over within PB_OWNER_TIMEOUT_MS (3000) counts as missed;
 *                             after three misses at the start it stops (a manager that never takes over).
 *
 * PB_OWNER_TYPE=TYPE makes html offer FILE as TYPE instead of text/html (image/png for the keeping rows).
 * PB_OWNER_HTML_TEXT=1 (not empty) makes html also offer a one-line UTF8_STRING/text/plain (as a browser offers both).
 * PB_OWNER_DEBUG=1 logs every request to stderr.
 * Exit status: 0 ok, 1 failed or timed out, 64 usage.
 */
#define _DEFAULT_SOURCE
#include <X11/Xatom.h>
#include <X11/Xlib.h>
#include <X11/extensions/Xfixes.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define CHUNK (1 << 20)
#define MAX_TRANSFERS 16

static Display *dpy;      /* the owning connection (a fresh one per change in takeover) */
static Window win;        /* its window */
static Atom a_clip, a_targets, a_timestamp, a_multiple, a_incr, a_utf8, a_string, a_text, a_plain,
    a_plain_utf8, a_html, a_stamp_prop;
static int html_text, debug, quiet_ms = 300, settle_ms = 1500, timeout_ms = 3000;

/* What the owner serves: either text (small, in one property) or HTML (large, INCR). */
static const unsigned char *content;
static size_t content_len;
static int serving_html;
static Time owned_at;

/* Per ownership: when things happened (seconds, CLOCK_MONOTONIC; 0 = not yet). */
static double t_owned, t_first_request, t_first_text, t_root_prop, t_last_request;
static double t_first_complete;
static long requests, complete_transfers, lost_ownership;
static unsigned long long bytes_served;

struct transfer {
    int used;
    Window requestor;
    Atom property;
    size_t offset;
};
static struct transfer transfers[MAX_TRANSFERS];

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void die(const char *what) {
    fprintf(stderr, "owner: %s\n", what);
    exit(1);
}

static int env_int(const char *name, int fallback) {
    const char *v = getenv(name);
    return v && atoi(v) > 0 ? atoi(v) : fallback;
}

/* Opens the owning connection and its window and interns the atoms. */
static void open_owner(void) {
    dpy = XOpenDisplay(NULL);
    if (!dpy) die("cannot open display");
    a_clip = XInternAtom(dpy, "CLIPBOARD", False);
    a_targets = XInternAtom(dpy, "TARGETS", False);
    a_timestamp = XInternAtom(dpy, "TIMESTAMP", False);
    a_multiple = XInternAtom(dpy, "MULTIPLE", False);
    a_incr = XInternAtom(dpy, "INCR", False);
    a_utf8 = XInternAtom(dpy, "UTF8_STRING", False);
    a_string = XInternAtom(dpy, "STRING", False);
    a_text = XInternAtom(dpy, "TEXT", False);
    a_plain = XInternAtom(dpy, "text/plain", False);
    a_plain_utf8 = XInternAtom(dpy, "text/plain;charset=utf-8", False);
    a_html = XInternAtom(dpy, getenv("PB_OWNER_TYPE") ? getenv("PB_OWNER_TYPE") : "text/html", False);
    a_stamp_prop = XInternAtom(dpy, "PB_BENCH_OWNER_STAMP", False);
    win = XCreateSimpleWindow(dpy, DefaultRootWindow(dpy), 0, 0, 1, 1, 0, 0, 0);
    XStoreName(dpy, win, "pb-bench-owner");
    XSelectInput(dpy, win, PropertyChangeMask);
    memset(transfers, 0, sizeof transfers);
    XSync(dpy, False);
}

/* A server timestamp for XSetSelectionOwner (ICCCM: never CurrentTime): append to a property on our
 * window and take the time of the PropertyNotify. */
static Time server_time(void) {
    XEvent ev;
    XChangeProperty(dpy, win, a_stamp_prop, a_stamp_prop, 8, PropModeAppend, NULL, 0);
    XFlush(dpy);
    double deadline = now_s() + 2;
    for (;;) {
        if (XCheckTypedWindowEvent(dpy, win, PropertyNotify, &ev) && ev.xproperty.atom == a_stamp_prop)
            return ev.xproperty.time;
        if (now_s() > deadline) die("no PropertyNotify for the timestamp");
        struct pollfd p = {.fd = ConnectionNumber(dpy), .events = POLLIN};
        poll(&p, 1, 50);
        XPending(dpy);
    }
}

static void reset_times(void) {
    t_first_request = t_first_text = t_root_prop = t_last_request = t_first_complete = 0;
    requests = complete_transfers = 0;
    bytes_served = 0;
}

static void take(void) {
    owned_at = server_time();
    reset_times();
    t_owned = now_s();
    XSetSelectionOwner(dpy, a_clip, win, owned_at);
    XFlush(dpy);
    if (XGetSelectionOwner(dpy, a_clip) != win) die("could not take CLIPBOARD");
}

static int is_text_target(Atom t) {
    return t == a_utf8 || t == a_string || t == a_text || t == a_plain || t == a_plain_utf8;
}

static void start_transfer(Window requestor, Atom property) {
    for (int i = 0; i < MAX_TRANSFERS; i++) {
        if (transfers[i].used) continue;
        transfers[i] = (struct transfer){1, requestor, property, 0};
        return;
    }
    die("too many INCR transfers at once");
}

/* Answers one SelectionRequest. */
static void answer(XSelectionRequestEvent *r) {
    double t = now_s();
    requests++;
    t_last_request = t;
    if (!t_first_request) t_first_request = t;
    if (debug) {
        char *name = XGetAtomName(dpy, r->target);
        fprintf(stderr, "owner: +%.1f ms request %s from 0x%lx\n", (t - t_owned) * 1e3, name ? name : "?", r->requestor);
        if (name) XFree(name);
    }
    XSelectionEvent n = {.type = SelectionNotify, .display = dpy, .requestor = r->requestor,
                         .selection = r->selection, .target = r->target, .property = None, .time = r->time};
    Atom property = r->property != None ? r->property : r->target;
    int ok = 0;
    if (r->selection != a_clip || (r->time != CurrentTime && r->time < owned_at)) {
        ok = 0;
    } else if (r->target == a_targets) {
        Atom list[8];
        int k = 0;
        list[k++] = a_targets;
        list[k++] = a_timestamp;
        if (serving_html) {
            list[k++] = a_html;
            if (html_text) { list[k++] = a_utf8; list[k++] = a_plain; }
        } else { list[k++] = a_utf8; list[k++] = a_string; list[k++] = a_text; list[k++] = a_plain; }
        XChangeProperty(dpy, r->requestor, property, XA_ATOM, 32, PropModeReplace, (unsigned char *)list, k);
        ok = 1;
    } else if (r->target == a_timestamp) {
        long stamp = (long)owned_at;
        XChangeProperty(dpy, r->requestor, property, XA_INTEGER, 32, PropModeReplace, (unsigned char *)&stamp, 1);
        ok = 1;
    } else if (serving_html && html_text && is_text_target(r->target)) {
        static const char alt[] = "pasteboard bench: the plain-text alternative of a large HTML copy";
        Atom type = r->target == a_text ? a_utf8 : r->target;
        XChangeProperty(dpy, r->requestor, property, type, 8, PropModeReplace, (const unsigned char *)alt,
                        (int)strlen(alt));
        ok = 1;
    } else if ((!serving_html && is_text_target(r->target)) || (serving_html && r->target == a_html)) {
        Atom type = r->target == a_text ? a_utf8 : r->target;
        if (content_len <= CHUNK) {
            XChangeProperty(dpy, r->requestor, property, type, 8, PropModeReplace, content, (int)content_len);
            bytes_served += content_len;
            if (!serving_html && !t_first_text) t_first_text = t;
            if (serving_html) { complete_transfers++; if (!t_first_complete) t_first_complete = t; }
        } else {
            long size = (long)content_len;
            XSelectInput(dpy, r->requestor, PropertyChangeMask);
            XChangeProperty(dpy, r->requestor, property, a_incr, 32, PropModeReplace, (unsigned char *)&size, 1);
            start_transfer(r->requestor, property);
        }
        ok = 1;
    }
    if (ok) n.property = property;
    XSendEvent(dpy, r->requestor, False, NoEventMask, (XEvent *)&n);
    XFlush(dpy);
}

/* A requestor deleted a property: the next INCR chunk, or the zero-length end. */
static void property_deleted(XPropertyEvent *p) {
    for (int i = 0; i < MAX_TRANSFERS; i++) {
        struct transfer *x = &transfers[i];
        if (!x->used || x->requestor != p->window || x->property != p->atom) continue;
        size_t left = content_len - x->offset;
        size_t n = left < CHUNK ? left : CHUNK;
        XChangeProperty(dpy, x->requestor, x->property, a_html, 8, PropModeReplace, content + x->offset, (int)n);
        x->offset += n;
        bytes_served += n;
        if (n == 0) {
            /* The last chunk was taken: this transfer is complete. */
            x->used = 0;
            complete_transfers++;
            if (!t_first_complete) t_first_complete = now_s();
        }
        XFlush(dpy);
        return;
    }
}

static Atom root_prop = None;

/* Handles whatever events are queued on the owning connection. */
static void drain(void) {
    while (XPending(dpy) > 0) {
        XEvent ev;
        XNextEvent(dpy, &ev);
        switch (ev.type) {
        case SelectionRequest:
            answer(&ev.xselectionrequest);
            break;
        case SelectionClear:
            lost_ownership++;
            break;
        case PropertyNotify:
            if (ev.xproperty.window == DefaultRootWindow(dpy) && ev.xproperty.atom == root_prop) {
                if (!t_root_prop) t_root_prop = now_s();
            } else if (ev.xproperty.state == PropertyDelete) {
                property_deleted(&ev.xproperty);
            }
            break;
        }
    }
}

/* Serves events until `until` (absolute seconds) or until done() says so. */
static void serve_until(double until, int (*done)(void)) {
    for (;;) {
        drain();
        if (done && done()) return;
        double left = until - now_s();
        if (left <= 0) return;
        struct pollfd p = {.fd = ConnectionNumber(dpy), .events = POLLIN};
        int wait = (int)(left * 1000) + 1;
        if (wait > 20) wait = 20;
        if (poll(&p, 1, wait) < 0 && errno != EINTR) die("poll failed");
    }
}

static int have_text(void) { return t_first_text != 0; }
static int is_quiet(void) {
    double last = t_last_request ? t_last_request : t_owned;
    return now_s() - last >= quiet_ms / 1000.0;
}
static int have_request(void) { return t_first_request != 0; }

static void settle(void) {
    double start = now_s();
    serve_until(start + settle_ms / 1000.0, is_quiet);
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Prints "name": {"n", "median_us", "p90_us", "min_us", "max_us"} over the values that are >= 0. */
static void print_stats(const char *name, double *v, int n, int last) {
    double *s = malloc(sizeof(double) * (size_t)(n > 0 ? n : 1));
    int k = 0;
    for (int i = 0; i < n; i++) if (v[i] >= 0) s[k++] = v[i];
    qsort(s, (size_t)k, sizeof(double), cmp_double);
    if (k == 0) printf("\"%s\": null%s", name, last ? "" : ", ");
    else printf("\"%s\": {\"n\": %d, \"median_us\": %.1f, \"p90_us\": %.1f, \"min_us\": %.1f, \"max_us\": %.1f}%s",
                name, k, k % 2 ? s[k / 2] : (s[k / 2 - 1] + s[k / 2]) / 2, s[(int)(k * 0.9)], s[0], s[k - 1],
                last ? "" : ", ");
    free(s);
}

static char text_buf[128];
static void new_text(long i) {
    snprintf(text_buf, sizeof text_buf, "pasteboard bench change %ld at %.6f", i, now_s());
    content = (const unsigned char *)text_buf;
    content_len = strlen(text_buf);
}

static int mode_ready(int ms) {
    open_owner();
    double deadline = now_s() + ms / 1000.0;
    while (now_s() < deadline) {
        new_text(0);
        take();
        serve_until(now_s() + 1.0 < deadline ? now_s() + 1.0 : deadline, have_request);
        if (t_first_request) { settle(); return 0; }
    }
    return 1;
}

static int mode_detect(int n) {
    if (n < 1 || n > 10000) return 64;
    open_owner();
    const char *prop = getenv("PB_OWNER_ROOT_PROP");
    if (prop && *prop) {
        root_prop = XInternAtom(dpy, prop, False);
        XSelectInput(dpy, DefaultRootWindow(dpy), PropertyChangeMask);
    }
    double *req = malloc(sizeof(double) * (size_t)n), *txt = malloc(sizeof(double) * (size_t)n),
           *root = malloc(sizeof(double) * (size_t)n);
    long missed = 0;
    srand((unsigned)getpid());
    for (int i = 0; i < n; i++) {
        new_text(i);
        take();
        serve_until(t_owned + timeout_ms / 1000.0, have_text);
        if (root_prop != None && !t_root_prop) serve_until(t_owned + timeout_ms / 1000.0, NULL);
        req[i] = t_first_request ? (t_first_request - t_owned) * 1e6 : -1;
        txt[i] = t_first_text ? (t_first_text - t_owned) * 1e6 : -1;
        root[i] = t_root_prop ? (t_root_prop - t_owned) * 1e6 : -1;
        if (!t_first_text) missed++;
        settle();
        serve_until(now_s() + (rand() % 100) / 1000.0, NULL);
    }
    printf("{\"changes\": %d, \"not_read\": %ld, \"lost_ownership\": %ld, ", n, missed, lost_ownership);
    print_stats("first_request", req, n, 0);
    print_stats("text_served", txt, n, 0);
    print_stats("root_property", root, n, 1);
    printf("}\n");
    return 0;
}

static pid_t child;
static int child_status;
static struct rusage child_usage;
static double t_child_exit;
static int child_done(void) {
    if (!child) return 1;
    pid_t r = wait4(child, &child_status, WNOHANG, &child_usage);
    if (r == child) { child = 0; t_child_exit = now_s(); return 1; }
    return 0;
}
static int html_quiet(void) { return complete_transfers > 0 && is_quiet(); }

static int mode_html(const char *path, char **cmd) {
    int fd = open(path, O_RDONLY);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) die("cannot open the HTML file");
    unsigned char *buf = malloc((size_t)st.st_size + 1);
    size_t got = 0;
    while (got < (size_t)st.st_size) {
        ssize_t r = read(fd, buf + got, (size_t)st.st_size - got);
        if (r <= 0) die("cannot read the HTML file");
        got += (size_t)r;
    }
    close(fd);
    content = buf;
    content_len = got;
    serving_html = 1;
    int total_ms = env_int("PB_OWNER_TIMEOUT_MS", 20000);
    open_owner();
    take();
    if (cmd && cmd[0]) {
        child = fork();
        if (child < 0) die("fork failed");
        if (child == 0) {
            int null = open("/dev/null", O_WRONLY);
            dup2(null, 1);
            execvp(cmd[0], cmd);
            _exit(127);
        }
        serve_until(t_owned + total_ms / 1000.0, child_done);
        if (child) { kill(child, SIGKILL); waitpid(child, &child_status, 0); die("the command timed out"); }
    } else {
        serve_until(t_owned + total_ms / 1000.0, html_quiet);
    }
    printf("{\"bytes\": %zu, \"first_request_us\": %.1f, \"first_complete_us\": %.1f, \"complete_transfers\": %ld, "
           "\"bytes_served\": %llu, \"requests\": %ld, \"lost_ownership\": %ld",
           content_len, t_first_request ? (t_first_request - t_owned) * 1e6 : -1.0,
           t_first_complete ? (t_first_complete - t_owned) * 1e6 : -1.0, complete_transfers, bytes_served, requests,
           lost_ownership);
    if (cmd && cmd[0])
        printf(", \"cmd_exit\": %d, \"cmd_wall_us\": %.1f, \"cmd_cpu_s\": %.6f, \"cmd_maxrss_kb\": %ld",
               WIFEXITED(child_status) ? WEXITSTATUS(child_status) : -1, (t_child_exit - t_owned) * 1e6,
               child_usage.ru_utime.tv_sec + child_usage.ru_utime.tv_usec / 1e6 + child_usage.ru_stime.tv_sec +
                   child_usage.ru_stime.tv_usec / 1e6,
               child_usage.ru_maxrss);
    printf("}\n");
    return t_first_complete ? 0 : 1;
}

/* Reads UTF8_STRING from the current owner on connection d with window w; returns malloc'd text or NULL. */
static char *read_text(Display *d, Window w) {
    Atom prop = XInternAtom(d, "PB_BENCH_CHECK", False);
    XConvertSelection(d, a_clip, a_utf8, prop, w, CurrentTime);
    XFlush(d);
    double deadline = now_s() + 2;
    XEvent ev;
    for (;;) {
        if (XCheckTypedWindowEvent(d, w, SelectionNotify, &ev)) break;
        if (now_s() > deadline) return NULL;
        struct pollfd p = {.fd = ConnectionNumber(d), .events = POLLIN};
        poll(&p, 1, 20);
        XPending(d);
    }
    if (ev.xselection.property == None) return NULL;
    Atom type;
    int format;
    unsigned long items, after;
    unsigned char *data = NULL;
    if (XGetWindowProperty(d, w, prop, 0, 1 << 16, True, AnyPropertyType, &type, &format, &items, &after, &data) !=
            Success || !data)
        return NULL;
    char *s = strndup((char *)data, items);
    XFree(data);
    return s;
}

static int mode_takeover(int n) {
    if (n < 1 || n > 10000) return 64;
    Display *w = XOpenDisplay(NULL);
    if (!w) die("cannot open display");
    int fixes_event, fixes_error;
    if (!XFixesQueryExtension(w, &fixes_event, &fixes_error)) die("no XFixes");
    Atom clip = XInternAtom(w, "CLIPBOARD", False);
    Window ww = XCreateSimpleWindow(w, DefaultRootWindow(w), 0, 0, 1, 1, 0, 0, 0);
    XFixesSelectSelectionInput(w, DefaultRootWindow(w), clip, XFixesSetSelectionOwnerNotifyMask);
    XSync(w, False);
    double *lat = malloc(sizeof(double) * (size_t)n);
    long missed = 0, not_read = 0, wrong = 0;
    for (int i = 0; i < n; i++) {
        lat[i] = -1;
        open_owner();
        new_text(1000 + i);
        char expected[128];
        memcpy(expected, text_buf, sizeof expected);
        take();
        serve_until(t_owned + timeout_ms / 1000.0, have_text);
        if (!t_first_text) not_read++;
        settle();
        Window old = win;
        /* Forget the XFixes events our own take caused. */
        XSync(w, False);
        XEvent ev;
        while (XPending(w)) XNextEvent(w, &ev);
        double t0 = now_s();
        XCloseDisplay(dpy); /* the owner exits */
        dpy = NULL;
        double deadline = t0 + timeout_ms / 1000.0;
        double t1 = 0;
        while (!t1) {
            while (XPending(w) > 0) {
                XNextEvent(w, &ev);
                if (ev.type == fixes_event + XFixesSelectionNotify) {
                    XFixesSelectionNotifyEvent *s = (XFixesSelectionNotifyEvent *)&ev;
                    if (s->subtype == XFixesSetSelectionOwnerNotify && s->owner != None && s->owner != old) {
                        t1 = now_s();
                        break;
                    }
                }
            }
            if (t1) break;
            double left = deadline - now_s();
            if (left <= 0) break;
            struct pollfd p = {.fd = ConnectionNumber(w), .events = POLLIN};
            poll(&p, 1, (int)(left * 1000) + 1);
        }
        if (!t1) {
            missed++;
            /* A manager that never takes over: three misses in a row from the start are enough. */
            if (missed == 3 && i == 2) { n = i + 1; break; }
            continue;
        }
        lat[i] = (t1 - t0) * 1e6;
        char *got = read_text(w, ww);
        if (!got || strcmp(got, expected) != 0) wrong++;
        free(got);
    }
    printf("{\"changes\": %d, \"not_read_before_exit\": %ld, \"not_taken_over\": %ld, \"wrong_content\": %ld, ", n,
           not_read, missed, wrong);
    print_stats("takeover", lat, n, 1);
    printf("}\n");
    XCloseDisplay(w);
    return 0;
}

int main(int argc, char **argv) {
    if (argc < 2) goto usage;
    quiet_ms = env_int("PB_OWNER_QUIET_MS", quiet_ms);
    settle_ms = env_int("PB_OWNER_SETTLE_MS", settle_ms);
    timeout_ms = env_int("PB_OWNER_TIMEOUT_MS", timeout_ms);
    signal(SIGPIPE, SIG_IGN);
    debug = getenv("PB_OWNER_DEBUG") != NULL;
    html_text = getenv("PB_OWNER_HTML_TEXT") && *getenv("PB_OWNER_HTML_TEXT");
    if (strcmp(argv[1], "ready") == 0 && argc == 3) return mode_ready(atoi(argv[2]));
    if (strcmp(argv[1], "detect") == 0 && argc == 3) return mode_detect(atoi(argv[2]));
    if (strcmp(argv[1], "html") == 0 && argc >= 3) return mode_html(argv[2], argc > 3 ? argv + 3 : NULL);
    if (strcmp(argv[1], "takeover") == 0 && argc == 3) return mode_takeover(atoi(argv[2]));
usage:
    fprintf(stderr, "usage: owner ready MS | detect N | html FILE [CMD...] | takeover N\n");
    return 64;
}
