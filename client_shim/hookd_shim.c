/*
 * hookd's native shim: the command an agent runs for each hook event.
 *
 *   hookd-shim CLIENT EVENT [--socket PATH] [--deadline-ms N] [--fail closed|open]
 *              [--autostart PYTHON [--autostart-config FILE]]   (hookd install --autostart; docs/service.md)
 *
 * The C twin of client_shim/hookd_shim.py, byte for byte: it reads the hook payload from stdin to
 * EOF, sends it to the hookd daemon over its Unix socket (protocol: docs/protocol.md) and writes back
 * exactly the daemon's stdout, stderr and exit code. When anything goes wrong (no daemon, refused,
 * past the deadline, a truncated or malformed reply, an error reply, stdin too large or unreadable)
 * it applies the event's fail mode: closed prints the event's deny JSON with a one-line reason, open
 * prints nothing. The reasons, the header JSON and every output byte are the Python shim's; the
 * conformance suite (tests/integration/test_shim_conformance.py) holds both to that.
 *
 * libc only, C11 + POSIX. Build: `hookd shim build`, or
 *   cc -O2 -Wall -Wextra -Werror -std=c11 -D_GNU_SOURCE [-static] -o hookd-shim hookd_shim.c
 *
 * Text: the Python shim works on code points (argv, environment and cwd decoded as UTF-8 with
 * surrogateescape, the daemon's error message with "replace"). Here everything stays bytes: valid
 * UTF-8 passes through, invalid bytes pass through raw (what surrogateescape gives back), and only
 * the daemon's message has its invalid sequences replaced by U+FFFD exactly as CPython's decoder
 * does. The code points that matter (the whitespace str.split() splits on, U+2028/U+2029, controls)
 * are recognised by their UTF-8 sequences; none of those sequences can start inside another one.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define PROG "hookd-shim"
#define PROTOCOL_VERSION 1
#define REQUEST_PREFIX 14
#define REPLY_PREFIX 16
#define MAX_PAYLOAD ((size_t)16 * 1024 * 1024)
#define DEFAULT_DEADLINE_MS 4000L
#define MAX_DEADLINE_MS 2147483647L /* what poll() can wait; a larger --deadline-ms is not a number */
#define READ_CHUNK 65536
#define RECV_CHUNK ((size_t)1 << 20)

#ifndef MSG_NOSIGNAL
#define MSG_NOSIGNAL 0 /* SIGPIPE is ignored anyway */
#endif

#include "hookd_agents.h" /* FORWARDED_ENV and AGENT_EVENTS, generated from hookd.dialects.registry */

#define COUNT(array) (sizeof(array) / sizeof((array)[0]))

/* ---- growable byte buffers ------------------------------------------------------------------ */

typedef struct {
    unsigned char *data;
    size_t len, cap;
} Buf;

static int will_fail_closed; /* for out_of_memory(), which cannot build anything */
static const char *fail_prefix = ""; /* the event's blocking output around the reason (AGENT_EVENTS) */
static const char *fail_suffix = "";
static int fail_exit; /* non-zero: the fail output goes to stderr, the reason as it is, and this is the exit code */

static void write_all(int fd, const void *data, size_t len);

static _Noreturn void out_of_memory(void) {
    static const char reason[] = "\"the hookd shim ran out of memory\"";
    if (will_fail_closed) {
        int fd = fail_exit ? 2 : 1;
        size_t skip = fail_exit ? 1 : 0; /* the quotes of the JSON string, only in JSON */
        write_all(fd, fail_prefix, strlen(fail_prefix));
        write_all(fd, reason + skip, sizeof reason - 1 - 2 * skip);
        write_all(fd, fail_suffix, strlen(fail_suffix));
    }
    _exit(will_fail_closed ? fail_exit : 0);
}

static void buf_reserve(Buf *b, size_t extra) {
    if (extra > SIZE_MAX / 2 - b->len)
        out_of_memory();
    size_t need = b->len + extra;
    if (need <= b->cap)
        return;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < need)
        cap *= 2;
    unsigned char *data = realloc(b->data, cap);
    if (!data)
        out_of_memory();
    b->data = data;
    b->cap = cap;
}

static void buf_add(Buf *b, const void *data, size_t len) {
    if (!len)
        return;
    buf_reserve(b, len);
    memcpy(b->data + b->len, data, len);
    b->len += len;
}

static void buf_str(Buf *b, const char *text) { buf_add(b, text, strlen(text)); }

static void buf_byte(Buf *b, unsigned char byte) { buf_add(b, &byte, 1); }

static void buf_num(Buf *b, unsigned long long value) {
    char digits[24];
    size_t i = sizeof digits;
    do {
        digits[--i] = (char)('0' + value % 10);
        value /= 10;
    } while (value);
    buf_add(b, digits + i, sizeof digits - i);
}

static void buf_hex(Buf *b, const char *prefix, unsigned value, int width) {
    static const char hex[] = "0123456789abcdef";
    buf_str(b, prefix);
    for (int shift = (width - 1) * 4; shift >= 0; shift -= 4)
        buf_byte(b, (unsigned char)hex[(value >> shift) & 0xf]);
}

/* ---- UTF-8, the way CPython sees it ---------------------------------------------------------- */

static int is_cont(unsigned char c) { return (c & 0xc0) == 0x80; }

/* The length of the valid UTF-8 sequence at s (n bytes left), or, negated, the length of the invalid
 * stretch CPython's decoder reports there (its "maximal subpart": one U+FFFD under "replace"). */
static long utf8_seq(const unsigned char *s, size_t n) {
    unsigned char c = s[0];
    if (c < 0x80)
        return 1;
    if (c < 0xc2 || c > 0xf4)
        return -1;
    if (c < 0xe0) {
        if (n < 2)
            return -1; /* unexpected end of data */
        return is_cont(s[1]) ? 2 : -1;
    }
    if (n < 2)
        return -(long)n;
    unsigned char lo = 0x80, hi = 0xbf; /* the range of the second byte */
    if (c == 0xe0)
        lo = 0xa0;
    else if (c == 0xed)
        hi = 0x9f;
    else if (c == 0xf0)
        lo = 0x90;
    else if (c == 0xf4)
        hi = 0x8f;
    if (s[1] < lo || s[1] > hi)
        return -1;
    size_t need = c < 0xf0 ? 3 : 4;
    for (size_t i = 2; i < need; i++) {
        if (i >= n)
            return -(long)n; /* a valid prefix cut off by the end: one stretch */
        if (!is_cont(s[i]))
            return -(long)i;
    }
    return (long)need;
}

/* bytes.decode("utf-8", "replace"): every invalid stretch becomes U+FFFD. */
static void utf8_replace(Buf *out, const unsigned char *s, size_t n) {
    size_t i = 0;
    while (i < n) {
        long len = utf8_seq(s + i, n - i);
        if (len > 0) {
            buf_add(out, s + i, (size_t)len);
            i += (size_t)len;
        } else {
            buf_str(out, "\xef\xbf\xbd");
            i += (size_t)-len;
        }
    }
}

/* The length of the whitespace character at s (what Python's str.split() splits on), or 0. */
static size_t space_len(const unsigned char *s, size_t n) {
    unsigned char c = s[0];
    if (c == ' ' || (c >= 0x09 && c <= 0x0d) || (c >= 0x1c && c <= 0x1f))
        return 1;
    if (c == 0xc2 && n >= 2 && (s[1] == 0x85 || s[1] == 0xa0))
        return 2;
    if (n < 3)
        return 0;
    if (c == 0xe1 && s[1] == 0x9a && s[2] == 0x80) /* U+1680 */
        return 3;
    if (c == 0xe2 && s[1] == 0x80 && ((s[2] >= 0x80 && s[2] <= 0x8a) || s[2] == 0xa8 || s[2] == 0xa9 || s[2] == 0xaf))
        return 3; /* U+2000..U+200A, U+2028, U+2029, U+202F */
    if (c == 0xe2 && s[1] == 0x81 && s[2] == 0x9f) /* U+205F */
        return 3;
    if (c == 0xe3 && s[1] == 0x80 && s[2] == 0x80) /* U+3000 */
        return 3;
    return 0;
}

/* " ".join(text.split()): one line, single spaces, no leading or trailing whitespace. */
static void one_line(Buf *out, const unsigned char *s, size_t n) {
    size_t i = 0;
    int started = 0, gap = 0;
    while (i < n) {
        size_t space = space_len(s + i, n - i);
        if (space) {
            gap = started;
            i += space;
            continue;
        }
        if (gap)
            buf_byte(out, ' ');
        started = 1;
        gap = 0;
        buf_byte(out, s[i++]);
    }
}

/* The Python shim's json_string(): controls as \u00XX, " and \ escaped, U+2028/U+2029 escaped. */
static void json_string(Buf *out, const unsigned char *s, size_t n) {
    buf_byte(out, '"');
    for (size_t i = 0; i < n; i++) {
        unsigned char c = s[i];
        if (c < 0x20)
            buf_hex(out, "\\u", c, 4);
        else if (c == '"')
            buf_str(out, "\\\"");
        else if (c == '\\')
            buf_str(out, "\\\\");
        else if (c == 0xe2 && n - i >= 3 && s[i + 1] == 0x80 && (s[i + 2] == 0xa8 || s[i + 2] == 0xa9)) {
            buf_str(out, s[i + 2] == 0xa8 ? "\\u2028" : "\\u2029");
            i += 2;
        } else
            buf_byte(out, c);
    }
    buf_byte(out, '"');
}

static void json_cstring(Buf *out, const char *text) {
    json_string(out, (const unsigned char *)text, strlen(text));
}

/* Python's repr() of an argument, for the usage errors: exact for ASCII and Latin-1; other
 * non-printable code points (rare in a command line) are left as they are. */
static void py_repr(Buf *out, const char *text) {
    const unsigned char *s = (const unsigned char *)text;
    size_t n = strlen(text);
    unsigned char quote = (memchr(s, '\'', n) && !memchr(s, '"', n)) ? '"' : '\'';
    buf_byte(out, quote);
    for (size_t i = 0; i < n; i++) {
        unsigned char c = s[i];
        if (c == quote || c == '\\') {
            buf_byte(out, '\\');
            buf_byte(out, c);
        } else if (c == '\t')
            buf_str(out, "\\t");
        else if (c == '\n')
            buf_str(out, "\\n");
        else if (c == '\r')
            buf_str(out, "\\r");
        else if (c < 0x20 || c == 0x7f)
            buf_hex(out, "\\x", c, 2);
        else if (c < 0x80)
            buf_byte(out, c);
        else {
            long len = utf8_seq(s + i, n - i);
            if (len < 0)
                buf_hex(out, "\\udc", c, 2); /* surrogateescape */
            else if (c == 0xc2 && (s[i + 1] <= 0xa0 || s[i + 1] == 0xad)) {
                buf_hex(out, "\\x", s[i + 1], 2); /* C1 controls, NBSP, soft hyphen */
                i += 1;
            } else {
                buf_add(out, s + i, (size_t)len);
                i += (size_t)len - 1;
            }
        }
    }
    buf_byte(out, quote);
}

/* ---- output ---------------------------------------------------------------------------------- */

static int write_fully(int fd, const void *data, size_t len) {
    const unsigned char *p = data;
    while (len) {
        ssize_t n = write(fd, p, len);
        if (n >= 0) {
            p += n;
            len -= (size_t)n;
        } else if (errno == EAGAIN || errno == EWOULDBLOCK) {
            struct pollfd pfd = {.fd = fd, .events = POLLOUT};
            (void)poll(&pfd, 1, -1);
        } else if (errno != EINTR)
            return -1;
    }
    return 0;
}

static void write_all(int fd, const void *data, size_t len) { (void)write_fully(fd, data, len); }

static _Noreturn void usage_error(Buf *message) {
    buf_byte(message, '\n');
    write_all(2, message->data, message->len);
    exit(1);
}

/* ---- failures -------------------------------------------------------------------------------- */

typedef enum {
    F_NOT_RUNNING = 1,
    F_TIMEOUT,
    F_STDIN_TIMEOUT,
    F_STDIN_ERROR,
    F_TRUNCATED,
    F_MALFORMED,
    F_OVERSIZE,
    F_REJECTED,
    F_CONNECT,
    F_UNSAFE_DIR,
    F_FOREIGN_PEER,
    F_AUTOSTART_TIMEOUT,
} FailKind;

typedef struct {
    FailKind kind;
    int err;           /* errno for F_STDIN_ERROR and F_CONNECT */
    const char *text;  /* F_CONNECT without an errno */
    Buf message;       /* F_REJECTED: the daemon's message, raw; F_UNSAFE_DIR: the directory */
    unsigned long long uid; /* F_UNSAFE_DIR, F_FOREIGN_PEER: who owns it */
    unsigned mode;     /* F_UNSAFE_DIR: the directory's permission bits */
    int is_dir;        /* F_UNSAFE_DIR: a directory (else a symlink) */
} Failure;

static int fail(Failure *f, FailKind kind, int err) {
    f->kind = kind;
    f->err = err;
    return -1;
}

static void describe(Buf *out, const Failure *f, const char *path, long deadline_ms) {
    switch (f->kind) {
    case F_NOT_RUNNING:
        buf_str(out, "hookd is not running (no daemon on ");
        buf_str(out, path);
        buf_str(out, "): start it with `hookd serve`");
        break;
    case F_AUTOSTART_TIMEOUT:
        buf_str(out, "hookd was not running on ");
        buf_str(out, path);
        buf_str(out, " and did not start within ");
        buf_num(out, (unsigned long long)deadline_ms);
        buf_str(out, " ms (it is starting)");
        break;
    case F_TIMEOUT:
        buf_str(out, "hookd did not answer within ");
        buf_num(out, (unsigned long long)deadline_ms);
        buf_str(out, " ms");
        break;
    case F_STDIN_TIMEOUT:
        buf_str(out, "the hook input (stdin) was not complete within ");
        buf_num(out, (unsigned long long)deadline_ms);
        buf_str(out, " ms");
        break;
    case F_STDIN_ERROR:
        buf_str(out, "the hook input (stdin) could not be read (");
        buf_str(out, strerror(f->err));
        buf_str(out, ")");
        break;
    case F_TRUNCATED:
        buf_str(out, "hookd closed the connection before a complete reply");
        break;
    case F_MALFORMED:
        buf_str(out, "hookd sent a malformed reply");
        break;
    case F_OVERSIZE:
        buf_str(out, "the hook input is larger than hookd's limit of ");
        buf_num(out, MAX_PAYLOAD);
        buf_str(out, " bytes; not sent");
        break;
    case F_REJECTED:
        buf_str(out, "hookd rejected the event: ");
        utf8_replace(out, f->message.data, f->message.len);
        break;
    case F_CONNECT:
        buf_str(out, "hookd could not be reached: connection failed (");
        buf_str(out, f->text ? f->text : strerror(f->err));
        buf_str(out, ")");
        break;
    case F_UNSAFE_DIR:
        buf_str(out, "refusing hookd's socket directory ");
        buf_add(out, f->message.data, f->message.len);
        buf_str(out, f->is_dir ? ": a directory" : ": a symlink");
        buf_str(out, " owned by uid ");
        buf_num(out, f->uid);
        buf_str(out, " with mode ");
        buf_byte(out, (unsigned char)('0' + ((f->mode >> 9) & 7)));
        buf_byte(out, (unsigned char)('0' + ((f->mode >> 6) & 7)));
        buf_byte(out, (unsigned char)('0' + ((f->mode >> 3) & 7)));
        buf_byte(out, (unsigned char)('0' + (f->mode & 7)));
        buf_str(out, " (it must be yours or root's with mode 0700); remove it and restart hookd");
        break;
    case F_FOREIGN_PEER:
        buf_str(out, "refusing the daemon on ");
        buf_str(out, path);
        buf_str(out, ": it runs as uid ");
        buf_num(out, f->uid);
        buf_str(out, ", not as you (uid ");
        buf_num(out, (unsigned long long)getuid());
        buf_str(out, ") or root; stop it and start hookd yourself");
        break;
    }
}

/* ---- deadline -------------------------------------------------------------------------------- */

static int64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Wait until fd is ready for events: 1 ready, 0 the deadline has passed, -1 an error (errno). */
static int wait_fd(int fd, short events, int64_t deadline) {
    for (;;) {
        int64_t left = deadline - now_ns();
        if (left <= 0)
            return 0;
        int64_t ms = (left + 999999) / 1000000;
        struct pollfd pfd = {.fd = fd, .events = events};
        int ready = poll(&pfd, 1, ms > INT_MAX ? INT_MAX : (int)ms);
        if (ready > 0) {
            if (pfd.revents & POLLNVAL) {
                errno = EBADF;
                return -1;
            }
            return 1;
        }
        if (ready < 0 && errno != EINTR)
            return -1;
    }
}

/* ---- the exchange ---------------------------------------------------------------------------- */

static int read_stdin(Buf *payload, int64_t deadline, Failure *f) {
    for (;;) {
        int ready = wait_fd(0, POLLIN, deadline);
        if (ready == 0)
            return fail(f, F_STDIN_TIMEOUT, 0);
        if (ready < 0)
            return fail(f, F_STDIN_ERROR, errno);
        buf_reserve(payload, READ_CHUNK);
        ssize_t n = read(0, payload->data + payload->len, READ_CHUNK);
        if (n < 0) {
            if (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK)
                continue;
            return fail(f, F_STDIN_ERROR, errno);
        }
        if (n == 0)
            return 0;
        payload->len += (size_t)n;
        if (payload->len > MAX_PAYLOAD)
            return fail(f, F_OVERSIZE, 0);
    }
}

static void encode_header(Buf *out, const char *client, const char *event) {
    buf_str(out, "{\"client\":");
    json_cstring(out, client);
    buf_str(out, ",\"event\":");
    json_cstring(out, event);
    buf_str(out, ",\"cwd\":");
    char *cwd = getcwd(NULL, 0);
    json_cstring(out, cwd ? cwd : "");
    free(cwd);
    buf_str(out, ",\"ppid\":");
    buf_num(out, (unsigned long long)getppid());
    buf_str(out, ",\"env\":{");
    int first = 1;
    for (size_t i = 0; i < COUNT(FORWARDED_ENV); i++) {
        const char *value = getenv(FORWARDED_ENV[i]);
        if (!value)
            continue;
        if (!first)
            buf_byte(out, ',');
        first = 0;
        json_cstring(out, FORWARDED_ENV[i]);
        buf_byte(out, ':');
        json_cstring(out, value);
    }
    buf_str(out, "}}");
}

static void put_u32(unsigned char *p, uint32_t v) {
    p[0] = (unsigned char)(v >> 24);
    p[1] = (unsigned char)(v >> 16);
    p[2] = (unsigned char)(v >> 8);
    p[3] = (unsigned char)v;
}

static uint32_t get_u32(const unsigned char *p) {
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

/* ---- who answers: the checks that keep another local user from posing as the daemon ----------
 * Self-contained: verify_dir() runs before connecting, verify_peer() right after, before any byte is
 * sent. docs/protocol.md ("Who the shim talks to") says why and gives the reasons. */

static int trusted_uid(uid_t uid) { return uid == 0 || uid == getuid(); }

/* The socket's directory must be a real directory of this user's (or root's), closed to others: anyone
 * else who could create or replace the socket could answer with an allow or a rewrite. */
static int verify_dir(const char *path, Failure *f) {
    const char *slash = strrchr(path, '/');
    Buf dir = {0};
    if (!slash)
        buf_str(&dir, ".");
    else if (slash == path)
        buf_str(&dir, "/");
    else
        buf_add(&dir, path, (size_t)(slash - path));
    buf_byte(&dir, 0);
    struct stat info;
    int rc = lstat((const char *)dir.data, &info);
    if (rc != 0) {
        int err = errno;
        free(dir.data);
        return fail(f, (err == ENOENT || err == ENOTDIR) ? F_NOT_RUNNING : F_CONNECT, err);
    }
    if (!S_ISDIR(info.st_mode) && !S_ISLNK(info.st_mode)) {
        free(dir.data);
        return fail(f, F_CONNECT, ENOTDIR); /* what connect() would say */
    }
    if (S_ISDIR(info.st_mode) && trusted_uid(info.st_uid) && !(info.st_mode & 077)) {
        free(dir.data);
        return 0;
    }
    buf_add(&f->message, dir.data, dir.len - 1);
    free(dir.data);
    f->is_dir = S_ISDIR(info.st_mode);
    f->uid = (unsigned long long)info.st_uid;
    f->mode = (unsigned)(info.st_mode & 07777);
    return fail(f, F_UNSAFE_DIR, 0);
}

/* The process listening must be this user's or root's (SO_PEERCRED). */
static int verify_peer(int fd, Failure *f) {
    struct ucred cred;
    socklen_t len = sizeof cred;
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0)
        return fail(f, F_CONNECT, errno);
    if (trusted_uid(cred.uid))
        return 0;
    f->uid = (unsigned long long)cred.uid;
    return fail(f, F_FOREIGN_PEER, 0);
}

/* A blocking connect bounded by SO_SNDTIMEO: on a Unix socket that is how long connect() waits for
 * room in a busy daemon's backlog, where a non-blocking one fails at once with EAGAIN. */
static int connect_daemon(int fd, const char *path, int64_t deadline, Failure *f) {
    struct sockaddr_un addr;
    memset(&addr, 0, sizeof addr);
    addr.sun_family = AF_UNIX;
    size_t len = strlen(path);
    if (len >= sizeof addr.sun_path) { /* as CPython: room for the terminating NUL */
        f->text = "AF_UNIX path too long";
        return fail(f, F_CONNECT, 0);
    }
    memcpy(addr.sun_path, path, len + 1);
    socklen_t addr_len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + len + 1);
    for (;;) {
        int64_t left = deadline - now_ns();
        if (left <= 0)
            return fail(f, F_TIMEOUT, 0);
        struct timeval tv = {.tv_sec = (time_t)(left / 1000000000),
                             .tv_usec = (suseconds_t)(left % 1000000000 / 1000)};
        if (tv.tv_sec == 0 && tv.tv_usec == 0)
            tv.tv_usec = 1; /* zero would mean no timeout at all */
        if (setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv) != 0)
            return fail(f, F_CONNECT, errno);
        if (connect(fd, (struct sockaddr *)&addr, addr_len) == 0)
            return 0;
        if (errno == ENOENT || errno == ECONNREFUSED)
            return fail(f, F_NOT_RUNNING, 0);
        if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
            return fail(f, F_CONNECT, errno);
    }
}

static int send_frame(int fd, struct iovec *iov, int count, int64_t deadline, Failure *f) {
    while (count > 0) {
        if (iov->iov_len == 0) {
            iov++;
            count--;
            continue;
        }
        int ready = wait_fd(fd, POLLOUT, deadline);
        if (ready == 0)
            return fail(f, F_TIMEOUT, 0);
        if (ready < 0)
            return fail(f, F_CONNECT, errno);
        struct msghdr msg;
        memset(&msg, 0, sizeof msg);
        msg.msg_iov = iov;
        msg.msg_iovlen = (size_t)count;
        ssize_t n = sendmsg(fd, &msg, MSG_DONTWAIT | MSG_NOSIGNAL);
        if (n < 0) {
            if (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK)
                continue;
            return fail(f, F_CONNECT, errno);
        }
        size_t sent = (size_t)n;
        while (count > 0 && sent >= iov->iov_len) {
            sent -= iov->iov_len;
            iov++;
            count--;
        }
        if (count > 0) {
            iov->iov_base = (unsigned char *)iov->iov_base + sent;
            iov->iov_len -= sent;
        }
    }
    return 0;
}

static int recv_exactly(int fd, unsigned char *dst, size_t size, int64_t deadline, Failure *f) {
    size_t got = 0;
    while (got < size) {
        int ready = wait_fd(fd, POLLIN, deadline);
        if (ready == 0)
            return fail(f, F_TIMEOUT, 0);
        if (ready < 0)
            return fail(f, F_CONNECT, errno);
        size_t want = size - got < RECV_CHUNK ? size - got : RECV_CHUNK;
        ssize_t n = recv(fd, dst + got, want, MSG_DONTWAIT);
        if (n < 0) {
            if (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK)
                continue;
            return fail(f, F_CONNECT, errno);
        }
        if (n == 0)
            return fail(f, F_TRUNCATED, 0);
        got += (size_t)n;
    }
    return 0;
}

typedef struct {
    int exit_code;
    unsigned char *body;
    size_t out_len, err_len;
} Reply;

static int read_reply(int fd, Reply *reply, int64_t deadline, Failure *f) {
    unsigned char prefix[REPLY_PREFIX];
    if (recv_exactly(fd, prefix, sizeof prefix, deadline, f))
        return -1;
    uint64_t out_len = get_u32(prefix + 8), err_len = get_u32(prefix + 12);
    int status = prefix[5];
    if (memcmp(prefix, "HKDR", 4) != 0 || prefix[4] != PROTOCOL_VERSION || status > 1 ||
        out_len + err_len > MAX_PAYLOAD)
        return fail(f, F_MALFORMED, 0);
    size_t total = (size_t)(out_len + err_len);
    reply->body = malloc(total ? total : 1);
    if (!reply->body)
        out_of_memory();
    if (recv_exactly(fd, reply->body, total, deadline, f))
        return -1;
    reply->out_len = (size_t)out_len;
    reply->err_len = (size_t)err_len;
    reply->exit_code = prefix[6];
    if (status == 1) {
        buf_add(&f->message, reply->body, reply->out_len);
        return fail(f, F_REJECTED, 0);
    }
    return 0;
}

static int exchange(const char *path, struct iovec *iov, int count, Reply *reply, int64_t deadline,
                    Failure *f) {
    if (verify_dir(path, f))
        return -1;
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    if (fd < 0)
        return fail(f, F_CONNECT, errno);
    int rc = connect_daemon(fd, path, deadline, f);
    if (rc == 0)
        rc = verify_peer(fd, f);
    if (rc == 0) {
        rc = send_frame(fd, iov, count, deadline, f);
        /* A daemon that refuses a frame (too large, say) answers and closes without reading the
         * rest: the reply is what says why, so read it; the broken pipe only when there is none. */
        int send_errno = (rc && f->kind == F_CONNECT && (f->err == EPIPE || f->err == ECONNRESET)) ? f->err : 0;
        if (rc == 0 || send_errno) {
            rc = read_reply(fd, reply, deadline, f);
            if (rc && send_errno && f->kind != F_REJECTED)
                fail(f, F_CONNECT, send_errno);
        }
    }
    close(fd);
    return rc;
}

/* ---- a streamed chunk goes to the stream lane first (the Python shim's streamed() is the twin) ----- */

#define STREAM_SOCKET "stream.sock" /* beside the hook socket: the process that decides streamed chunks */

/* The stream lane's error codes for a chunk it refused before reading it: the hook socket relays it. */
static int refused_unread(const Reply *reply) {
    static const char *const codes[] = {"busy", "forbidden"};
    const char *code = (const char *)reply->body + reply->out_len;
    for (size_t i = 0; i < sizeof codes / sizeof codes[0]; i++)
        if (reply->err_len == strlen(codes[i]) && memcmp(code, codes[i], reply->err_len) == 0)
            return 1;
    return 0;
}

/* The stream lane holds the response's text and decides every chunk of it; reached directly it spares the
 * daemon's relay (docs/protocol.md, issue 30). 1 when the lane did not take the chunk: no socket, or refused
 * unread (`busy`, `forbidden`); the hook socket then relays it to the lane as it relays every chunk. Any
 * other failure (a lane that died holding the chunk) is not sent again: the lane may have decided it. */
static int streamed(const char *client, const char *event, const char *path, const struct iovec *iov, int count,
                    Reply *reply, int64_t deadline, Failure *f) {
    int found = 0;
    for (size_t i = 0; i < sizeof STREAMED_EVENTS / sizeof STREAMED_EVENTS[0]; i++)
        found |= strcmp(STREAMED_EVENTS[i][0], client) == 0 && strcmp(STREAMED_EVENTS[i][1], event) == 0;
    if (!found)
        return 1;
    const char *slash = strrchr(path, '/');
    Buf lane = {0};
    buf_add(&lane, path, slash ? (size_t)(slash - path) + 1 : 0);
    buf_str(&lane, STREAM_SOCKET);
    buf_byte(&lane, 0);
    struct iovec copy[3]; /* exchange() advances what it sends; the hook socket may need the frame whole */
    memcpy(copy, iov, (size_t)count * sizeof *iov); /* count <= 3: the prefix, the header, the payload */
    int rc = exchange((const char *)lane.data, copy, count, reply, deadline, f);
    free(lane.data);
    if (rc == 0)
        return 0;
    if (f->kind != F_NOT_RUNNING && !(f->kind == F_REJECTED && refused_unread(reply)))
        return -1;
    free(reply->body);
    reply->body = NULL;
    free(f->message.data);
    memset(f, 0, sizeof *f);
    return 1;
}

/* ---- autostart (hookd install --autostart; the Python shim's autostart() is the twin) ----------- */

/* PATH as an absolute path (joined to the working directory when relative), owned by the caller. */
static char *absolute_path(const char *path) {
    if (path[0] == '/')
        return strdup(path);
    char *cwd = getcwd(NULL, 0);
    if (!cwd)
        return NULL;
    size_t head = strlen(cwd), tail = strlen(path);
    char *joined = malloc(head + tail + 2);
    if (joined) {
        memcpy(joined, cwd, head);
        joined[head] = '/';
        memcpy(joined + head + 1, path, tail + 1);
    }
    free(cwd);
    return joined;
}

/* `PROGRAM -I -m hookd [--config FILE] serve --runtime-dir DIR` in a session of its own, detached from the
 * agent (a double fork: the daemon is no child of the hook), stdin from /dev/null, output appended to
 * DIR/autostart.log. Isolated from the agent's working directory, PYTHONPATH and user site, and run from /
 * (hookd.runtime.isolated): a repository's `hookd/__main__.py` would otherwise be started as the daemon. */
static void spawn_daemon(const char *program, const char *config, const char *dir) {
    pid_t pid = fork();
    if (pid < 0)
        return;
    if (pid > 0) {
        while (waitpid(pid, NULL, 0) < 0 && errno == EINTR) {
        }
        return;
    }
    setsid();
    if (fork() != 0)
        _exit(0);
    Buf log = {0};
    buf_str(&log, dir);
    buf_str(&log, "/autostart.log");
    buf_byte(&log, 0);
    int null = open("/dev/null", O_RDONLY | O_CLOEXEC);
    int out = open((const char *)log.data, O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (null >= 0)
        dup2(null, 0);
    if (out >= 0) {
        dup2(out, 1);
        dup2(out, 2);
    }
    char *exe = absolute_path(program), *conf = config ? absolute_path(config) : NULL, *run = absolute_path(dir);
    if (!exe || (config && !conf) || !run || chdir("/") != 0)
        _exit(127);
    const char *argv[11];
    int n = 0;
    argv[n++] = exe;
    argv[n++] = "-I";
    argv[n++] = "-m";
    argv[n++] = "hookd";
    if (conf) {
        argv[n++] = "--config";
        argv[n++] = conf;
    }
    argv[n++] = "serve";
    argv[n++] = "--runtime-dir";
    argv[n++] = run;
    argv[n] = NULL;
    execv(exe, (char *const *)argv);
    _exit(127);
}

/* No daemon answered: start one (unless another shim holds the lock and is starting it) and ask again,
 * with a growing pause, until it answers or the deadline passes. The runtime dir is made 0700 and
 * checked as every call checks it. */
static int autostart(const char *path, const char *program, const char *config, struct iovec *iov, int count,
                     Reply *reply, int64_t deadline, Failure *f) {
    const char *slash = strrchr(path, '/');
    if (!slash)
        return -1;
    Buf dir = {0}, lock_path = {0};
    buf_add(&dir, path, slash == path ? 1 : (size_t)(slash - path));
    buf_byte(&dir, 0);
    if (mkdir((const char *)dir.data, 0700) != 0 && errno != EEXIST)
        return -1;
    if (verify_dir(path, f))
        return -1;
    buf_add(&lock_path, dir.data, dir.len - 1);
    buf_str(&lock_path, "/autostart.lock");
    buf_byte(&lock_path, 0);
    int lock = open((const char *)lock_path.data, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (lock < 0)
        return -1;
    if (flock(lock, LOCK_EX | LOCK_NB) == 0)
        spawn_daemon(program, config, (const char *)dir.data);
    int64_t pause = 5000000;
    for (;;) {
        memset(f, 0, sizeof *f);
        if (exchange(path, iov, count, reply, deadline, f) == 0)
            break;
        if (f->kind != F_NOT_RUNNING || now_ns() + pause >= deadline) {
            if (f->kind == F_NOT_RUNNING)
                f->kind = F_AUTOSTART_TIMEOUT;
            close(lock);
            return -1;
        }
        struct timespec wait = {.tv_sec = 0, .tv_nsec = (long)pause};
        nanosleep(&wait, NULL);
        pause = pause * 2 > 50000000 ? 50000000 : pause * 2;
    }
    close(lock);
    return 0;
}

/* ---- command line ---------------------------------------------------------------------------- */

static const AgentEvent *find_agent_event(const char *client, const char *event) {
    for (size_t i = 0; i < COUNT(AGENT_EVENTS); i++)
        if (strcmp(client, AGENT_EVENTS[i].client) == 0 && strcmp(event, AGENT_EVENTS[i].event) == 0)
            return &AGENT_EVENTS[i];
    return NULL;
}

/* A positive decimal number of milliseconds, else the default (as the Python shim). */
static long parse_deadline(const char *text) {
    if (!text || !*text)
        return DEFAULT_DEADLINE_MS;
    long value = 0;
    for (const char *p = text; *p; p++) {
        if (*p < '0' || *p > '9')
            return DEFAULT_DEADLINE_MS;
        value = value * 10 + (*p - '0');
        if (value > MAX_DEADLINE_MS)
            return DEFAULT_DEADLINE_MS;
    }
    return value > 0 ? value : DEFAULT_DEADLINE_MS;
}

typedef struct {
    const char *client, *event, *socket, *deadline, *fail, *autostart, *autostart_config;
} Options;

static Options parse_args(int argc, char **argv) {
    Buf message = {0};
    if (argc < 3) {
        buf_str(&message,
                "usage: " PROG " CLIENT EVENT [--socket PATH] [--deadline-ms N] [--fail closed|open]");
        usage_error(&message);
    }
    Options opts = {.client = argv[1], .event = argv[2]};
    for (int i = 3; i < argc; i += 2) {
        const char *key = argv[i];
        const char **slot = NULL;
        if (strcmp(key, "--socket") == 0)
            slot = &opts.socket;
        else if (strcmp(key, "--deadline-ms") == 0)
            slot = &opts.deadline;
        else if (strcmp(key, "--fail") == 0)
            slot = &opts.fail;
        else if (strcmp(key, "--autostart") == 0)
            slot = &opts.autostart;
        else if (strcmp(key, "--autostart-config") == 0)
            slot = &opts.autostart_config;
        if (!slot || i + 1 >= argc) {
            buf_str(&message, PROG ": bad argument ");
            py_repr(&message, key);
            usage_error(&message);
        }
        *slot = argv[i + 1];
    }
    if (opts.fail && strcmp(opts.fail, "closed") != 0 && strcmp(opts.fail, "open") != 0) {
        buf_str(&message, PROG ": bad value ");
        py_repr(&message, opts.fail);
        buf_str(&message, " for --fail: use closed or open");
        usage_error(&message);
    }
    return opts;
}

static const char *default_socket_path(Buf *storage) {
    const char *explicit = getenv("HOOKD_SOCKET");
    if (explicit && *explicit)
        return explicit;
    const char *runtime = getenv("XDG_RUNTIME_DIR");
    if (runtime && runtime[0] == '/') {
        buf_str(storage, runtime);
        buf_str(storage, "/hookd/hook.sock");
    } else {
        Buf login = {0}; /* /run/user/<uid>, the daemon's choice too (hookd.config.runtime_dir) */
        buf_str(&login, "/run/user/");
        buf_num(&login, (unsigned long long)getuid());
        buf_byte(&login, 0);
        struct stat info;
        if (lstat((const char *)login.data, &info) == 0 && S_ISDIR(info.st_mode) && info.st_uid == getuid() &&
            !(info.st_mode & 077)) {
            buf_add(storage, login.data, login.len - 1);
            buf_str(storage, "/hookd/hook.sock");
        } else {
            buf_str(storage, "/tmp/hookd-");
            buf_num(storage, (unsigned long long)getuid());
            buf_str(storage, "/hook.sock");
        }
        free(login.data);
    }
    buf_byte(storage, 0);
    return (const char *)storage->data;
}

/* /tmp/hookd-<uid> held by another user (or a symlink): the daemon's runtime dir is $HOME/.cache/hookd/run
 * instead (hookd.config.runtime_dir.default_runtime_dir, and the Python shim's unsquatted(), make the same
 * choice), for the default socket and for /tmp/hookd-<uid>/hook.sock named by --socket. */
static const char *unsquatted(const char *path, Buf *storage) {
    Buf shared = {0};
    buf_str(&shared, "/tmp/hookd-");
    buf_num(&shared, (unsigned long long)getuid());
    size_t dir_len = shared.len;
    buf_str(&shared, "/hook.sock");
    buf_byte(&shared, 0);
    const char *home = getenv("HOME");
    int named = strcmp(path, (const char *)shared.data) == 0 && home && home[0] == '/';
    shared.data[dir_len] = 0;
    struct stat info;
    int held = named && lstat((const char *)shared.data, &info) != 0 ? errno != ENOENT
               : named && (!S_ISDIR(info.st_mode) || info.st_uid != getuid());
    free(shared.data);
    if (!held)
        return path;
    buf_str(storage, home);
    buf_str(storage, "/.cache/hookd/run/hook.sock");
    buf_byte(storage, 0);
    return (const char *)storage->data;
}

static void proc_path(Buf *out, long pid, const char *leaf) {
    out->len = 0;
    buf_str(out, "/proc/");
    buf_num(out, (unsigned long long)pid);
    buf_str(out, leaf);
    buf_byte(out, 0);
}

/* The parent pid from /proc/PID/stat: the 4th field, after the command name in parentheses (which may
 * hold spaces and parentheses: read after the last ')'); 0 when it cannot be read. */
static long parent_of(long pid) {
    Buf path = {0};
    proc_path(&path, pid, "/stat");
    char text[512];
    int fd = open((const char *)path.data, O_RDONLY | O_CLOEXEC);
    free(path.data);
    if (fd < 0)
        return 0;
    ssize_t n = read(fd, text, sizeof text - 1);
    close(fd);
    if (n <= 0)
        return 0;
    text[n] = '\0';
    char *p = strrchr(text, ')');
    if (!p || p[1] != ' ' || p[2] == '\0' || p[3] != ' ')
        return 0;
    long parent = 0;
    for (p += 4; *p >= '0' && *p <= '9'; p++)
        parent = parent * 10 + (*p - '0');
    return parent;
}

/* Write the reason to the agent's own stderr, for an event whose block the agent shows nobody: the first
 * ancestor whose stderr is not the shim's (the agent captures the shim's). Best effort, Linux only (/proc);
 * appended, never blocking. */
static void tell_agent(const unsigned char *reason, size_t len) {
    struct stat mine, theirs;
    if (fstat(2, &mine) != 0)
        return;
    Buf path = {0};
    long pid = (long)getppid();
    for (int depth = 0; depth < 8 && pid > 1; depth++, pid = parent_of(pid)) {
        proc_path(&path, pid, "/fd/2");
        if (stat((const char *)path.data, &theirs) != 0)
            break;
        if (theirs.st_dev == mine.st_dev && theirs.st_ino == mine.st_ino)
            continue;
        int fd = open((const char *)path.data, O_WRONLY | O_APPEND | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
        if (fd >= 0) {
            Buf line = {0};
            buf_str(&line, "hookd: ");
            buf_add(&line, reason, len);
            buf_byte(&line, '\n');
            ssize_t written = write(fd, line.data, line.len); /* once: a full pipe is not waited on */
            (void)written;
            free(line.data);
            close(fd);
        }
        break;
    }
    free(path.data);
}

static int finish(const void *out, size_t out_len, const void *err, size_t err_len, int code) {
    if (write_fully(1, out, out_len) != 0 || write_fully(2, err, err_len) != 0) {
        int err_no = errno;
        Buf message = {0};
        buf_str(&message, PROG ": cannot write the reply (");
        buf_str(&message, strerror(err_no));
        buf_str(&message, ")\n");
        write_all(2, message.data, message.len);
        return 1;
    }
    return code;
}

int main(int argc, char **argv) {
    struct sigaction ignore;
    memset(&ignore, 0, sizeof ignore);
    ignore.sa_handler = SIG_IGN;
    sigaction(SIGPIPE, &ignore, NULL); /* a closed socket or stdout is an error to handle, not death */

    Options opts = parse_args(argc, argv);
    long deadline_ms = parse_deadline(opts.deadline);
    int64_t deadline = now_ns() + (int64_t)deadline_ms * 1000000;
    Buf path_storage = {0};
    Buf fallback_storage = {0};
    const char *path = unsquatted(opts.socket && *opts.socket ? opts.socket : default_socket_path(&path_storage),
                                  &fallback_storage);
    const AgentEvent *entry = find_agent_event(opts.client, opts.event);
    int closed = opts.fail ? strcmp(opts.fail, "closed") == 0 : entry != NULL && entry->closed_by_default;
    will_fail_closed = closed && entry != NULL && (entry->fail_prefix[0] != '\0' || entry->fail_exit != 0);
    if (will_fail_closed) {
        fail_prefix = entry->fail_prefix;
        fail_suffix = entry->fail_suffix;
        fail_exit = entry->fail_exit;
    }

    Failure failure;
    memset(&failure, 0, sizeof failure);
    Buf payload = {0}, header = {0};
    Reply reply = {0};
    if (read_stdin(&payload, deadline, &failure) == 0) {
        encode_header(&header, opts.client, opts.event);
        unsigned char prefix[REQUEST_PREFIX] = {'H', 'K', 'D', 'Q', PROTOCOL_VERSION, 0};
        put_u32(prefix + 6, (uint32_t)header.len);
        put_u32(prefix + 10, (uint32_t)payload.len);
        struct iovec iov[3] = {
            {.iov_base = prefix, .iov_len = sizeof prefix},
            {.iov_base = header.data, .iov_len = header.len},
            {.iov_base = payload.data, .iov_len = payload.len},
        };
        int rc = streamed(opts.client, opts.event, path, iov, 3, &reply, deadline, &failure);
        if (rc == 1)
            rc = exchange(path, iov, 3, &reply, deadline, &failure);
        if (rc != 0 && failure.kind == F_NOT_RUNNING && opts.autostart)
            rc = autostart(path, opts.autostart, opts.autostart_config, iov, 3, &reply, deadline, &failure);
        if (rc == 0)
            return finish(reply.body, reply.out_len, reply.body + reply.out_len, reply.err_len, reply.exit_code);
    }
    if (!will_fail_closed)
        return finish("", 0, "", 0, 0);
    Buf reason = {0}, line = {0}, out = {0};
    describe(&reason, &failure, path, deadline_ms);
    one_line(&line, reason.data, reason.len);
    if (entry->tell_user)
        tell_agent(line.data, line.len);
    buf_str(&out, fail_prefix);
    if (fail_exit) {
        buf_add(&out, line.data, line.len);
        buf_str(&out, fail_suffix);
        return finish("", 0, out.data, out.len, fail_exit);
    }
    json_string(&out, line.data, line.len);
    buf_str(&out, fail_suffix);
    return finish(out.data, out.len, "", 0, 0);
}
