/* hookd-loadgen: drive the daemon's hook socket, one connection per request as a shim does.
 *
 *   hookd-loadgen SOCKETS FRAMES fixed RATE SECONDS        open loop at RATE req/s to each socket
 *   hookd-loadgen SOCKET FRAMES max CONCURRENCY SECONDS    closed loop, CONCURRENCY requests in flight
 *   hookd-loadgen SOCKETS FRAMES trace SCHEDULE SCALE      open loop, frame j at the j-th offset (ms) of
 *                                                          SCHEDULE times SCALE: a recorded trace's pacing
 *
 * FRAMES holds complete request frames, each preceded by its length as a 4-byte big-endian integer;
 * request i sends frame i mod n. SOCKETS is one path or several separated by commas: the open loop then
 * sends every request to each socket in turn (A B A B ...), so drift and wake-ups hit them alike and one
 * run compares them. Prints one JSON object (the keys of bench/load.py's); with several sockets, one per
 * socket under "targets", in the order given.
 *
 * Why C: the daemon and the load generator share the machine's cores, and a Python client spends more
 * CPU per request than the daemon's transport does. This one spends a few µs, so the figures are the
 * daemon's. In the open loop a request's latency counts from the moment it was due, not from when it
 * was sent, so a generator that falls behind shows up in the latency (no coordinated omission).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#define REPLY_HEADER 16
#define TIMEOUT_NS 5000000000LL
#define MAX_INFLIGHT 4096

struct frame { const unsigned char *data; uint32_t len; };
struct slot {
    int fd;
    int64_t due_ns;      /* latency counts from here */
    int64_t sent_ns;     /* when the connect began: the generator's own lateness is sent_ns - due_ns */
    size_t sent, got, want;
    unsigned char head[REPLY_HEADER];
    const struct frame *frame;
    struct target *target;
    int status;
};

struct target {
    struct sockaddr_un addr;
    double *lat, *conn;   /* from when due, from the connect */
    size_t nlat, cap;
    long errors, requests;
};

static struct target *targets;
static size_t ntargets;
static struct frame *frames;
static size_t nframes;

static int64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void die(const char *what) {
    fprintf(stderr, "hookd-loadgen: %s: %s\n", what, strerror(errno));
    exit(2);
}

static void load_frames(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) die(path);
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *buf = malloc((size_t)size);
    if (!buf || fread(buf, 1, (size_t)size, f) != (size_t)size) die("reading frames");
    fclose(f);
    frames = calloc((size_t)size / 4 + 1, sizeof *frames);
    for (long at = 0; at + 4 <= size;) {
        uint32_t len = (uint32_t)buf[at] << 24 | (uint32_t)buf[at + 1] << 16 | (uint32_t)buf[at + 2] << 8 | buf[at + 3];
        at += 4;
        if (at + (long)len > size) { fprintf(stderr, "hookd-loadgen: %s: truncated frame\n", path); exit(2); }
        frames[nframes].data = buf + at;
        frames[nframes++].len = len;
        at += len;
    }
    if (!nframes) { fprintf(stderr, "hookd-loadgen: %s: no frames\n", path); exit(2); }
}

static void record(struct target *t, double ms, double connect_ms, int ok) {
    t->requests++;
    if (!ok) { t->errors++; return; }
    if (t->nlat == t->cap) {
        t->cap = t->cap ? t->cap * 2 : 4096;
        t->lat = realloc(t->lat, t->cap * sizeof *t->lat);
        t->conn = realloc(t->conn, t->cap * sizeof *t->conn);
        if (!t->lat || !t->conn) die("realloc");
    }
    t->conn[t->nlat] = connect_ms;
    t->lat[t->nlat++] = ms;
}

/* Connect and send; 0 on success. A full backlog blocks the connect (up to the timeout), as it does a shim. */
static int start(struct slot *s, int epfd, struct target *t, const struct frame *frame, int64_t due) {
    s->due_ns = due;
    s->target = t;
    s->sent_ns = now_ns();
    s->frame = frame;
    s->sent = s->got = 0;
    s->want = REPLY_HEADER;
    s->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (s->fd < 0) return -1;
    struct timeval tv = {5, 0};
    setsockopt(s->fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    if (connect(s->fd, (struct sockaddr *)&t->addr, sizeof t->addr) < 0) { close(s->fd); s->fd = -1; return -1; }
    fcntl(s->fd, F_SETFL, O_NONBLOCK);
    ssize_t n = write(s->fd, frame->data, frame->len);
    if (n < 0 && errno != EAGAIN) { close(s->fd); s->fd = -1; return -1; }
    s->sent = n > 0 ? (size_t)n : 0;
    struct epoll_event ev = {.events = s->sent < frame->len ? EPOLLOUT : EPOLLIN, .data.ptr = s};
    if (epoll_ctl(epfd, EPOLL_CTL_ADD, s->fd, &ev) < 0) die("epoll_ctl");
    return 0;
}

static void finish(struct slot *s, int ok) {
    int64_t now = now_ns();
    record(s->target, (double)(now - s->due_ns) / 1e6, (double)(now - s->sent_ns) / 1e6, ok && s->status == 0);
    close(s->fd); /* also leaves the epoll set */
    s->fd = -1;
}

/* Progress one connection; returns 1 when it is done (finished or failed). */
static int step(struct slot *s, int epfd) {
    if (s->sent < s->frame->len) {
        ssize_t n = write(s->fd, s->frame->data + s->sent, s->frame->len - s->sent);
        if (n < 0) { if (errno == EAGAIN) return 0; finish(s, 0); return 1; }
        s->sent += (size_t)n;
        if (s->sent == s->frame->len) {
            struct epoll_event ev = {.events = EPOLLIN, .data.ptr = s};
            epoll_ctl(epfd, EPOLL_CTL_MOD, s->fd, &ev);
        }
        return 0;
    }
    unsigned char sink[65536];
    for (;;) {
        unsigned char *into = s->got < REPLY_HEADER ? s->head + s->got : sink;
        size_t room = s->got < REPLY_HEADER ? REPLY_HEADER - s->got : sizeof sink;
        if (room > s->want - s->got) room = s->want - s->got;
        ssize_t n = read(s->fd, into, room);
        if (n < 0 && errno == EAGAIN) return 0;
        if (n <= 0) { finish(s, 0); return 1; }
        s->got += (size_t)n;
        if (s->got == REPLY_HEADER) {
            if (memcmp(s->head, "HKDR", 4) != 0) { finish(s, 0); return 1; }
            s->status = s->head[5];
            uint32_t out = (uint32_t)s->head[8] << 24 | (uint32_t)s->head[9] << 16 | (uint32_t)s->head[10] << 8 | s->head[11];
            uint32_t err = (uint32_t)s->head[12] << 24 | (uint32_t)s->head[13] << 16 | (uint32_t)s->head[14] << 8 | s->head[15];
            s->want = REPLY_HEADER + (size_t)out + err;
        }
        if (s->got == s->want) { finish(s, 1); return 1; }
    }
}

static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double pct(const double *sorted, size_t nlat, double q) {
    if (!nlat) return -1;
    size_t i = (size_t)(q * (double)(nlat - 1) + 0.5);
    return sorted[i < nlat ? i : nlat - 1];
}

/* Fail every connection older than the timeout. */
static void expire(struct slot *slots, size_t n, int64_t now, size_t *inflight) {
    for (size_t i = 0; i < n; i++)
        if (slots[i].fd >= 0 && now - slots[i].due_ns > TIMEOUT_NS) { finish(&slots[i], 0); (*inflight)--; }
}

/* The open loop's schedule: every request, when it is due, to which target, with which frame. */
struct event { int64_t due_ns; size_t target, frame; };

static struct event *schedule_fixed(double rate, double seconds, size_t *count) {
    size_t per_target = (size_t)(rate * seconds);
    struct event *events = calloc(per_target * ntargets + 1, sizeof *events);
    if (!events) die("calloc");
    for (size_t j = 0; j < per_target; j++)
        for (size_t k = 0; k < ntargets; k++) {
            /* Targets alternate within each period, evenly spaced: A B A B at rate per target. */
            double at = (double)j / rate + (double)k / (rate * (double)ntargets);
            events[j * ntargets + k] = (struct event){(int64_t)(at * 1e9), k, j % nframes};
        }
    *count = per_target * ntargets;
    return events;
}

/* A recorded trace: SCHEDULE holds one offset in ms per frame; frame j is sent to every target in turn,
 * the copies spread over the gap before frame j + 1 (at most 50 ms apart), so the targets see the same
 * pacing, interleaved call by call. */
static struct event *schedule_trace(const char *path, double scale, size_t *count) {
    FILE *f = fopen(path, "r");
    if (!f) die(path);
    double *offsets = calloc(nframes, sizeof *offsets);
    size_t n = 0;
    while (n < nframes && fscanf(f, "%lf", &offsets[n]) == 1) n++;
    fclose(f);
    if (n != nframes) { fprintf(stderr, "hookd-loadgen: %s: %zu offsets for %zu frames\n", path, n, nframes); exit(2); }
    struct event *events = calloc(n * ntargets + 1, sizeof *events);
    if (!events) die("calloc");
    for (size_t j = 0; j < n; j++) {
        double gap_ms = j + 1 < n ? (offsets[j + 1] - offsets[j]) * scale : 100.0;
        double step_ms = gap_ms / (double)ntargets;
        if (step_ms > 50.0) step_ms = 50.0;
        for (size_t k = 0; k < ntargets; k++)
            events[j * ntargets + k] = (struct event){(int64_t)((offsets[j] * scale + (double)k * step_ms) * 1e6), k, j};
    }
    free(offsets);
    *count = n * ntargets;
    return events;
}

static void print_target(const struct target *t, const char *mode, double param, double elapsed) {
    qsort(t->lat, t->nlat, sizeof *t->lat, cmp);
    qsort(t->conn, t->nlat, sizeof *t->conn, cmp);
    printf("{\"%s\": %g, \"requests\": %ld, \"errors\": %ld, \"per_second\": %.1f, \"p50_ms\": %.4f, "
           "\"p90_ms\": %.4f, \"p99_ms\": %.4f, \"max_ms\": %.4f, \"from_connect_p50_ms\": %.4f, "
           "\"from_connect_p99_ms\": %.4f, \"generator\": \"c\"}",
           mode, param, t->requests, t->errors, (double)t->nlat / elapsed, pct(t->lat, t->nlat, 0.5),
           pct(t->lat, t->nlat, 0.9), pct(t->lat, t->nlat, 0.99), t->nlat ? t->lat[t->nlat - 1] : -1.0,
           pct(t->conn, t->nlat, 0.5), pct(t->conn, t->nlat, 0.99));
}

static void parse_targets(char *list) {
    for (char *path = strtok(list, ","); path; path = strtok(NULL, ",")) {
        targets = realloc(targets, (ntargets + 1) * sizeof *targets);
        if (!targets) die("realloc");
        struct target *t = &targets[ntargets++];
        memset(t, 0, sizeof *t);
        t->addr.sun_family = AF_UNIX;
        if (strlen(path) >= sizeof t->addr.sun_path) { fprintf(stderr, "hookd-loadgen: socket path too long\n"); exit(2); }
        strcpy(t->addr.sun_path, path);
    }
    if (!ntargets) { fprintf(stderr, "hookd-loadgen: no socket\n"); exit(2); }
}

int main(int argc, char **argv) {
    if (argc != 6) {
        fprintf(stderr, "usage: hookd-loadgen SOCKET[,SOCKET...] FRAMES fixed RATE SECONDS | max CONCURRENCY SECONDS"
                        " | trace SCHEDULE SCALE\n");
        return 2;
    }
    signal(SIGPIPE, SIG_IGN); /* a server that closes early is an error counted, not the generator's death */
    parse_targets(argv[1]);
    load_frames(argv[2]);
    const char *mode = argv[3];
    int closed = strcmp(mode, "max") == 0, traced = strcmp(mode, "trace") == 0;
    double param = traced ? 0 : atof(argv[4]), seconds = atof(argv[5]);
    if ((!traced && param <= 0) || seconds <= 0 || (!closed && !traced && strcmp(mode, "fixed") != 0)) {
        fprintf(stderr, "hookd-loadgen: mode must be fixed, max or trace, with a positive parameter and duration\n");
        return 2;
    }
    if (closed && ntargets != 1) { fprintf(stderr, "hookd-loadgen: max drives one socket\n"); return 2; }
    size_t nevents = 0;
    struct event *events = closed ? NULL
                         : traced ? schedule_trace(argv[4], seconds, &nevents)
                                  : schedule_fixed(param, seconds, &nevents);
    if (traced) param = (double)(nevents / ntargets);
    size_t nslots = closed ? (size_t)param : MAX_INFLIGHT;
    struct slot *slots = calloc(nslots, sizeof *slots);
    for (size_t i = 0; i < nslots; i++) slots[i].fd = -1;
    int epfd = epoll_create1(EPOLL_CLOEXEC);
    if (epfd < 0) die("epoll_create1");
    struct epoll_event ready[256];
    /* The open loop sleeps on a timer armed for the next due request: epoll's millisecond timeout would
     * either spin or oversleep at 1,000 req/s. */
    int tfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
    if (tfd < 0) die("timerfd_create");
    struct epoll_event tev = {.events = EPOLLIN, .data.ptr = NULL};
    if (epoll_ctl(epfd, EPOLL_CTL_ADD, tfd, &tev) < 0) die("epoll_ctl");
    int64_t last_expire = 0;

    int64_t begin = now_ns(), end = begin + (int64_t)(seconds * 1e9);
    size_t issued = 0, inflight = 0, free_hint = 0;
    long closed_issued = 0;
    for (;;) {
        int64_t now = now_ns();
        if (!closed) {
            while (issued < nevents && begin + events[issued].due_ns <= now) {
                const struct event *e = &events[issued++];
                struct target *t = &targets[e->target];
                if (inflight == nslots) { record(t, 0, 0, 0); continue; }  /* MAX_INFLIGHT outstanding: count it failed */
                size_t i = free_hint;
                while (slots[i].fd >= 0) i = (i + 1) % nslots;
                if (start(&slots[i], epfd, t, &frames[e->frame], begin + e->due_ns) < 0) {
                    record(t, 0, 0, 0);
                    continue;
                }
                inflight++;
                free_hint = (i + 1) % nslots;
            }
            if (issued == nevents && inflight == 0) break;
        } else {
            if (now >= end && inflight == 0) break;
            for (size_t i = 0; i < nslots && now < end; i++) {
                if (slots[i].fd >= 0) continue;
                if (start(&slots[i], epfd, &targets[0], &frames[closed_issued++ % (long)nframes], now_ns()) < 0)
                    record(&targets[0], 0, 0, 0);
                else inflight++;
            }
        }
        int timeout_ms = 100;
        if (!closed && issued < nevents) {
            int64_t next = begin + events[issued].due_ns;
            struct itimerspec at = {.it_value = {next / 1000000000LL, next % 1000000000LL}};
            if (timerfd_settime(tfd, TFD_TIMER_ABSTIME, &at, NULL) < 0) die("timerfd_settime");
        } else if (closed) {
            timeout_ms = 10;
        }
        int n = epoll_wait(epfd, ready, 256, timeout_ms);
        if (n < 0 && errno != EINTR) die("epoll_wait");
        for (int k = 0; k < n; k++) {
            if (ready[k].data.ptr == NULL) {
                uint64_t ticks;
                if (read(tfd, &ticks, sizeof ticks) < 0 && errno != EAGAIN) die("timerfd read");
                continue;
            }
            if (step((struct slot *)ready[k].data.ptr, epfd)) inflight--;
        }
        now = now_ns();
        if (now - last_expire > 10000000LL) {
            expire(slots, nslots, now, &inflight);
            last_expire = now;
        }
    }
    double elapsed = (double)(now_ns() - begin) / 1e9;
    const char *key = closed ? "concurrency" : traced ? "trace" : "rate";
    if (ntargets == 1) {
        print_target(&targets[0], key, param, elapsed);
        printf("\n");
        return 0;
    }
    printf("{\"generator\": \"c\", \"targets\": [");
    for (size_t k = 0; k < ntargets; k++) {
        if (k) printf(", ");
        print_target(&targets[k], key, param, elapsed);
    }
    printf("]}\n");
    return 0;
}
