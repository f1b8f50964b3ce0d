/* hookd-loadgen: drive the daemon's hook socket, one connection per request as a shim does.
 *
 *   hookd-loadgen SOCKET FRAMES fixed RATE SECONDS        open loop at RATE req/s
 *   hookd-loadgen SOCKET FRAMES max CONCURRENCY SECONDS   closed loop, CONCURRENCY requests in flight
 *
 * FRAMES holds complete request frames, each preceded by its length as a 4-byte big-endian integer;
 * request i sends frame i mod n. Prints one JSON object (the keys of bench/load.py's).
 *
 * Why C: the daemon and the load generator share the machine's cores, and a Python client spends more
 * CPU per request than the daemon's transport does. This one spends a few µs, so the figures are the
 * daemon's. In the open loop a request's latency counts from the moment it was due, not from when it
 * was sent, so a generator that falls behind shows up in the latency (no coordinated omission).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
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
    int status;
};

static struct sockaddr_un addr;
static struct frame *frames;
static size_t nframes;
static double *latencies, *from_connect;
static size_t nlat, caplat;
static long errors, requests;

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

static void record(double ms, double connect_ms, int ok) {
    requests++;
    if (!ok) { errors++; return; }
    if (nlat == caplat) {
        caplat = caplat ? caplat * 2 : 65536;
        latencies = realloc(latencies, caplat * sizeof *latencies);
        from_connect = realloc(from_connect, caplat * sizeof *from_connect);
        if (!latencies || !from_connect) die("realloc");
    }
    from_connect[nlat] = connect_ms;
    latencies[nlat++] = ms;
}

/* Connect and send; 0 on success. A full backlog blocks the connect (up to the timeout), as it does a shim. */
static int start(struct slot *s, int epfd, const struct frame *frame, int64_t due) {
    s->due_ns = due;
    s->sent_ns = now_ns();
    s->frame = frame;
    s->sent = s->got = 0;
    s->want = REPLY_HEADER;
    s->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (s->fd < 0) return -1;
    struct timeval tv = {5, 0};
    setsockopt(s->fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    if (connect(s->fd, (struct sockaddr *)&addr, sizeof addr) < 0) { close(s->fd); s->fd = -1; return -1; }
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
    record((double)(now - s->due_ns) / 1e6, (double)(now - s->sent_ns) / 1e6, ok && s->status == 0);
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

static double pct(const double *sorted, double q) {
    if (!nlat) return -1;
    size_t i = (size_t)(q * (double)(nlat - 1) + 0.5);
    return sorted[i < nlat ? i : nlat - 1];
}

/* Fail every connection older than the timeout. */
static void expire(struct slot *slots, size_t n, int64_t now, size_t *inflight) {
    for (size_t i = 0; i < n; i++)
        if (slots[i].fd >= 0 && now - slots[i].due_ns > TIMEOUT_NS) { finish(&slots[i], 0); (*inflight)--; }
}

int main(int argc, char **argv) {
    if (argc != 6) {
        fprintf(stderr, "usage: hookd-loadgen SOCKET FRAMES fixed RATE SECONDS | max CONCURRENCY SECONDS\n");
        return 2;
    }
    addr.sun_family = AF_UNIX;
    if (strlen(argv[1]) >= sizeof addr.sun_path) { fprintf(stderr, "hookd-loadgen: socket path too long\n"); return 2; }
    strcpy(addr.sun_path, argv[1]);
    load_frames(argv[2]);
    int fixed = strcmp(argv[3], "fixed") == 0;
    double param = atof(argv[4]), seconds = atof(argv[5]);
    if (param <= 0 || seconds <= 0 || (!fixed && strcmp(argv[3], "max") != 0)) {
        fprintf(stderr, "hookd-loadgen: mode must be fixed or max, with a positive parameter and duration\n");
        return 2;
    }
    size_t nslots = fixed ? MAX_INFLIGHT : (size_t)param;
    struct slot *slots = calloc(nslots, sizeof *slots);
    for (size_t i = 0; i < nslots; i++) slots[i].fd = -1;
    int epfd = epoll_create1(EPOLL_CLOEXEC);
    if (epfd < 0) die("epoll_create1");
    struct epoll_event events[256];
    /* The open loop sleeps on a timer armed for the next due request: epoll's millisecond timeout would
     * either spin or oversleep at 1,000 req/s. */
    int tfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
    if (tfd < 0) die("timerfd_create");
    struct epoll_event tev = {.events = EPOLLIN, .data.ptr = NULL};
    if (epoll_ctl(epfd, EPOLL_CTL_ADD, tfd, &tev) < 0) die("epoll_ctl");
    int64_t last_expire = 0;

    int64_t begin = now_ns(), end = begin + (int64_t)(seconds * 1e9);
    long total = fixed ? (long)(param * seconds) : -1, issued = 0;
    size_t inflight = 0, free_hint = 0;
    for (;;) {
        int64_t now = now_ns();
        if (fixed) {
            while (issued < total && begin + (int64_t)((double)issued * 1e9 / param) <= now) {
                int64_t due = begin + (int64_t)((double)issued * 1e9 / param);
                issued++;
                if (inflight == nslots) { record(0, 0, 0); continue; }  /* MAX_INFLIGHT outstanding: count it failed */
                size_t i = free_hint;
                while (slots[i].fd >= 0) i = (i + 1) % nslots;
                if (start(&slots[i], epfd, &frames[(issued - 1) % (long)nframes], due) < 0) {
                    record(0, 0, 0);
                    continue;
                }
                inflight++;
                free_hint = (i + 1) % nslots;
            }
            if (issued == total && inflight == 0) break;
        } else {
            if (now >= end && inflight == 0) break;
            for (size_t i = 0; i < nslots && now < end; i++) {
                if (slots[i].fd >= 0) continue;
                if (start(&slots[i], epfd, &frames[issued++ % (long)nframes], now_ns()) < 0) record(0, 0, 0);
                else inflight++;
            }
        }
        int timeout_ms = 100;
        if (fixed && issued < total) {
            int64_t next = begin + (int64_t)((double)issued * 1e9 / param);
            struct itimerspec at = {.it_value = {next / 1000000000LL, next % 1000000000LL}};
            if (timerfd_settime(tfd, TFD_TIMER_ABSTIME, &at, NULL) < 0) die("timerfd_settime");
        } else if (!fixed) {
            timeout_ms = 10;
        }
        int n = epoll_wait(epfd, events, 256, timeout_ms);
        if (n < 0 && errno != EINTR) die("epoll_wait");
        for (int k = 0; k < n; k++) {
            if (events[k].data.ptr == NULL) {
                uint64_t ticks;
                if (read(tfd, &ticks, sizeof ticks) < 0 && errno != EAGAIN) die("timerfd read");
                continue;
            }
            if (step((struct slot *)events[k].data.ptr, epfd)) inflight--;
        }
        now = now_ns();
        if (now - last_expire > 10000000LL) {
            expire(slots, nslots, now, &inflight);
            last_expire = now;
        }
    }
    double elapsed = (double)(now_ns() - begin) / 1e9;
    qsort(latencies, nlat, sizeof *latencies, cmp);
    qsort(from_connect, nlat, sizeof *from_connect, cmp);
    printf("{\"%s\": %g, \"requests\": %ld, \"errors\": %ld, \"per_second\": %.1f, \"p50_ms\": %.4f, "
           "\"p90_ms\": %.4f, \"p99_ms\": %.4f, \"max_ms\": %.4f, \"from_connect_p50_ms\": %.4f, "
           "\"from_connect_p99_ms\": %.4f, \"generator\": \"c\"}\n",
           fixed ? "rate" : "concurrency", param, requests, errors, (double)nlat / elapsed, pct(latencies, 0.5),
           pct(latencies, 0.9), pct(latencies, 0.99), nlat ? latencies[nlat - 1] : -1.0, pct(from_connect, 0.5),
           pct(from_connect, 0.99));
    return 0;
}
